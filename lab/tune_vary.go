package lab

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// VaryParam is one parameter a recommendation (tune --vary) varies, with
// every value it takes, ascending when the values are numbers.
type VaryParam struct {
	// Text is the --vary as given.
	Text string
	// Name is the parameter as written, lower-cased: a lab spec's
	// parameter (burst, sample-count) or a product's field name
	// (maxqueueingtimems, see ProductParams).
	Name string
	// Label is the name as written (maxQueueingTimeMs), for the table.
	Label string
	// Stage is the 1-based stage of a chain when written N.NAME, else 0.
	Stage int
	// Values are the values as they go into the spec; Num their numbers
	// (a duration in seconds), all NaN when the values are not numbers.
	Values []string
	Num    []float64
	// Log says the values were log-spaced (A..B~N).
	Log bool
}

// Numeric reports whether the values are numbers (or durations).
func (v VaryParam) Numeric() bool { return len(v.Num) > 0 && !math.IsNaN(v.Num[0]) }

// MaxVaryValues bounds the values of one --vary.
const MaxVaryValues = 100000

var varyNameRE = regexp.MustCompile(`^(?:([1-9][0-9]?)\.)?([a-z][a-z0-9_-]*)$`)

const varyHelp = "write NAME=A..B (whole numbers, step 1), NAME=A..B/STEP, NAME=A..B~N (N log-spaced values) or NAME=a,b,c; durations work too (max-queue=0s..1s/250ms)"

// ParseVary reads one --vary: NAME=A..B (whole numbers, step 1),
// NAME=A..B/STEP (numbers or durations), NAME=A..B~N (N values spaced
// evenly on a log scale from A to B, rounded to whole numbers when A and B
// are, repeats dropped) or a list NAME=a,b,c. NAME may be N.NAME for
// stage N of a chain. Numeric values are sorted ascending, repeats
// dropped; errors are one line with the fix.
func ParseVary(s string) (VaryParam, error) {
	label, rhs, ok := strings.Cut(s, "=")
	label, rhs = strings.TrimSpace(label), strings.TrimSpace(rhs)
	name := strings.ToLower(label)
	m := varyNameRE.FindStringSubmatch(name)
	if !ok || m == nil || rhs == "" {
		return VaryParam{}, fmt.Errorf("--vary %q is not NAME=VALUES; %s", s, varyHelp)
	}
	v := VaryParam{Text: strings.TrimSpace(s), Name: m[2], Label: label}
	if m[1] != "" {
		v.Stage, _ = strconv.Atoi(m[1])
		v.Label = label[len(m[1])+1:]
	}
	var err error
	if a, b, isRange := strings.Cut(rhs, ".."); isRange {
		err = v.parseRange(s, strings.TrimSpace(a), strings.TrimSpace(b))
	} else {
		err = v.parseList(s, rhs)
	}
	if err != nil {
		return VaryParam{}, err
	}
	return v, nil
}

// value is one number or duration of a --vary.
type value struct {
	x        float64 // the number, or the duration in ns
	dur      bool
	decimals int // digits after the point as written
}

func parseValue(s string) (value, bool) {
	if s == "" {
		return value{}, false
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(x) && !math.IsInf(x, 0) && !strings.ContainsAny(s, "xXpP_") {
		dec := 0
		if i := strings.IndexByte(s, '.'); i >= 0 && !strings.ContainsAny(s, "eE") {
			dec = len(s) - i - 1
		}
		return value{x: x, decimals: dec}, true
	}
	if d, err := time.ParseDuration(s); err == nil {
		return value{x: float64(d), dur: true}, true
	}
	return value{}, false
}

func (v *VaryParam) parseRange(s, a, b string) error {
	if strings.Contains(b, "/") && strings.Contains(b, "~") {
		return fmt.Errorf("--vary %q has both /STEP and ~N; %s", s, varyHelp)
	}
	b, step, hasStep := strings.Cut(b, "/")
	b, count, hasCount := strings.Cut(b, "~")
	lo, ok1 := parseValue(a)
	hi, ok2 := parseValue(strings.TrimSpace(b))
	if !ok1 || !ok2 {
		return fmt.Errorf("--vary %q: the range's ends must be numbers or durations; %s", s, varyHelp)
	}
	if lo.dur != hi.dur {
		return fmt.Errorf("--vary %q mixes a number and a duration; give both ends as durations (0s..1s) or numbers", s)
	}
	if lo.x > hi.x {
		return fmt.Errorf("--vary %q runs down; write the smaller end first (%s..%s)", s, strings.TrimSpace(b), a)
	}
	whole := !lo.dur && lo.x == math.Trunc(lo.x) && hi.x == math.Trunc(hi.x) && lo.decimals == 0 && hi.decimals == 0
	var xs []float64
	dec := max(lo.decimals, hi.decimals)
	switch {
	case hasCount:
		n, err := strconv.Atoi(strings.TrimSpace(count))
		if err != nil || n < 2 || n > MaxVaryValues {
			return fmt.Errorf("--vary %q: ~N must be a whole number of values from 2 to %d, got %q", s, MaxVaryValues, count)
		}
		if !(lo.x > 0) {
			return fmt.Errorf("--vary %q: log-spaced values need a positive start (write %s..%s~%d with a start above 0, or a /STEP)", s, "1", strings.TrimSpace(b), n)
		}
		v.Log = true
		ratio := hi.x / lo.x
		for i := 0; i < n; i++ {
			x := lo.x * math.Pow(ratio, float64(i)/float64(n-1))
			switch {
			case i == n-1:
				x = hi.x
			case whole:
				x = math.Round(x)
			case lo.dur && math.Mod(lo.x, 1e6) == 0 && math.Mod(hi.x, 1e6) == 0:
				x = math.Round(x/1e6) * 1e6 // whole milliseconds
			case lo.dur:
				x = math.Round(x)
			default:
				dec = max(dec, 3)
			}
			xs = append(xs, x)
		}
	case hasStep:
		st, ok := parseValue(strings.TrimSpace(step))
		if !ok || st.dur != lo.dur || !(st.x > 0) {
			what := "a positive number"
			if lo.dur {
				what = "a positive duration"
			}
			return fmt.Errorf("--vary %q: /STEP must be %s, got %q", s, what, step)
		}
		dec = max(dec, st.decimals)
		whole = whole && st.x == math.Trunc(st.x) && st.decimals == 0
		if n := (hi.x-lo.x)/st.x + 1; n > MaxVaryValues {
			return fmt.Errorf("--vary %q has %.0f values, more than %d; use a larger /STEP or ~N log-spaced values", s, math.Floor(n), MaxVaryValues)
		}
		for i := 0; ; i++ {
			x := lo.x + float64(i)*st.x
			if x > hi.x*(1+1e-12)+1e-12 {
				break
			}
			if !lo.dur && !whole {
				x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'f', dec, 64), 64)
			}
			xs = append(xs, x)
		}
	default:
		if !whole {
			return fmt.Errorf("--vary %q: a range of durations or fractions needs a step: write %s..%s/STEP or %s..%s~N", s, a, strings.TrimSpace(b), a, strings.TrimSpace(b))
		}
		if n := hi.x - lo.x + 1; n > MaxVaryValues {
			return fmt.Errorf("--vary %q has %.0f values, more than %d; give a step (/STEP) or ~N log-spaced values", s, n, MaxVaryValues)
		}
		for x := lo.x; x <= hi.x; x++ {
			xs = append(xs, x)
		}
	}
	for _, x := range xs {
		if lo.dur {
			v.add(time.Duration(x).String(), x/1e9)
		} else if whole {
			v.add(strconv.FormatFloat(x, 'f', 0, 64), x)
		} else {
			v.add(strconv.FormatFloat(x, 'f', dec, 64), x)
		}
	}
	v.sort()
	return nil
}

func (v *VaryParam) parseList(s, rhs string) error {
	items := strings.Split(rhs, ",")
	if len(items) > MaxVaryValues {
		return fmt.Errorf("--vary %q has %d values, more than %d", s, len(items), MaxVaryValues)
	}
	numeric := true
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			return fmt.Errorf("--vary %q has an empty value; %s", s, varyHelp)
		}
		if strings.ContainsAny(it, "=+: ") {
			return fmt.Errorf("--vary %q: value %q cannot go into a spec (no '=', '+', ':' or spaces); %s", s, it, varyHelp)
		}
		x, ok := parseValue(it)
		numeric = numeric && ok
		if x.dur {
			v.add(it, x.x/1e9)
		} else {
			v.add(it, x.x)
		}
	}
	if !numeric {
		for i := range v.Num {
			v.Num[i] = math.NaN()
		}
		// Not numbers: the values in the order given, each once.
		seen := map[string]bool{}
		var vals []string
		for _, s := range v.Values {
			if !seen[s] {
				seen[s] = true
				vals = append(vals, s)
			}
		}
		v.Values, v.Num = vals, v.Num[:len(vals)]
		return nil
	}
	v.sort()
	return nil
}

func (v *VaryParam) add(s string, x float64) {
	v.Values = append(v.Values, s)
	v.Num = append(v.Num, x)
}

// sort orders numeric values ascending and drops repeats (the first
// spelling of a number stays).
func (v *VaryParam) sort() {
	idx := make([]int, len(v.Values))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case v.Num[a] < v.Num[b]:
			return -1
		case v.Num[a] > v.Num[b]:
			return 1
		}
		return 0
	})
	var vals []string
	var nums []float64
	for _, i := range idx {
		if len(nums) > 0 && nums[len(nums)-1] == v.Num[i] {
			continue
		}
		vals, nums = append(vals, v.Values[i]), append(nums, v.Num[i])
	}
	v.Values, v.Num = vals, nums
}

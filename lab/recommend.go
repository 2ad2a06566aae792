package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/internal/suggest"
	"github.com/ratelimit-lab/ratelimit-lab/registry"
	"github.com/ratelimit-lab/ratelimit-lab/rules"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
	"github.com/ratelimit-lab/ratelimit-lab/spec"
)

// DefaultMaxRuns is tune --vary's default budget of points.
const DefaultMaxRuns = 200

// Goal is one --goal: a constraint in --fail-if's grammar, FIELD OP
// VALUE, that a recommended point must meet (not the failing
// condition: here the condition must hold), or the objective, max FIELD
// or min FIELD.
type Goal struct {
	Text string
	// Objective is set for max FIELD / min FIELD; Maximize says which.
	Objective, Maximize bool
	// Field is a number field of summary.json (or pass_pct).
	Field string
	// Op and Value are the constraint's (Value in the field's units).
	Op    string
	Value float64
	// Over, when set, makes Value a percentage of that field
	// (keys_hurt <= 1% of distinct_keys).
	Over string
	// Key, when set, is the key (of a per-key row's key column) whose
	// figure Field is: pass_pct[KEY], passed[KEY], blocked[KEY] or
	// arrived[KEY].
	Key string
}

var goalRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(>=|<=|==|!=|>|<)\s*(\S+?)\s*$`)

// keyGoalRE is a named key's figure: pass_pct[203.0.113.7] >= 50.
var keyGoalRE = regexp.MustCompile(`^\s*(pass_pct|passed|blocked|arrived)\[([^\]]+)\]\s*(>=|<=|==|!=|>|<)\s*(\S+?)\s*$`)

var objectiveRE = regexp.MustCompile(`^\s*(max|maximize|maximise|min|minimize|minimise)\s+([A-Za-z_][A-Za-z0-9_]*)\s*$`)

// pctOver names, for the fields a --goal may give as a percentage, what
// it is a percentage of.
var pctOver = map[string]string{"passed": "arrived", "blocked": "arrived", "keys_hurt": "distinct_keys", "innocent_keys_hurt": "distinct_keys",
	"users_hurt": "distinct_users", "innocent_users_hurt": "distinct_users"}

// ParseGoal reads one --goal: a constraint FIELD OP VALUE in --fail-if's
// grammar (report.ParseThreshold), with VALUE a number, a duration for a
// field in ms (rt_p99 <= 200ms reads rt_p99_ms), or a percentage
// (pass_pct, and passed, blocked, keys_hurt over their totals); or the
// objective max FIELD / min FIELD.
func ParseGoal(s string) (Goal, error) {
	fields := report.SummaryFields()
	if m := objectiveRE.FindStringSubmatch(s); m != nil {
		g := Goal{Text: strings.TrimSpace(s), Objective: true, Maximize: strings.HasPrefix(m[1], "max"), Field: strings.ToLower(m[2])}
		if !slices.Contains(fields, g.Field) && slices.Contains(fields, g.Field+"_ms") {
			g.Field += "_ms"
		}
		if !slices.Contains(fields, g.Field) {
			return Goal{}, unknownGoalField(s, m[2], fields)
		}
		return g, nil
	}
	if m := keyGoalRE.FindStringSubmatch(s); m != nil {
		v, err := strconv.ParseFloat(strings.TrimSuffix(m[4], "%"), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Goal{}, fmt.Errorf("--goal %q: %q is not a number; write for example --goal '%s[%s]%s50'", s, m[4], m[1], m[2], m[3])
		}
		return Goal{Text: strings.TrimSpace(s), Field: strings.ToLower(m[1]) + "[" + m[2] + "]", Op: m[3], Value: v, Key: m[2]}, nil
	}
	m := goalRE.FindStringSubmatch(s)
	if m == nil {
		return Goal{}, fmt.Errorf("--goal %q is neither a constraint FIELD OP VALUE (users_hurt<=0, rt_p99<=200ms, pass_pct>=95) nor an objective (max passed, min keys_hurt)", s)
	}
	field, op, val := strings.ToLower(m[1]), m[2], m[3]
	g := Goal{Text: strings.TrimSpace(s), Field: field, Op: op}
	if !slices.Contains(fields, field) && slices.Contains(fields, field+"_ms") {
		g.Field = field + "_ms"
	}
	num := val
	switch {
	case strings.HasSuffix(val, "%"):
		num = strings.TrimSuffix(val, "%")
		switch {
		case g.Field == "pass_pct":
		case g.Field == "pass_ratio":
			g.Field = "pass_pct"
		case pctOver[g.Field] != "":
			g.Over = pctOver[g.Field]
		default:
			return Goal{}, fmt.Errorf("--goal %q: a percentage works for pass_pct, passed, blocked, keys_hurt and innocent_keys_hurt; give %s as a number", s, field)
		}
	case strings.HasSuffix(g.Field, "_ms"):
		if d, err := time.ParseDuration(val); err == nil {
			num = strconv.FormatFloat(float64(d)/1e6, 'f', -1, 64)
		}
	}
	t, err := report.ParseThreshold(g.Field + op + num)
	if err != nil {
		if !slices.Contains(fields, g.Field) {
			return Goal{}, unknownGoalField(s, field, fields)
		}
		return Goal{}, fmt.Errorf("--goal %q: %q is not a number, a duration for a _ms field or a percentage; write for example --goal '%s%s%s'", s, val, field, op, "100")
	}
	g.Value = t.Value
	return g, nil
}

func unknownGoalField(s, field string, fields []string) error {
	hint := ""
	if near, ok := suggest.Nearest(strings.ToLower(field), fields); ok {
		hint = fmt.Sprintf(" (did you mean %q?)", near)
	}
	return fmt.Errorf("--goal %q: unknown metric %q%s; metrics of summary.json: %s", s, field, hint, strings.Join(fields, ", "))
}

// holds reports whether the constraint holds for x.
func (g Goal) holds(x float64) bool {
	switch g.Op {
	case "<":
		return x < g.Value
	case "<=":
		return x <= g.Value
	case ">":
		return x > g.Value
	case ">=":
		return x >= g.Value
	case "==":
		return x == g.Value
	case "!=":
		return x != g.Value
	}
	return false
}

// slack is how far x is inside the constraint (negative: outside).
func (g Goal) slack(x float64) float64 {
	switch g.Op {
	case "<", "<=":
		return g.Value - x
	case ">", ">=":
		return x - g.Value
	case "==":
		return -math.Abs(x - g.Value)
	}
	return math.Abs(x - g.Value)
}

// value is the goal's metric at a point (a percentage when Over is set);
// ok is false when summary.json has no number for it.
func (g Goal) value(m map[string]float64) (float64, bool) {
	x, ok := m[g.Field]
	if !ok || g.Over == "" {
		return x, ok
	}
	tot, ok := m[g.Over]
	if !ok || tot == 0 {
		return 0, ok
	}
	return 100 * x / tot, true
}

// ProductParam maps a product's field name to the lab parameter of a
// stage the product's rule becomes: Sentinel's count is leap-array's
// limit; Unit is appended to the value (maxQueueingTimeMs=500 is
// max-queue=500ms).
type ProductParam struct {
	Stage, Field, Param, Unit string
}

// ProductParams are the product field names --vary takes besides the lab
// names (which it always takes). nginx's rate and burst are already the
// names of nginx-limit-req's parameters (a rate given as a number is
// per second). A unit is appended only to a value that is a number.
var ProductParams = []ProductParam{
	{"nginx-limit-req", "rate", "rate", "r/s"},
	{"leap-array", "count", "limit", ""},
	{"leaky-bucket", "count", "limit", ""},
	{"warm-up", "count", "limit", ""},
	{"warm-up-rate-limiter", "count", "limit", ""},
	{"leaky-bucket", "maxqueueingtimems", "max-queue", "ms"},
	{"warm-up-rate-limiter", "maxqueueingtimems", "max-queue", "ms"},
	{"warm-up", "warmupperiodsec", "warm-up", "s"},
	{"warm-up-rate-limiter", "warmupperiodsec", "warm-up", "s"},
	{"warm-up", "coldfactor", "cold-factor", ""},
	{"warm-up-rate-limiter", "coldfactor", "cold-factor", ""},
	{"sentinel-param", "burstcount", "burst", ""},
	{"sentinel-param", "durationinsec", "duration", "s"},
	{"sentinel-param", "maxqueueingtimems", "max-queue", "ms"},
	{"sentinel-cluster", "count", "count", ""},
	{"leap-array", "samplecount", "sample-count", ""},
	{"leap-array", "intervalinms", "interval", "ms"},
}

// permissive are the parameters a larger value of which lets more
// through (+1) or less (-1), by stage name ("" for any stage): the
// directions bisection assumes (and checks on the points it runs).
var permissive = map[string]int{
	"rate": 1, "limit": 1, "burst": 1, "count": 1, "capacity": 1, "qps": 1, "average": 1,
	"max-queue": 1, "limit-for-period": 1, "refill-tokens": 1, "second": 1, "minute": 1,
	"warm-up": -1, "cold-factor": -1,
}

// moreThrough are the metrics that grow (+1) or shrink (-1) as a limiter
// lets more through. The overshoot is not one: it is divided by the
// limit, which the parameter may change.
var moreThrough = map[string]int{
	"passed": 1, "pass_ratio": 1, "pass_pct": 1, "max_window_passed": 1, "peak_bin_passed": 1,
	"blocked": -1, "keys_hurt": -1, "innocent_keys_hurt": -1, "users_hurt": -1, "innocent_users_hurt": -1,
}

// direction is +1 when the metric grows with the parameter, -1 when it
// shrinks, 0 when the lab does not assume either.
func direction(param, metric string) int {
	if base, _, ok := strings.Cut(metric, "["); ok {
		if base == "arrived" {
			return 0
		}
		metric = base
	}
	return permissive[param] * moreThrough[metric]
}

// axis is a --vary resolved on the base spec: the stage and lab
// parameter it sets, and each value as written there.
type axis struct {
	VaryParam
	stage  int    // 0-based
	param  string // the lab parameter
	values []string
}

// RecommendPlan is a validated tune --vary: the base spec, the axes, the
// goals, and the prepared source.
type RecommendPlan struct {
	opts      TuneOptions
	base      string
	rule      *rules.Rule
	axes      []axis
	goals     []Goal // constraints
	objective *Goal
	p         *Plan
	size      int
	workers   int
	// shared: the source belongs to another plan (several rules), which
	// closes it and prints its notes.
	shared bool
}

// NewRecommendPlan checks a tune --vary: the base spec (--algo, or the
// one row --rules and --rule pick), each --vary against it, each --goal,
// the source; nothing runs.
func NewRecommendPlan(ctx context.Context, opts TuneOptions, notes io.Writer, width int) (*RecommendPlan, error) {
	return newRecommendPlan(ctx, opts, notes, width, nil)
}

// newRecommendPlan is NewRecommendPlan on the source shared prepared,
// when given (several rules tuned on one source).
func newRecommendPlan(ctx context.Context, opts TuneOptions, notes io.Writer, width int, shared *Plan) (_ *RecommendPlan, err error) {
	if notes == nil {
		notes = io.Discard
	}
	r := &RecommendPlan{opts: opts, workers: opts.Workers}
	if r.workers <= 0 {
		r.workers = runtime.NumCPU()
	}
	if opts.TargetSet {
		return nil, errors.New("--target names a sample count of the leap-array tune; with --vary give the goals as --goal (for example --goal 'overshoot<=1.05')")
	}
	if opts.MaxRuns < 1 {
		return nil, fmt.Errorf("--max-runs must be at least 1, got %d", opts.MaxRuns)
	}
	for _, s := range opts.Goals {
		g, err := ParseGoal(s)
		if err != nil {
			return nil, err
		}
		if g.Objective {
			if r.objective != nil {
				return nil, fmt.Errorf("--goal %q and --goal %q are both objectives; give one max/min goal and the rest as constraints", r.objective.Text, g.Text)
			}
			r.objective = &g
			continue
		}
		r.goals = append(r.goals, g)
	}
	if len(r.goals) == 0 && r.objective == nil {
		return nil, fmt.Errorf("tune --vary needs at least one --goal: a constraint (--goal 'users_hurt<=0') or an objective (--goal 'max passed')")
	}
	if err := r.pickBase(notes, width); err != nil {
		return nil, err
	}
	base := spec.Split(r.base)
	r.size = 1
	for _, s := range opts.Vary {
		v, err := ParseVary(s)
		if err != nil {
			return nil, err
		}
		a, err := resolveAxis(v, base)
		if err != nil {
			return nil, err
		}
		for _, b := range r.axes {
			if b.stage == a.stage && b.param == a.param {
				return nil, fmt.Errorf("--vary %q and --vary %q set the same parameter (%s); give each once", b.Text, a.Text, a.param)
			}
		}
		r.axes = append(r.axes, a)
		if r.size > math.MaxInt32/len(a.values) {
			r.size = math.MaxInt32
		} else {
			r.size *= len(a.values)
		}
	}
	if len(r.axes) == 0 {
		return nil, errors.New("tune --vary needs at least one parameter to vary, for example --vary burst=0..100/10")
	}
	var window = opts.Window
	if !opts.WindowSet {
		window = DefaultWindow
	}
	var p *Plan
	if shared != nil {
		q := *shared
		p, r.shared = &q, true
		if err := registry.Check(r.spec(r.coords(0)), p.src.Limit); err != nil {
			return nil, err
		}
	} else {
		p, err = prepare(ctx, &opts.Source, []string{r.spec(r.coords(0))}, false, opts.Bin, window, opts.Out, "-tune", nil)
		if err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				p.src.cleanup()
			}
		}()
	}
	if r.rule != nil {
		if err := checkRuleNeeds([]rules.Rule{*r.rule}, p.src); err != nil {
			return nil, err
		}
	}
	r.p = p
	// The first point is built above; the last checks the values' far
	// end before anything runs.
	if last := r.spec(r.coords(r.size - 1)); r.size > 1 {
		if err := registry.Check(last, p.src.Limit); err != nil {
			return nil, fmt.Errorf("tune --vary: %s: %v", last, err)
		}
	}
	if !r.bisects() && r.size > opts.MaxRuns {
		return nil, fmt.Errorf("the grid of --vary has %d points (%s), more than --max-runs %d, and bisection does not apply (%s); raise --max-runs to %d or give fewer values", r.size, r.sizes(), opts.MaxRuns, r.whyNoBisect(), r.size)
	}
	return r, nil
}

// pickBase sets the spec the axes vary: --algo, or the one active row of
// --rules (the one --rule names when there are several).
func (r *RecommendPlan) pickBase(notes io.Writer, width int) error {
	o := r.opts
	imported, err := o.Rules.load()
	if err != nil {
		return err
	}
	switch {
	case o.Algo != "" && len(imported) > 0:
		return errors.New("tune --vary varies one spec: give --algo SPEC or --rules FILE, not both")
	case o.Algo != "":
		if o.Rule != "" {
			return errors.New("--rule picks a rule of --rules files; give --rules FILE too, or drop --rule")
		}
		r.base = o.Algo
		return nil
	case len(imported) == 0:
		return errors.New("tune --vary needs the spec to vary: give --algo SPEC (for example --algo nginx-limit-req:rate=10r/s,burst=20,key=ip) or --rules FILE")
	}
	var rows []rules.Rule
	var names []string
	for _, ru := range imported {
		if ru.Active() {
			rows = append(rows, ru)
			names = append(names, ru.Name)
		}
	}
	if len(rows) == 0 {
		return noActiveRule(imported)
	}
	pick := -1
	switch {
	case o.Rule != "":
		pick = slices.Index(names, o.Rule)
		if pick < 0 {
			return fmt.Errorf("--rule %q is not a rule of the --rules files; pick one of: %s", o.Rule, strings.Join(names, ", "))
		}
	case len(rows) > 1:
		return fmt.Errorf("the --rules files have %d rules; pick the one to tune with --rule NAME: %s", len(rows), strings.Join(names, ", "))
	default:
		pick = 0
	}
	ru := rows[pick]
	r.rule, r.base = &ru, ru.Spec
	return report.WriteNote(notes, "", fmt.Sprintf("tuning rule %q (%s): %s, as %s", ru.Name, ru.Source, ru.What, ru.Spec), width)
}

// resolveAxis finds the stage and lab parameter a --vary sets in base.
func resolveAxis(v VaryParam, base spec.Spec) (axis, error) {
	a := axis{VaryParam: v, stage: -1}
	type cand struct {
		stage       int
		param, unit string
	}
	var cands []cand
	for i, st := range base.Stages {
		if v.Stage != 0 && v.Stage != i+1 {
			continue
		}
		for _, pp := range ProductParams {
			if pp.Stage == st.Name && pp.Field == strings.ReplaceAll(v.Name, "_", "") {
				cands = append(cands, cand{i, pp.Param, pp.Unit})
			}
		}
		if _, ok := st.Get(v.Name); ok && !slices.ContainsFunc(cands, func(c cand) bool { return c.stage == i }) {
			cands = append(cands, cand{i, v.Name, ""})
		}
	}
	if v.Stage > len(base.Stages) {
		return a, fmt.Errorf("--vary %q: the spec %s has %d stage(s), no stage %d", v.Text, base, len(base.Stages), v.Stage)
	}
	switch {
	case len(cands) == 1:
	case len(cands) > 1:
		var which []string
		for _, c := range cands {
			which = append(which, fmt.Sprintf("%d.%s", c.stage+1, v.Name))
		}
		return a, fmt.Errorf("--vary %q: %s is in several stages of %s; name the stage: %s", v.Text, v.Name, base, strings.Join(which, " or "))
	case v.Stage != 0 || len(base.Stages) == 1:
		// A parameter the spec leaves at its default: the registry
		// checks the name.
		st := max(v.Stage-1, 0)
		cands = append(cands, cand{st, v.Name, ""})
	default:
		return a, fmt.Errorf("--vary %q: no stage of %s has %s; name the stage as N.%s (stages: %s)", v.Text, base, v.Name, v.Name, strings.Join(base.Names(), ", "))
	}
	c := cands[0]
	a.stage, a.param = c.stage, c.param
	for _, s := range v.Values {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			s += c.unit
		}
		a.values = append(a.values, s)
	}
	return a, nil
}

// coords are point i's value index on each axis; the first axis varies
// slowest.
func (r *RecommendPlan) coords(i int) []int {
	c := make([]int, len(r.axes))
	for k := len(r.axes) - 1; k >= 0; k-- {
		n := len(r.axes[k].values)
		c[k] = i % n
		i /= n
	}
	return c
}

// spec is the base spec with each axis at its coordinate.
func (r *RecommendPlan) spec(c []int) string {
	sp := spec.Split(r.base)
	for k, a := range r.axes {
		st := &sp.Stages[a.stage]
		val := a.values[c[k]]
		set := false
		for j := range st.Params {
			if st.Params[j].OK && st.Params[j].Key == a.param {
				st.Params[j].Value, set = val, true
			}
		}
		if !set {
			st.Params = append(st.Params, spec.Param{Key: a.param, Value: val, OK: true})
		}
	}
	return sp.String()
}

func (r *RecommendPlan) sizes() string {
	s := make([]string, len(r.axes))
	for i, a := range r.axes {
		s[i] = strconv.Itoa(len(a.values))
	}
	return strings.Join(s, "×")
}

// bisects reports whether the search bisects: one numeric axis of at
// least four values, every constraint an inequality on a metric the lab
// takes as monotone in it, and the objective's metric too.
func (r *RecommendPlan) bisects() bool { return r.whyNoBisect() == "" }

func (r *RecommendPlan) whyNoBisect() string {
	if len(r.axes) != 1 {
		return "it needs a single --vary"
	}
	a := r.axes[0]
	if !a.Numeric() {
		return a.Name + "'s values are not numbers"
	}
	if len(a.values) < 4 {
		return "fewer than four values"
	}
	if len(r.goals) == 0 {
		return "no constraint to bisect on"
	}
	for _, g := range r.goals {
		if g.Op == "==" || g.Op == "!=" || direction(a.param, g.Field) == 0 {
			return fmt.Sprintf("%s is not taken as monotone in %s", g.Field, a.param)
		}
	}
	if o := r.objective; o != nil && direction(a.param, o.Field) == 0 {
		return fmt.Sprintf("the objective %s is not taken as monotone in %s", o.Field, a.param)
	}
	return ""
}

// Close removes what resolving the source left on disk.
func (r *RecommendPlan) Close() {
	if !r.shared {
		r.p.src.cleanup()
	}
}

// Out is the output directory Execute writes.
func (r *RecommendPlan) Out() string { return r.p.out }

// Base is the spec the axes vary; Rule the rule it came from (nil with
// --algo).
func (r *RecommendPlan) Base() string      { return r.base }
func (r *RecommendPlan) Rule() *rules.Rule { return r.rule }

// Size is the number of points of the grid.
func (r *RecommendPlan) Size() int { return r.size }

// Point is one configuration tried.
type Point struct {
	// Index is the point's place in the grid (0-based; the first axis
	// varies slowest); tune.csv numbers it Index+1.
	Index int
	// Params are the axes' values, by the names --vary gave.
	Params []string
	Spec   string
	// Metrics are the row's number fields of summary.json (and
	// pass_pct), Raw as summary.json writes them.
	Metrics map[string]float64
	Raw     map[string]string
	// Feasible: every constraint holds; Front: on the Pareto front.
	Feasible, Front bool
}

// metricsOf reads the single row of res as summary.json writes it.
func metricsOf(res *simulator.Result) (map[string]float64, map[string]string, error) {
	var b strings.Builder
	if err := simulator.WriteSummaryJSON(&b, res); err != nil {
		return nil, nil, err
	}
	s, err := report.ParseSummary([]byte(b.String()))
	if err != nil {
		return nil, nil, err
	}
	m, raw := map[string]float64{}, map[string]string{}
	if len(s.Algorithms) == 0 {
		return m, raw, nil
	}
	for _, f := range s.Algorithms[0] {
		if x, err := strconv.ParseFloat(string(f.Raw), 64); err == nil {
			m[f.Key], raw[f.Key] = x, string(f.Raw)
		}
	}
	if x, ok := m["pass_ratio"]; ok {
		m["pass_pct"] = 100 * x
		raw["pass_pct"] = strconv.FormatFloat(100*x, 'f', 4, 64)
	}
	return m, raw, nil
}

// variant is the plan with one limiter, spec, on its own Redis session
// (the embedded one unless the source's options say otherwise), so that
// points run side by side share nothing but the arrivals' source.
func (r *RecommendPlan) variant(ctx context.Context, s string) (*Plan, error) {
	rs, err := newRedisSession(ctx, Redis{Timeout: DefaultRedisTimeout}, r.p.cfg.Bin)
	if err != nil {
		return nil, err
	}
	ls, err := buildLimiters([]string{s}, r.p.src.Limit, rs)
	if err != nil {
		rs.close()
		return nil, err
	}
	q := *r.p
	q.limiters, q.rs, q.opts.Specs, q.labels = ls, rs, []string{s}, nil
	if r.rule != nil {
		q.labels, q.opts.Specs = []string{r.rule.Name}, nil
	}
	return &q, nil
}

// runPoint replays point i with the library's single-threaded replay.
func (r *RecommendPlan) runPoint(ctx context.Context, i int) (*Point, *Result, error) {
	c := r.coords(i)
	pt := &Point{Index: i, Spec: r.spec(c)}
	for k, a := range r.axes {
		pt.Params = append(pt.Params, a.VaryParam.Values[c[k]])
	}
	q, err := r.variant(ctx, pt.Spec)
	if err != nil {
		return nil, nil, err
	}
	defer q.rs.close()
	res, err := q.Replay(ctx, Hooks{})
	if err != nil {
		return nil, nil, err
	}
	if pt.Metrics, pt.Raw, err = metricsOf(res.Result); err != nil {
		return nil, nil, err
	}
	r.keyMetrics(pt, res)
	pt.Feasible = true
	for _, g := range r.goals {
		x, ok := g.value(pt.Metrics)
		pt.Feasible = pt.Feasible && ok && g.holds(x)
	}
	return pt, res, nil
}

// keyMetrics adds the named keys' figures of the goals to the point's
// metrics, from the row's per-key results (none when the row is not
// per key or the key never arrived).
func (r *RecommendPlan) keyMetrics(pt *Point, res *Result) {
	if len(res.Algorithms) == 0 || res.Algorithms[0].Keys == nil || res.Keys == nil {
		return
	}
	kr := res.Algorithms[0].Keys
	for _, g := range r.goals {
		if g.Key == "" {
			continue
		}
		for id := 0; id < res.Keys.Len() && id < kr.Stats.Len(); id++ {
			if res.Keys.Name(int32(id)) != g.Key {
				continue
			}
			st := *kr.Stats.At(id)
			if st.Requests == 0 {
				break
			}
			base, _, _ := strings.Cut(g.Field, "[")
			var x float64
			switch base {
			case "passed":
				x = float64(st.Passed)
			case "blocked":
				x = float64(st.Rejected)
			case "arrived":
				x = float64(st.Requests)
			default:
				x = 100 * float64(st.Passed) / float64(st.Requests)
			}
			prec := -1
			if base == "pass_pct" {
				prec = 4 // as summary.json's pass_pct
			}
			pt.Metrics[g.Field], pt.Raw[g.Field] = x, strconv.FormatFloat(x, 'f', prec, 64)
			break
		}
	}
}

// RecommendHooks are what a caller learns while a recommendation runs.
type RecommendHooks struct {
	// Point is called after each point with the points done, the total
	// when known (0 while bisecting) and the best point so far.
	Point func(done, total int, best string)
	// Finished is called once the search ends.
	Finished func()
}

// search runs the points: bisection when it applies, else the grid on
// r.workers goroutines. The points come back in grid order, whatever
// the number of workers; notes say what the search assumed.
func (r *RecommendPlan) search(ctx context.Context, h RecommendHooks) ([]*Point, []string, error) {
	s := &searcher{r: r, h: h, ran: map[int]*Point{}}
	var notes []string
	if r.bisects() {
		n, err := s.bisect(ctx)
		if err != nil {
			return nil, nil, err
		}
		notes = append(notes, n...)
	} else {
		idx := make([]int, r.size)
		for i := range idx {
			idx[i] = i
		}
		if err := s.runAll(ctx, idx); err != nil {
			return nil, nil, err
		}
	}
	pts := make([]*Point, 0, len(s.ran))
	for _, p := range s.ran {
		pts = append(pts, p)
	}
	slices.SortFunc(pts, func(a, b *Point) int { return a.Index - b.Index })
	return pts, notes, nil
}

type searcher struct {
	r     *RecommendPlan
	h     RecommendHooks
	mu    sync.Mutex
	ran   map[int]*Point
	total int
	best  *Point
}

// record keeps a point and tells the hooks.
func (s *searcher) record(p *Point) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ran[p.Index] = p
	if p.Feasible && (s.best == nil || s.r.better(p, s.best)) {
		s.best = p
	}
	if s.h.Point != nil {
		best := "none feasible yet"
		if s.best != nil {
			best = s.r.describe(s.best)
		}
		s.h.Point(len(s.ran), s.total, best)
	}
}

// runAll runs the points of idx not run yet on the plan's workers.
func (s *searcher) runAll(ctx context.Context, idx []int) error {
	var todo []int
	for _, i := range idx {
		if s.ran[i] == nil {
			todo = append(todo, i)
		}
	}
	s.total = len(s.ran) + len(todo)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for w := 0; w < min(s.r.workers, len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				p, _, err := s.r.runPoint(ctx, todo[j])
				if err != nil {
					errs[j] = err
					cancel()
					continue
				}
				s.record(p)
			}
		}()
	}
	for j := range todo {
		if ctx.Err() != nil {
			break
		}
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	// The first error in grid order, so that it is the same for any
	// number of workers (a cancellation after it is not the cause).
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// at runs point i if it has not run and returns it.
func (s *searcher) at(ctx context.Context, i int) (*Point, error) {
	if p := s.ran[i]; p != nil {
		return p, nil
	}
	p, _, err := s.r.runPoint(ctx, i)
	if err != nil {
		return nil, err
	}
	s.record(p)
	return p, nil
}

// bisect finds, for each constraint, the boundary of the values meeting
// it, assuming its metric monotone in the one axis, in O(log n) points;
// the feasible values are then an interval, whose end the objective
// prefers is the recommendation. It then checks the assumption on every
// point it ran and, where it fails, runs the grid within --max-runs.
func (s *searcher) bisect(ctx context.Context) ([]string, error) {
	r := s.r
	a := r.axes[0]
	n := len(a.values)
	lo, hi := 0, n-1 // the feasible interval
	for _, g := range r.goals {
		d := direction(a.param, g.Field)
		prefix := (d > 0) == (g.Op == "<" || g.Op == "<=")
		ok := func(i int) (bool, error) {
			p, err := s.at(ctx, i)
			if err != nil {
				return false, err
			}
			x, has := g.value(p.Metrics)
			if !has {
				return false, missingMetric(g.Text, g.Field, p)
			}
			return g.holds(x), nil
		}
		// Invariant: ok on [.., L] and not beyond for a prefix (the
		// opposite for a suffix); L and H are virtual ends.
		L, H := -1, n
		for H-L > 1 {
			mid := L + (H-L)/2
			good, err := ok(mid)
			if err != nil {
				return nil, err
			}
			if good == prefix {
				L = mid
			} else {
				H = mid
			}
		}
		if prefix {
			hi = min(hi, L)
		} else {
			lo = max(lo, H)
		}
	}
	// The ends of the feasible interval, or both ends of the axis when
	// it is empty, so that the front and the check see them.
	ends := []int{lo, hi}
	if lo > hi {
		ends = []int{0, n - 1}
	}
	for _, i := range ends {
		if _, err := s.at(ctx, i); err != nil {
			return nil, err
		}
	}
	// The objective is best at the end it prefers; ties go to the
	// smaller values, so when that is the upper end, find the first
	// value from which the objective is already that good (a suffix,
	// the objective being monotone).
	if o := r.objective; o != nil && lo < hi && (direction(a.param, o.Field) > 0) == o.Maximize {
		top := s.ran[hi].Metrics[o.Field]
		L, H := lo-1, hi // objective below top on [.., L], equal from H
		for H-L > 1 {
			mid := L + (H-L)/2
			p, err := s.at(ctx, mid)
			if err != nil {
				return nil, err
			}
			if p.Metrics[o.Field] == top {
				H = mid
			} else {
				L = mid
			}
		}
	}
	var assumed []string
	for _, g := range r.goals {
		assumed = append(assumed, g.Field)
	}
	if r.objective != nil && !slices.Contains(assumed, r.objective.Field) {
		assumed = append(assumed, r.objective.Field)
	}
	ran := len(s.ran)
	notes := []string{fmt.Sprintf("bisection on %s: %s assumed monotone in %s (%s); %d of %d points run, the assumption holds on them",
		a.Label, strings.Join(assumed, ", "), a.Label, directionWords(a.param, assumed), ran, n)}
	if bad := s.violation(assumed); bad != "" {
		notes[0] = fmt.Sprintf("bisection on %s assumed %s monotone in %s, but %s", a.Label, strings.Join(assumed, ", "), a.Label, bad)
		idx := spread(n, r.opts.MaxRuns)
		if len(idx) < n {
			notes = append(notes, fmt.Sprintf("falling back to the grid: %d of its %d points, evenly spread, within --max-runs %d", len(idx), n, r.opts.MaxRuns))
		} else {
			notes = append(notes, fmt.Sprintf("falling back to the grid: all %d points", n))
		}
		if err := s.runAll(ctx, idx); err != nil {
			return nil, err
		}
	}
	return notes, nil
}

// violation names the first metric that does not move in its assumed
// direction between two neighbouring points run, or "".
func (s *searcher) violation(metrics []string) string {
	a := s.r.axes[0]
	var idx []int
	for i := range s.ran {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, m := range metrics {
		d := direction(a.param, m)
		for k := 1; k < len(idx); k++ {
			p, q := s.ran[idx[k-1]], s.ran[idx[k]]
			x, ok1 := p.Metrics[m]
			y, ok2 := q.Metrics[m]
			if ok1 && ok2 && float64(d)*(y-x) < 0 {
				return fmt.Sprintf("%s goes from %s at %s=%s to %s at %s=%s", m, p.Raw[m], a.Label, p.Params[0], q.Raw[m], a.Label, q.Params[0])
			}
		}
	}
	return ""
}

func directionWords(param string, metrics []string) string {
	var up, down []string
	for _, m := range metrics {
		if direction(param, m) > 0 {
			up = append(up, m)
		} else {
			down = append(down, m)
		}
	}
	var parts []string
	if len(up) > 0 {
		parts = append(parts, strings.Join(up, ", ")+" ↑")
	}
	if len(down) > 0 {
		parts = append(parts, strings.Join(down, ", ")+" ↓")
	}
	return param + " ↑ ⇒ " + strings.Join(parts, ", ")
}

// spread is up to k indices of 0..n-1 evenly spread, both ends included.
func spread(n, k int) []int {
	if n <= k {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	for j := 0; j < k; j++ {
		i := 0
		if k > 1 {
			i = int(math.Round(float64(j) * float64(n-1) / float64(k-1)))
		}
		if len(out) == 0 || out[len(out)-1] != i {
			out = append(out, i)
		}
	}
	return out
}

func missingMetric(goal, field string, p *Point) error {
	var have []string
	for k := range p.Metrics {
		have = append(have, k)
	}
	slices.Sort(have)
	if base, key, ok := strings.Cut(field, "["); ok {
		return fmt.Errorf("--goal %q: %s has no %s for the key %s: it is not a per-key row (key=COLUMN), or no request of that key arrived (keys.csv lists them)", goal, p.Spec, base, strings.TrimSuffix(key, "]"))
	}
	return fmt.Errorf("--goal %q: %s has no value for %s in summary.json (a null, or a field of another kind of run: goodput and rt_* need a downstream or response times, keys_hurt a per-key row, users_hurt a --user); its numbers: %s", goal, p.Spec, field, strings.Join(have, ", "))
}

// better reports whether p beats q: a better objective, then (ties, or
// no objective) the earlier point in grid order, whose values are the
// smaller ones.
func (r *RecommendPlan) better(p, q *Point) bool {
	if o := r.objective; o != nil {
		x, y := p.Metrics[o.Field], q.Metrics[o.Field]
		if x != y {
			return (x > y) == o.Maximize
		}
	}
	return p.Index < q.Index
}

// describe is "burst=20 (passed 4123)".
func (r *RecommendPlan) describe(p *Point) string {
	s := r.assignment(p)
	if o := r.objective; o != nil {
		s += fmt.Sprintf(" (%s %s)", o.Field, p.Raw[o.Field])
	}
	return s
}

// assignment is "rate=12,burst=20", by the names --vary gave.
func (r *RecommendPlan) assignment(p *Point) string {
	s := make([]string, len(r.axes))
	for k, a := range r.axes {
		s[k] = a.Label + "=" + p.Params[k]
	}
	return strings.Join(s, ",")
}

// front marks the points no other point beats on every constraint's
// slack and on the objective at once (the Pareto front); points missing
// a metric are left out.
func (r *RecommendPlan) front(pts []*Point) {
	vec := func(p *Point) ([]float64, bool) {
		var v []float64
		for _, g := range r.goals {
			x, ok := g.value(p.Metrics)
			if !ok {
				return nil, false
			}
			v = append(v, g.slack(x))
		}
		if o := r.objective; o != nil {
			x, ok := p.Metrics[o.Field]
			if !ok {
				return nil, false
			}
			if !o.Maximize {
				x = -x
			}
			v = append(v, x)
		}
		return v, true
	}
	vs := make([][]float64, len(pts))
	oks := make([]bool, len(pts))
	for i, p := range pts {
		vs[i], oks[i] = vec(p)
	}
	for i, p := range pts {
		p.Front = oks[i]
		for j := range pts {
			if !p.Front {
				break
			}
			if j == i || !oks[j] {
				continue
			}
			ge, gt := true, false
			for k := range vs[i] {
				ge = ge && vs[j][k] >= vs[i][k]
				gt = gt || vs[j][k] > vs[i][k]
			}
			// Equal vectors: the earlier point stands for both.
			if ge && (gt || j < i) {
				p.Front = false
			}
		}
	}
}

func splitSpec(s string) spec.Spec { return spec.Split(s) }

package htmlreport

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// TestPyramidKeepsEveryBin: level 0 reads back every value, and each
// higher level holds exactly the min and max of its group of bins.
func TestPyramidKeepsEveryBin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, TopPoints, TopPoints + 1, 100_003} {
		for _, float := range []bool{false, true} {
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(rng.IntN(1000) - 100)
				if float {
					v[i] = math.Round(rng.Float64()*1e4) / 64 // exact in float32
					if rng.IntN(50) == 0 {
						v[i] = math.NaN()
					}
				}
			}
			s := newStore()
			ser := s.addSeries(v)
			got, err := decode(s.blobs[ser.Levels[0].V])
			if err != nil {
				t.Fatal(err)
			}
			for i := range v {
				if got[i] != v[i] && !(math.IsNaN(got[i]) && math.IsNaN(v[i])) {
					t.Fatalf("n=%d float=%v: bin %d reads %v, want %v", n, float, i, got[i], v[i])
				}
			}
			last := ser.Levels[len(ser.Levels)-1]
			if m := (n + last.Group - 1) / last.Group; m > TopPoints {
				t.Errorf("n=%d: top level has %d groups, more than %d", n, m, TopPoints)
			}
			for _, l := range ser.Levels[1:] {
				lo, _ := decode(s.blobs[l.Min])
				hi, _ := decode(s.blobs[l.Max])
				for j := range lo {
					a, b := math.NaN(), math.NaN()
					for _, x := range v[j*l.Group : min(n, (j+1)*l.Group)] {
						if !math.IsNaN(x) {
							if math.IsNaN(a) || x < a {
								a = x
							}
							if math.IsNaN(b) || x > b {
								b = x
							}
						}
					}
					if !same(lo[j], a) || !same(hi[j], b) {
						t.Fatalf("n=%d level %d group %d: min %v max %v, want %v %v", n, l.Group, j, lo[j], hi[j], a, b)
					}
				}
			}
		}
	}
}

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// TestLongRunFitsFiveMB: a run of 10⁶ bins gives a page under 5 MB whose
// first view reads only the small top levels.
func TestLongRunFitsFiveMB(t *testing.T) {
	if testing.Short() || os.Getenv("RATELIMIT_LAB_SOAK") != "1" {
		// Seven seconds of one core: a soak test, which .ci/run runs
		// (it sets RATELIMIT_LAB_SOAK=1).
		t.Skip("builds a page of 10⁶ bins: runs with RATELIMIT_LAB_SOAK=1")
	}
	if raceOn {
		// About a minute under the race detector; .ci/run runs it again
		// without.
		t.Skip("the 10⁶-bin page runs without -race (.ci/run: go test -run FitsFiveMB ./internal/htmlreport)")
	}
	res := longResult(1_000_000)
	p := NewPage("long")
	if err := p.FromResult("long", res, nil); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	t.Logf("10⁶ bins × %d limiters × %d series: %.2f MB in %d arrays", len(res.Algorithms), len(p.Runs[0].Columns), float64(b.Len())/1e6, len(p.store.blobs))
	if b.Len() >= 5e6 {
		t.Errorf("the page is %d bytes, not under 5 MB", b.Len())
	}
	for _, l := range p.Runs[0].Limiters {
		for _, s := range l.Series {
			if g := s.Levels[len(s.Levels)-1].Group; 1_000_000/g > TopPoints {
				t.Errorf("top level of %d-bin groups has more than %d points", g, TopPoints)
			}
		}
	}
}

// run returns a short run's result.
func run(t *testing.T, name string, specs ...string) *simulator.Result {
	t.Helper()
	sc, err := scenarios.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	var ls []algorithms.Limiter
	if len(specs) == 0 {
		specs = sc.Algorithms
	}
	for _, s := range specs {
		l, err := algorithms.New(s, sc.Limit)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	cfg := simulator.DefaultConfig()
	cfg.Scenario, cfg.Limit, cfg.End = sc.Name, sc.Limit, sc.Duration
	st, err := sc.Stream()
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulator.Run(t.Context(), st, ls, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// files writes a result as `run` does.
func files(t *testing.T, res *simulator.Result) (summary, series, breaker []byte) {
	var a, b, c bytes.Buffer
	if err := simulator.WriteSummaryJSON(&a, res); err != nil {
		t.Fatal(err)
	}
	if err := simulator.WriteSeriesCSV(&b, res); err != nil {
		t.Fatal(err)
	}
	if simulator.HasBreakers(res) {
		simulator.WriteBreakerCSV(&c, res)
	}
	return a.Bytes(), b.Bytes(), c.Bytes()
}

// TestSeriesAreTheFilesColumns: every limiter gets one series per numeric
// column of series.csv, holding its values bin for bin, plus the trailing
// window of simulator.TrailingWindow; the page from the result and the
// page from the files are the same.
func TestSeriesAreTheFilesColumns(t *testing.T) {
	res := run(t, "boundary-burst")
	sum, ser, brk := files(t, res)
	fromFiles := NewPage("x")
	if err := fromFiles.AddRun("boundary-burst", Files{Summary: sum, Series: bytes.NewReader(ser), Breaker: brk}); err != nil {
		t.Fatal(err)
	}
	r := fromFiles.Runs[0]
	header := strings.Split(strings.TrimSpace(simulator.SeriesHeader), ",")
	if got, want := strings.Join(r.Columns, ","), strings.Join(append(header[2:], WindowColumn), ","); got != want {
		t.Fatalf("columns %s, want %s", got, want)
	}
	for i, a := range res.Algorithms {
		l := r.Limiters[i]
		if l.Spec != a.Spec || l.Rate != a.Rate {
			t.Errorf("limiter %d is %s at %v, want %s at %v", i, l.Spec, l.Rate, a.Spec, a.Rate)
		}
		passed, _ := decode(fromFiles.store.blobs[l.Series[1].Levels[0].V])
		window, _ := decode(fromFiles.store.blobs[l.Series[len(l.Series)-1].Levels[0].V])
		want, _ := simulator.TrailingWindow(a.Bins, res.Bin, res.Window)
		for j, b := range a.Bins {
			if passed[j] != float64(b.Passed) || window[j] != float64(want[j]) {
				t.Fatalf("%s bin %d: passed %v window %v, want %d %d", a.Spec, j, passed[j], window[j], b.Passed, want[j])
			}
		}
	}
	if r.Start != 0 || r.End != res.End.Seconds() || r.Bin != res.Bin.Seconds() || r.Span != res.Window.Seconds() {
		t.Errorf("run spans %v to %v by %v (window %v)", r.Start, r.End, r.Bin, r.Span)
	}
	fromResult := NewPage("x")
	if err := fromResult.FromResult("boundary-burst", res, nil); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	fromFiles.Write(&a)
	fromResult.Write(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		x, y := a.String(), b.String()
		i := 0
		for i < len(x) && i < len(y) && x[i] == y[i] {
			i++
		}
		t.Errorf("the page from the result differs from the page from its files at %d: %q vs %q", i, x[max(0, i-80):min(len(x), i+80)], y[max(0, i-80):min(len(y), i+80)])
	}
}

// TestNewColumnShowsUp: a numeric column series.csv gains later (another
// feature's) becomes a series with no change here.
func TestNewColumnShowsUp(t *testing.T) {
	sum := []byte(`{"scenario":"s","limit":10,"bin_ms":50,"window_ms":100,"duration_ms":150,"algorithms":[
{"algorithm":"a:limit=10","name":"a","rate":10,"arrived":6,"passed":3}]}`)
	ser := "algorithm,bin_start_ms,arrived,passed,in_flight_peak\na:limit=10,0,2,1,0.5\na:limit=10,50,2,1,4\na:limit=10,100,2,1,\n"
	p := NewPage("x")
	if err := p.AddRun("s", Files{Summary: sum, Series: strings.NewReader(ser)}); err != nil {
		t.Fatal(err)
	}
	r := p.Runs[0]
	if got := strings.Join(r.Columns, ","); got != "arrived,passed,in_flight_peak,"+WindowColumn {
		t.Fatalf("columns %s", got)
	}
	v, _ := decode(p.store.blobs[r.Limiters[0].Series[2].Levels[0].V])
	if v[0] != 0.5 || v[1] != 4 || !math.IsNaN(v[2]) {
		t.Errorf("in_flight_peak reads %v, want [0.5 4 NaN]", v)
	}
	w, _ := decode(p.store.blobs[r.Limiters[0].Series[3].Levels[0].V])
	if w[0] != 1 || w[1] != 2 || w[2] != 2 {
		t.Errorf("trailing 100 ms window reads %v, want [1 2 2]", w)
	}
	if !strings.Contains(r.Context, "s · 150ms · 6 arrivals · limit 10/s") {
		t.Errorf("context %q", r.Context)
	}
}

// TestBadFilesSayWhere: a file that does not fit gets its name and line.
func TestBadFilesSayWhere(t *testing.T) {
	sum := []byte(`{"scenario":"s","limit":10,"bin_ms":50,"window_ms":100,"duration_ms":100,"algorithms":[{"algorithm":"a","name":"a","rate":10}]}`)
	for _, c := range []struct{ series, want string }{
		{"", "series.csv: empty"},
		{"t,x\n", "series.csv:1: the header must start with algorithm,bin_start_ms"},
		{"algorithm,bin_start_ms,arrived\nb,0,1\n", `series.csv:2: algorithm "b" is not the next one of summary.json`},
		{"algorithm,bin_start_ms,arrived\na,0,x\n", `series.csv:2: arrived "x" is not a number`},
		{"algorithm,bin_start_ms,arrived\na,0\n", "series.csv:2: 2 fields, the header has 3"},
		{"algorithm,bin_start_ms,arrived\na,0,1,2\n", "series.csv:2: more fields"},
		{"algorithm,bin_start_ms,arrived\n\"a,0,1\n", "series.csv:2: the quoted algorithm field"},
	} {
		err := NewPage("x").AddRun("s", Files{Summary: sum, Series: strings.NewReader(c.series)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("series %q: error %v, want %q", c.series, err, c.want)
		}
	}
	if err := NewPage("x").AddRun("s", Files{Summary: []byte(`{"bin_ms":"x"}`), Series: strings.NewReader("")}); err == nil || !strings.Contains(err.Error(), "summary.json") {
		t.Errorf("bad summary: %v", err)
	}
}

// TestAddDirBadInput: a directory without the files of a run, tune or
// bench is named with what to give instead.
func TestAddDirBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for path, want := range map[string]string{
		empty:                         "has no summary.json (nor tune.csv or bench.csv)",
		file:                          "is a file, not a directory",
		filepath.Join(dir, "missing"): "does not exist",
	} {
		if err := NewPage("x").AddDir(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}

// TestPageIsSelfContained: the page loads nothing: no src or href
// attribute, no url(), and a policy that forbids any fetch.
func TestPageIsSelfContained(t *testing.T) {
	p := NewPage(`a <b> & "c"`)
	if err := p.FromResult("boundary-burst", run(t, "boundary-burst", "leap-array:sample-count=2"), nil); err != nil {
		t.Fatal(err)
	}
	if err := p.AddTune("t", []byte("sample_count,bucket_ms,passed,passed_pct,max_window_passed,overshoot,smooth_bound,peak_bin_passed,state_bytes,ns_per_decision\n1,1000,5,50,5,1.5,2,5,64,3.0\n10,100,5,50,5,1.1,1.1,5,280,3.0\n")); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, re := range []string{`(?i)\s(src|href)\s*=`, `(?i)url\(`, `(?i)<link`, `(?i)@import`, `<b>`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("the page holds %q", m)
		}
	}
	if !strings.Contains(page, `content="default-src 'none'`) {
		t.Error("no Content-Security-Policy forbidding requests")
	}
	if !strings.Contains(page, "Permission is hereby granted") {
		t.Error("uPlot's licence is not in the page")
	}
	// The data parses and holds the tune's two charts.
	i := strings.Index(page, `id="report-data">`) + len(`id="report-data">`)
	var d pageData
	if err := json.Unmarshal([]byte(page[i:i+strings.Index(page[i:], "</script>")]), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 1 || len(d.XY) != 1 || len(d.XY[0].Charts) != 2 || len(d.XY[0].Charts[0].Lines[0].X) != 2 {
		t.Errorf("page data: %d runs, %d tune/bench", len(d.Runs), len(d.XY))
	}
}

// FuzzAddRun: series.csv and breaker.csv from anywhere give a page or an
// error, never a panic.
func FuzzAddRun(f *testing.F) {
	f.Add([]byte("algorithm,bin_start_ms,arrived,passed\n\"a,b\",0,1,1\n\"a,b\",50,2,\n"), []byte("algorithm,t_ns,from,to\n\"a,b\",5,CLOSED,OPEN\n"))
	f.Add([]byte("algorithm,bin_start_ms,x\n"), []byte(""))
	sum := []byte(`{"scenario":"s","limit":10,"bin_ms":50,"window_ms":100,"duration_ms":100,"algorithms":[{"algorithm":"a,b","name":"a","rate":10}]}`)
	f.Fuzz(func(t *testing.T, series, breaker []byte) {
		p := NewPage("x")
		if p.AddRun("s", Files{Summary: sum, Series: bytes.NewReader(series), Breaker: breaker}) == nil {
			if err := p.Write(&bytes.Buffer{}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzParseNum: series.csv's numbers read as strconv.ParseFloat reads
// them, bit for bit, fast paths included.
func FuzzParseNum(f *testing.F) {
	for _, s := range []string{"0", "12", "-3", "0.000000", "12.345678", "1.5", "1e3", "", "x", "99999999999999.9", "0.1234567", "7."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseNum([]byte(s))
		if s == "" {
			if !ok || !math.IsNaN(got) {
				t.Fatalf("empty field: %v %v", got, ok)
			}
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if (err == nil) != ok {
			t.Fatalf("%q: parsed %v (ok %v), ParseFloat %v, %v", s, got, ok, want, err)
		}
		if ok && err == nil && got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("%q: %v, ParseFloat %v", s, got, want)
		}
	})
}

// The page's context line counts arrivals as the terminal does.
func TestArrivalsText(t *testing.T) {
	for n, want := range map[string]string{"1": "1 arrival", "0": "0 arrivals", "1000": "1000 arrivals"} {
		if got := arrivalsText(n, "0", false); got != want {
			t.Errorf("arrivalsText(%s) = %q, want %q", n, got, want)
		}
	}
	// With retries the first row's arrivals less its retries are the
	// requests, as report.Context says them.
	if got, want := arrivalsText("64420", "45281", true), "19139 requests (each row adds its retries)"; got != want {
		t.Errorf("with retries: %q, want %q", got, want)
	}
}

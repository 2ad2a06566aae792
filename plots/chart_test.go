package plots

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// synthResult is a realistic 3 s run with 50 ms bins: steady 400 req/s with
// a 3000 req/s burst around 1 s, through a leap-array that lets part of the
// burst through and a leaky bucket that queues it.
func synthResult() *simulator.Result {
	const nBins = 60
	res := &simulator.Result{
		Scenario: "boundary-burst",
		Limit:    500,
		Bin:      50 * time.Millisecond,
		Window:   time.Second,
		Start:    0,
		End:      3 * time.Second,
	}
	arrived := make([]int64, nBins)
	for i := range arrived {
		arrived[i] = 20
		if i >= 18 && i < 22 {
			arrived[i] = 150
		}
	}
	leap := simulator.AlgoResult{
		Spec: "leap-array(qps=500,n=2,interval=1s)", Name: "leap-array", Rate: 500, SampleCount: 2,
		StateBytes: 96, MaxWindowPassed: 1000, WindowLimit: 500, Overshoot: 2, SmoothBound: 750,
	}
	leaky := simulator.AlgoResult{
		Spec: "leaky-bucket(qps=500,maxQueueing=500ms)", Name: "leaky-bucket", Rate: 500,
		StateBytes: 16, MaxWindowPassed: 500, WindowLimit: 500, Overshoot: 1,
		WaitP50: 2 * time.Millisecond, WaitP99: 180 * time.Millisecond, WaitMax: 240 * time.Millisecond,
	}
	backlog := int64(0)
	for i, a := range arrived {
		lp := min(a, 25)
		if i == 19 || i == 20 {
			lp = 120 // the boundary overshoot
		}
		leap.Bins = append(leap.Bins, simulator.Bin{Arrived: a, Passed: lp, Blocked: a - lp})
		leap.Arrived += a
		leap.Passed += lp
		leap.PeakBinPassed = max(leap.PeakBinPassed, lp)

		backlog += a
		kp := min(backlog, 25)
		backlog -= kp
		blocked := int64(0)
		if backlog > 250 {
			blocked = backlog - 250
			backlog = 250
		}
		wait := time.Duration(backlog) * 2 * time.Millisecond
		leaky.Bins = append(leaky.Bins, simulator.Bin{
			Arrived: a, Passed: kp, Blocked: blocked,
			WaitSum: time.Duration(kp) * wait, WaitMax: wait + time.Millisecond,
		})
		leaky.Arrived += a
		leaky.Passed += kp
		leaky.Blocked += blocked
		leaky.PeakBinPassed = max(leaky.PeakBinPassed, kp)
	}
	leap.Blocked = leap.Arrived - leap.Passed
	res.Algorithms = []simulator.AlgoResult{leap, leaky}
	return res
}

func TestChartDataEqualsSeries(t *testing.T) {
	res := synthResult()
	data := ChartData(res, ChartOptions{})
	if len(data) != len(res.Algorithms) {
		t.Fatalf("got %d panels, want %d", len(data), len(res.Algorithms))
	}
	for k, a := range res.Algorithms {
		d := data[k]
		if d.Spec != a.Spec || d.Name != a.Name || d.Limit != a.Rate {
			t.Errorf("panel %d: spec/name/limit %q %q %v, want %q %q %v", k, d.Spec, d.Name, d.Limit, a.Spec, a.Name, a.Rate)
		}
		if len(d.X) != len(a.Bins) || len(d.Arrival) != len(a.Bins) || len(d.Pass) != len(a.Bins) || len(d.WaitMs) != len(a.Bins) {
			t.Fatalf("panel %d: %d/%d/%d/%d points, want %d", k, len(d.X), len(d.Arrival), len(d.Pass), len(d.WaitMs), len(a.Bins))
		}
		for i, b := range a.Bins {
			x := (res.Start + time.Duration(i)*res.Bin).Seconds()
			if d.X[i] != x {
				t.Errorf("panel %d bin %d: x %v, want %v", k, i, d.X[i], x)
			}
			if want := float64(b.Arrived) / res.Bin.Seconds(); d.Arrival[i] != want {
				t.Errorf("panel %d bin %d: arrival rate %v, want %v", k, i, d.Arrival[i], want)
			}
			if want := float64(b.Passed) / res.Bin.Seconds(); d.Pass[i] != want {
				t.Errorf("panel %d bin %d: pass rate %v, want %v", k, i, d.Pass[i], want)
			}
			want := 0.0
			if b.Passed > 0 {
				want = (b.WaitSum / time.Duration(b.Passed)).Seconds() * 1000
			}
			if math.Abs(d.WaitMs[i]-want) > 1e-6 {
				t.Errorf("panel %d bin %d: mean wait %v ms, want %v", k, i, d.WaitMs[i], want)
			}
		}
	}
	if data[0].Queueing {
		t.Error("leap-array without waits is marked queueing")
	}
	if !data[1].Queueing {
		t.Error("leaky-bucket is not marked queueing")
	}
	if want := "passed 82.0% · max 1s window 1000 / 500 (2.00×) · peak bin 120"; data[0].Summary != want {
		t.Errorf("summary %q, want %q", data[0].Summary, want)
	}
	if !strings.Contains(data[1].Summary, "wait p50 2ms p99 180ms max 240ms") {
		t.Errorf("queueing summary %q lacks the waits", data[1].Summary)
	}
}

func TestChartDataZoom(t *testing.T) {
	res := synthResult()
	cases := []struct {
		from, to time.Duration
		first    int // index of the first bin shown
		n        int
	}{
		{0, 0, 0, 60},
		{time.Second, 2 * time.Second, 20, 20},
		{1025 * time.Millisecond, 1975 * time.Millisecond, 20, 20}, // partly covered bins are kept
		{0, 100 * time.Millisecond, 0, 2},
		{2900 * time.Millisecond, 0, 58, 2}, // To zero: to the end
		{0, 50 * time.Millisecond, 0, 1},
	}
	for _, c := range cases {
		opts := ChartOptions{From: c.from, To: c.to}
		if err := opts.Validate(res); err != nil {
			t.Fatalf("%v–%v: %v", c.from, c.to, err)
		}
		for k, d := range ChartData(res, opts) {
			if len(d.X) != c.n {
				t.Fatalf("%v–%v panel %d: %d bins, want %d", c.from, c.to, k, len(d.X), c.n)
			}
			for i := range d.X {
				j := c.first + i
				b := res.Algorithms[k].Bins[j]
				if d.X[i] != (time.Duration(j)*res.Bin).Seconds() || d.Pass[i] != float64(b.Passed)/0.05 || d.Arrival[i] != float64(b.Arrived)/0.05 {
					t.Fatalf("%v–%v panel %d point %d: (%v, %v, %v), want bin %d", c.from, c.to, k, i, d.X[i], d.Arrival[i], d.Pass[i], j)
				}
			}
		}
	}
}

func TestValidate(t *testing.T) {
	res := synthResult()
	cases := []struct {
		opts ChartOptions
		want string // substring of the error; "" for none
	}{
		{ChartOptions{}, ""},
		{ChartOptions{Mode: "overlay", From: time.Second, To: 3 * time.Second}, ""},
		{ChartOptions{From: 5 * time.Second}, "--from 5s is outside the run (0s to 3s); pick a time within it"},
		{ChartOptions{To: 4 * time.Second}, "--to 4s is outside the run (0s to 3s)"},
		{ChartOptions{From: -time.Second}, "--from -1s is outside the run"},
		{ChartOptions{From: 2 * time.Second, To: time.Second}, "--from 2s is not before --to 1s"},
		{ChartOptions{From: time.Second, To: time.Second}, "--from 1s is not before --to 1s"},
		{ChartOptions{From: 3 * time.Second}, "--from 3s is not before --to 3s"},
		{ChartOptions{Mode: "stacked"}, `chart mode "stacked" is unknown`},
		{ChartOptions{Width: 300}, "chart width 300 px is too small"},
		{ChartOptions{Height: 200}, "chart height 200 px is too small for 2 panel(s)"},
		{ChartOptions{Width: 800, Height: 400}, ""},
	}
	for _, c := range cases {
		err := c.opts.Validate(res)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", c.opts, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want %q", c.opts, err, c.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%+v: error spans several lines: %q", c.opts, err)
		}
	}
	if err := (ChartOptions{}).Validate(nil); err == nil {
		t.Error("nil result accepted")
	}
	var buf bytes.Buffer
	if err := Chart(&buf, res, ChartOptions{From: 5 * time.Second}); err == nil || buf.Len() != 0 {
		t.Errorf("Chart with a bad zoom: err %v, %d bytes written", err, buf.Len())
	}
}

func TestPalette(t *testing.T) {
	seen := map[color.RGBA]string{}
	for name := range palette {
		c := BaseColor(name)
		if other, ok := seen[c]; ok {
			t.Errorf("%s and %s share a colour", name, other)
		}
		seen[c] = name
	}
	cs := algoColors([]string{"leap-array", "token-bucket", "leap-array", "leap-array"})
	if cs[0] != BaseColor("leap-array") || cs[1] != BaseColor("token-bucket") {
		t.Errorf("first of a name should get its base colour: %v", cs)
	}
	if cs[0] == cs[2] || cs[0] == cs[3] || cs[2] == cs[3] {
		t.Errorf("duplicate leap-arrays share a shade: %v", cs)
	}
}

// savePNG keeps a copy of a rendered PNG when PLOTS_PNG_DIR is set, for
// looking at.
func savePNG(t *testing.T, name string, b []byte) {
	if dir := os.Getenv("PLOTS_PNG_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("output is not a PNG: %v", err)
	}
	return img
}

// regionStats counts the distinct colours in r and whether want occurs.
func regionStats(img image.Image, r image.Rectangle, want color.RGBA) (distinct int, found bool) {
	colours := map[color.RGBA]bool{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			colours[c] = true
			if c == want {
				found = true
			}
		}
	}
	return len(colours), found
}

// checkPanels splits the area under the header into n equal strips and
// checks each has content and its limiter's colour.
func checkPanels(t *testing.T, img image.Image, res *simulator.Result, data []PanelData, overlay bool) {
	t.Helper()
	b := img.Bounds()
	hdr := int(float64(headerHeight(px(float64(b.Dx())), figureTitle(res, res.Start, res.End), headerItems(data, overlay))) * dpi / 72)
	n := len(data)
	if overlay {
		n = 1
	}
	strip := (b.Dy() - hdr) / n
	for j := range n {
		// The middle of the strip, away from titles, axes and tick labels.
		r := image.Rect(b.Min.X+b.Dx()/8, hdr+j*strip+strip/4, b.Max.X-b.Dx()/8, hdr+(j+1)*strip-strip/6)
		for k, d := range data {
			if !overlay && k != j {
				continue
			}
			distinct, found := regionStats(img, r, d.Color)
			if distinct < 3 {
				t.Errorf("panel %d: only %d colours in its data area", j, distinct)
			}
			if !found {
				t.Errorf("panel %d: pass colour %v of %s not drawn", j, d.Color, d.Spec)
			}
		}
	}
}

func TestChartPNG(t *testing.T) {
	res := synthResult()
	for _, c := range []struct {
		name string
		opts ChartOptions
		w, h int
	}{
		{"chart-panels.png", ChartOptions{}, DefaultWidth, 0},
		{"chart-overlay.png", ChartOptions{Mode: ModeOverlay}, DefaultWidth, 0},
		{"chart-zoom.png", ChartOptions{From: 800 * time.Millisecond, To: 1500 * time.Millisecond, Width: 1200, Height: 700}, 1200, 700},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Chart(&buf, res, c.opts); err != nil {
				t.Fatal(err)
			}
			savePNG(t, c.name, buf.Bytes())
			img := decodePNG(t, buf.Bytes())
			if img.Bounds().Dx() != c.w {
				t.Errorf("width %d px, want %d", img.Bounds().Dx(), c.w)
			}
			if c.h != 0 && img.Bounds().Dy() != c.h {
				t.Errorf("height %d px, want %d", img.Bounds().Dy(), c.h)
			}
			overlay := c.opts.Mode == ModeOverlay
			if n := len(res.Algorithms); c.h == 0 && !overlay && img.Bounds().Dy() < n*160 {
				t.Errorf("height %d px for %d panels: under 160 px each", img.Bounds().Dy(), n)
			}
			checkPanels(t, img, res, ChartData(res, c.opts), overlay)
		})
	}
}

// TestChartManyPanels renders ten limiters, several sharing a name.
func TestChartManyPanels(t *testing.T) {
	res := synthResult()
	base := res.Algorithms
	names := []string{"fixed-window", "leap-array", "leap-array", "sliding-log", "token-bucket",
		"leaky-bucket", "warm-up", "warm-up-rate-limiter", "leap-array", "custom"}
	res.Algorithms = nil
	for i, n := range names {
		a := base[0]
		if i%3 == 2 || n == "leaky-bucket" || n == "warm-up-rate-limiter" {
			a = base[1]
		}
		a.Name = n
		a.Spec = n + "(qps=500)"
		res.Algorithms = append(res.Algorithms, a)
	}
	var buf bytes.Buffer
	if err := Chart(&buf, res, ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	savePNG(t, "chart-ten.png", buf.Bytes())
	img := decodePNG(t, buf.Bytes())
	if img.Bounds().Dy() < 10*160 {
		t.Errorf("height %d px for 10 panels", img.Bounds().Dy())
	}
	checkPanels(t, img, res, ChartData(res, ChartOptions{}), false)

	buf.Reset()
	if err := Chart(&buf, res, ChartOptions{Mode: ModeOverlay}); err != nil {
		t.Fatal(err)
	}
	savePNG(t, "chart-ten-overlay.png", buf.Bytes())
	decodePNG(t, buf.Bytes())
}

func TestFmtDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 50 * time.Millisecond: "50ms", time.Second: "1s",
		1250 * time.Millisecond: "1.25s", time.Minute: "60s", -2 * time.Second: "-2s",
	} {
		if got := fmtDur(d); got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", d, got, want)
		}
	}
}

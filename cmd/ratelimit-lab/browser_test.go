package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ratelimit-lab/ratelimit-lab/internal/htmlreport"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// The browser test opens report.html pages in a real headless Chromium
// (Debian's chromium, installed by .ci/chromium.sh in CI), driven over the
// DevTools protocol with chromedp. It needs the browser: in CI (CI=true) a
// missing one fails the test; elsewhere the test skips and says how to get
// it.

// browserEnv turns on the tests that start chromium: they run when it is
// 1, or in CI (CI=true, as .ci/run sets it), and skip otherwise.
const browserEnv = "RATELIMIT_LAB_BROWSER"

// chromiumPath finds the browser: $RATELIMIT_LAB_CHROMIUM, else chromium
// on the PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if os.Getenv(browserEnv) != "1" && os.Getenv("CI") != "true" {
		t.Skip("the browser tests start chromium and take a minute; set " + browserEnv + "=1 to run them (.ci/run does, as CI=true)")
	}
	if p := os.Getenv("RATELIMIT_LAB_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on the PATH in CI: .ci/run installs it with .ci/chromium.sh (apt-get install chromium)")
	}
	t.Skip("no chromium on the PATH: install it (apt-get install chromium) or set RATELIMIT_LAB_CHROMIUM to run the browser test")
	return ""
}

// browser starts one headless Chromium for the test.
func browser(t *testing.T) context.Context {
	path := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return bctx
}

// pageProblems collects what a page must not do: console errors,
// uncaught exceptions, log errors (a blocked request shows there) and any
// request other than the file itself.
type pageProblems struct {
	mu   sync.Mutex
	list []string
}

func (p *pageProblems) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

func (p *pageProblems) get() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.list...)
}

// chartState is what the page reports of each chart.
type chartState struct {
	Panel string  `json:"panel"`
	Run   int     `json:"run"`
	Ready bool    `json:"ready"`
	Draws int     `json:"draws"`
	Inked int     `json:"inked"`
	Exact bool    `json:"exact"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
}

const chartsJS = `window.ratelimitLab.charts.map(c => {
  let inked = 0;
  if (c.u) {
    const {left, top, width, height} = c.u.bbox;
    // A copy read back once (reading the chart's own canvas makes Chromium
    // warn about repeated readbacks).
    const copy = document.createElement("canvas");
    copy.width = Math.max(1, width);
    copy.height = Math.max(1, height);
    const cx = copy.getContext("2d", {willReadFrequently: true});
    cx.drawImage(c.u.ctx.canvas, left, top, copy.width, copy.height, 0, 0, copy.width, copy.height);
    const px = cx.getImageData(0, 0, copy.width, copy.height).data;
    for (let i = 0; i < px.length; i += 4) {
      const r = px[i], g = px[i+1], b = px[i+2], a = px[i+3];
      if (a > 0 && (Math.min(r, g, b) < 0xc0 || Math.max(r, g, b) - Math.min(r, g, b) > 24)) inked++;
    }
  }
  return {panel: c.panel, run: c.run ? c.ri : -1, ready: c.ready, draws: c.draws, inked, exact: !!c.exact,
    min: c.u ? c.u.scales.x.min : 0, max: c.u ? c.u.scales.x.max : 0};
})`

// openReport loads a page and checks it: no problem, every chart drawn
// with ink in its plot area. It returns the tab and the charts.
func openReport(t *testing.T, bctx context.Context, file string) (context.Context, []chartState, *pageProblems) {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(abs)
	probs := &pageProblems{}
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithListener(func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, fmt.Sprint(a.Value)+a.Description)
				}
				probs.add("console.%s: %s", ev.Type, strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			desc := ""
			if d.Exception != nil {
				desc = d.Exception.Description
			}
			probs.add("exception: %s %s (line %d)", d.Text, desc, d.LineNumber)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				probs.add("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if ev.Request.URL != url {
				probs.add("network request: %s", ev.Request.URL)
			}
		}
	}))
	t.Cleanup(cancel)
	start := time.Now()
	err = chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, t, log.Enable, cdp.Empty{})
			return err
		}),
		chromedp.Navigate(url))
	if err == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`window.ratelimitLab && window.ratelimitLab.ready && window.ratelimitLab.charts.every(c => c.ready && c.draws > 0)`,
			chromedp.WithPollingTimeout(30*time.Second)))
	}
	if err != nil {
		t.Fatalf("%s: the page did not draw: %v (problems: %v)", file, err, probs.get())
	}
	t.Logf("%s: drawn %v after navigation", filepath.Base(filepath.Dir(file)), time.Since(start).Round(time.Millisecond))
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartState](chartsJS))
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) == 0 {
		t.Fatalf("%s: no chart", file)
	}
	for _, c := range charts {
		if !c.Ready || c.Draws == 0 || c.Inked < 20 {
			t.Errorf("%s: chart %s is not drawn (ready %v, draws %d, %d inked pixels)", file, c.Panel, c.Ready, c.Draws, c.Inked)
		}
	}
	return ctx, charts, probs
}

// dragZoom drags across the first chart of run 0 from fraction a to b of
// its plot area, as a user selects a range, and returns the charts after.
func dragZoom(t *testing.T, ctx context.Context, a, b float64) []chartState {
	t.Helper()
	type rect struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
		W float64 `json:"w"`
		H float64 `json:"h"`
	}
	box, err := chromedp.Run(ctx, chromedp.Evaluate[rect](`(() => {
		const c = window.ratelimitLab.charts.find(c => c.run && c.panel !== "breaker");
		c.u.root.scrollIntoView();
		const r = c.u.over.getBoundingClientRect();
		return {x: r.left, y: r.top, w: r.width, h: r.height};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	y := box.Y + box.H/2
	x0, x1 := box.X+a*box.W, box.X+b*box.W
	mouse := func(typ input.DispatchMouseEventType, x float64, buttons int64) chromedp.Action[chromedp.Void] {
		return chromedp.MouseEvent(typ, x, y, func(p *input.DispatchMouseEventParams) {
			p.Button, p.Buttons = input.MouseButtonLeft, buttons
			if typ != input.DispatchMouseEventTypeMouseMoved {
				p.ClickCount = 1
			}
		})
	}
	if err := chromedp.Do(ctx,
		mouse(input.DispatchMouseEventTypeMouseMoved, x0, 0),
		mouse(input.DispatchMouseEventTypeMousePressed, x0, 1),
		mouse(input.DispatchMouseEventTypeMouseMoved, (x0+x1)/2, 1),
		mouse(input.DispatchMouseEventTypeMouseMoved, x1, 1),
		mouse(input.DispatchMouseEventTypeMouseReleased, x1, 0),
		chromedp.Sleep(50*time.Millisecond),
	); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.ratelimitLab.pending === 0`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartState](chartsJS))
	if err != nil {
		t.Fatal(err)
	}
	return charts
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	// The repository's out/ (git-ignored): CI keeps it as an artefact.
	dir := filepath.Join("..", "..", "out", "browser")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportInBrowser opens the reports of three scenarios and a page
// merging them: no console error, no request, every chart drawn, a drag
// zooms every chart of the run to the same range, the cursor reads a bin,
// a toggle hides a limiter.
func TestReportInBrowser(t *testing.T) {
	bctx := browser(t)
	dir := t.TempDir()
	scenarios := []string{"boundary-burst", "slow-downstream", "redis-race"}
	var dirs []string
	for _, s := range scenarios {
		out := filepath.Join(dir, s)
		if _, stderr, err := execute(t, "run", s, "--quiet", "--chart", "none", "--out", out); err != nil {
			t.Fatalf("run %s: %v %s", s, err, stderr)
		}
		dirs = append(dirs, out)
	}
	// The merged page also holds a tune and a bench, with their charts.
	tune, bench := filepath.Join(dir, "tune"), filepath.Join(dir, "bench")
	if _, stderr, err := execute(t, "tune", "boundary-burst", "--quiet", "--sample-counts", "1,2,10", "--out", tune); err != nil {
		t.Fatalf("tune: %v %s", err, stderr)
	}
	if _, stderr, err := execute(t, "bench", "--quiet", "--duration", "10ms", "--goroutines", "1,2", "--out", bench); err != nil {
		t.Fatalf("bench: %v %s", err, stderr)
	}
	merged := filepath.Join(dir, "merged.html")
	if _, stderr, err := execute(t, append([]string{"report", "--out", merged}, append(dirs, tune, bench)...)...); err != nil {
		t.Fatalf("report: %v %s", err, stderr)
	}
	pages := map[string]string{}
	for i, s := range scenarios {
		pages[s] = filepath.Join(dirs[i], "report.html")
	}
	pages["merged"] = merged
	for _, name := range append(scenarios, "merged") {
		t.Run(name, func(t *testing.T) {
			ctx, before, probs := openReport(t, bctx, pages[name])
			checkSorting(t, ctx) // browser_panels_test.go
			panels := map[string]bool{}
			for _, c := range before {
				panels[c.Panel] = true
			}
			for _, want := range []string{"rate", "window"} {
				if !panels[want] {
					t.Errorf("no %s chart; charts %v", want, panels)
				}
			}
			if name == "merged" {
				for _, want := range []string{"tune:overshoot against sample count N", "tune:state size against sample count N", "bench:throughput against goroutines"} {
					if !panels[want] {
						t.Errorf("the merged page has no chart %q; charts %v", want, panels)
					}
				}
			}
			if name == "slow-downstream" && (!panels["breaker"] || !panels["rt"]) {
				t.Errorf("slow-downstream has a breaker and response times; charts %v", panels)
			}
			after := dragZoom(t, ctx, 0.3, 0.6)
			var zoomed chartState
			for i, c := range after {
				if c.Run != 0 {
					continue
				}
				b := before[i]
				if c.Min <= b.Min && c.Max >= b.Max {
					t.Errorf("chart %s still shows %v to %v after the zoom", c.Panel, c.Min, c.Max)
				}
				if zoomed.Panel == "" {
					zoomed = c
				} else if c.Min != zoomed.Min || c.Max != zoomed.Max {
					t.Errorf("chart %s shows %v to %v, chart %s %v to %v: the zoom is not linked", c.Panel, c.Min, c.Max, zoomed.Panel, zoomed.Min, zoomed.Max)
				}
			}
			// The cursor reads the bin under it.
			readout, err := chromedp.Run(ctx,
				chromedp.Evaluate[string](`(() => {
					const c = window.ratelimitLab.charts.find(c => c.run && c.panel === "rate");
					const r = c.u.over.getBoundingClientRect();
					c.u.over.dispatchEvent(new MouseEvent("mousemove", {clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true}));
					return c.u.root.closest(".panel").querySelector(".readout").textContent;
				})()`))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(readout, "bin") {
				t.Errorf("hover read-out %q names no bin", readout)
			}
			// ctrl+wheel zooms in around the cursor, shift+wheel pans, a
			// plain wheel leaves the view to the page's scrolling.
			views, err := chromedp.Run(ctx, chromedp.Evaluate[[][]float64](`(() => {
				const g = window.ratelimitLab.groups[0];
				const c = g.charts[0];
				const r = c.u.over.getBoundingClientRect();
				const at = {clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true, cancelable: true};
				const host = c.u.root.parentElement;
				const out = [g.view.slice()];
				host.dispatchEvent(new WheelEvent("wheel", {...at, deltaY: 100}));
				out.push(g.view.slice());
				host.dispatchEvent(new WheelEvent("wheel", {...at, deltaY: -100, ctrlKey: true}));
				out.push(g.view.slice());
				host.dispatchEvent(new WheelEvent("wheel", {...at, deltaY: 100, shiftKey: true}));
				out.push(g.view.slice());
				return out;
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			span := func(v []float64) float64 { return v[1] - v[0] }
			if views[1][0] != views[0][0] || views[1][1] != views[0][1] {
				t.Errorf("a plain wheel changed the view %v to %v", views[0], views[1])
			}
			if !(span(views[2]) < span(views[1])) {
				t.Errorf("ctrl+wheel did not zoom in: %v to %v", views[1], views[2])
			}
			if math.Abs(span(views[3])-span(views[2])) > 1e-9 || views[3][0] <= views[2][0] {
				t.Errorf("shift+wheel did not pan: %v to %v", views[2], views[3])
			}
			// A limiter's toggle hides its lines in every chart of its run.
			hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
				document.querySelector(".toggle input").click();
				const cs = window.ratelimitLab.charts.filter(c => c.ri === 0 && c.panel === "window");
				return cs.length > 0 && cs.every(c => c.u.series.slice(1).some(s => !s.show));
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			if !hidden {
				t.Error("the first limiter's toggle hid nothing in the window chart")
			}
			if p := probs.get(); len(p) > 0 {
				t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
			}
			screenshot(t, ctx, name)
		})
	}
}

// TestSameSpanRunsZoomTogether: a page of two runs over the same span
// zooms both when one is zoomed.
func TestSameSpanRunsZoomTogether(t *testing.T) {
	bctx := browser(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "n2"), filepath.Join(dir, "n20")
	for out, algo := range map[string]string{a: "leap-array:sample-count=2", b: "leap-array:sample-count=20"} {
		if _, stderr, err := execute(t, "run", "boundary-burst", "--quiet", "--chart", "none", "--html=false", "--algo", algo, "--out", out); err != nil {
			t.Fatalf("%v %s", err, stderr)
		}
	}
	page := filepath.Join(dir, "both.html")
	if _, stderr, err := execute(t, "report", a, b, "--out", page); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	ctx, before, probs := openReport(t, bctx, page)
	after := dragZoom(t, ctx, 0.25, 0.5)
	runs := map[int]bool{}
	for i, c := range after {
		runs[c.Run] = true
		if c.Min != after[0].Min || c.Max != after[0].Max || c.Min <= before[i].Min && c.Max >= before[i].Max {
			t.Errorf("run %d chart %s shows %v to %v; run 0's first chart %v to %v", c.Run, c.Panel, c.Min, c.Max, after[0].Min, after[0].Max)
		}
	}
	if !runs[0] || !runs[1] {
		t.Errorf("charts of runs %v, want runs 0 and 1", runs)
	}
	if p := probs.get(); len(p) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
	}
}

// TestNewColumnInBrowser: a series.csv column the page has no name for
// (one a later feature adds) gets a chart of its own, drawn.
func TestNewColumnInBrowser(t *testing.T) {
	bctx := browser(t)
	summary := []byte(`{"scenario":"demo","limit":10,"bin_ms":50,"window_ms":1000,"duration_ms":1000,"algorithms":[
{"algorithm":"a:limit=10","name":"fixed-window","rate":10,"arrived":40,"passed":20},
{"algorithm":"b:limit=10","name":"sliding-log","rate":10,"arrived":40,"passed":10}]}`)
	var series strings.Builder
	series.WriteString("algorithm,bin_start_ms,arrived,passed,keys_in_flight\n")
	for _, spec := range []string{"a:limit=10", "b:limit=10"} {
		for i := range 20 {
			fmt.Fprintf(&series, "%s,%d,2,%d,%d.5\n", spec, 50*i, 1+i%2, i%7)
		}
	}
	page := htmlreport.NewPage("new column")
	if err := page.AddRun("demo", htmlreport.Files{Summary: summary, Series: strings.NewReader(series.String())}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "demo", "report.html")
	os.MkdirAll(filepath.Dir(file), 0o755)
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := page.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, charts, probs := openReport(t, bctx, file)
	found := false
	for _, c := range charts {
		found = found || c.Panel == "col-keys_in_flight"
	}
	if !found {
		t.Errorf("no chart for keys_in_flight: %v", charts)
	}
	if p := probs.get(); len(p) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
	}
}

// TestLongReportInBrowser draws a run of 10⁶ bins: its first view comes
// from the pyramid's top level, and a zoom to a few hundred bins shows
// the bins themselves.
func TestLongReportInBrowser(t *testing.T) {
	if raceOn {
		// Making a page of 10⁶ bins takes about a minute under the race
		// detector; .ci/run runs the browser tests once more without it.
		t.Skip("the 10⁶-bin page runs without -race (.ci/run: go test -run InBrowser ./cmd/ratelimit-lab)")
	}
	bctx := browser(t)
	res := longResult(1_000_000)
	page := htmlreport.NewPage("long run")
	if err := page.FromResult("long", res, nil); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "long", "report.html")
	os.MkdirAll(filepath.Dir(file), 0o755)
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := page.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(file)
	ctx, before, probs := openReport(t, bctx, file)
	// The page's own clock: from the script's start (before it parses its
	// data) until every chart has drawn its first view, and the same from
	// the navigation's start (reading and parsing the file).
	type timing struct {
		FirstDraw       *float64 `json:"firstDraw"`
		SinceNavigation *float64 `json:"sinceNavigation"`
	}
	read := `({firstDraw: window.ratelimitLab.firstDraw, sinceNavigation: window.ratelimitLab.firstDrawSinceNavigation})`
	tm, err := chromedp.Run(ctx, chromedp.Evaluate[timing](read))
	if err != nil {
		t.Fatal(err)
	}
	if tm.FirstDraw == nil || tm.SinceNavigation == nil {
		t.Fatalf("the page did not time its first draw: %+v", tm)
	}
	// A machine busy with other tests (go test runs packages side by
	// side) can stretch one load: the bound is on the best of three.
	for try := 1; try < 3 && *tm.FirstDraw >= 1000; try++ {
		// A fresh tab, as the first: a reload would tear down the charts
		// under the page's own handlers.
		ctx2, _, _ := openReport(t, bctx, file)
		again, err := chromedp.Run(ctx2, chromedp.Evaluate[timing](read))
		if err != nil {
			t.Fatal(err)
		}
		if again.FirstDraw != nil && again.SinceNavigation != nil && *again.FirstDraw < *tm.FirstDraw {
			tm = again
		}
	}
	t.Logf("10⁶ bins × %d limiters: %.1f MB, first view drawn %.0f ms after the script started (%.0f ms after navigation)",
		len(res.Algorithms), float64(st.Size())/1e6, *tm.FirstDraw, *tm.SinceNavigation)
	// Issue 20: the first view of a 10⁶-bin page in under a second (it
	// takes about 250 ms on 2 cores; the file's load is bounded apart).
	if *tm.FirstDraw >= 1000 {
		t.Errorf("the first view took %.0f ms from the script's start, want under 1 s", *tm.FirstDraw)
	}
	if *tm.SinceNavigation >= 5000 {
		t.Errorf("the first view took %.0f ms from the navigation, want under 5 s", *tm.SinceNavigation)
	}
	for _, c := range before {
		if c.Exact {
			t.Errorf("chart %s draws every bin of 10⁶ in its first view", c.Panel)
		}
	}
	// Zoom to a tenth, three times: 10⁶ bins → 10⁵ → 10⁴ → 10³.
	dragZoom(t, ctx, 0.45, 0.55)
	dragZoom(t, ctx, 0.45, 0.55)
	after := dragZoom(t, ctx, 0.45, 0.55)
	for _, c := range after {
		if !c.Exact {
			t.Errorf("chart %s shows %v to %v (%.0f bins) but not the bins themselves", c.Panel, c.Min, c.Max, (c.Max-c.Min)/res.Bin.Seconds())
		}
	}
	if p := probs.get(); len(p) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
	}
	screenshot(t, ctx, "long")
}

// longResult is a run of n bins of 50 ms: Poisson-like arrivals around
// 150 per bin, one limiter passing at most 100 per bin, another 120.
func longResult(n int) *simulator.Result {
	rng := rand.New(rand.NewPCG(1, 2))
	res := &simulator.Result{Scenario: "long", Limit: 2000, Bin: 50 * time.Millisecond, Window: time.Second,
		End: time.Duration(n) * 50 * time.Millisecond}
	for _, cap := range []int64{100, 120} {
		a := simulator.AlgoResult{Spec: fmt.Sprintf("fixed-window:limit=%d,window=50ms", cap*20), Name: "fixed-window", Rate: float64(cap * 20)}
		rng = rand.New(rand.NewPCG(1, 2)) // the same arrivals for both
		a.Bins = make([]simulator.Bin, n)
		for i := range a.Bins {
			arr := int64(150 + rng.NormFloat64()*12)
			if i%20000 < 40 {
				arr *= 3 // a burst now and then
			}
			p := min(arr, cap)
			a.Bins[i] = simulator.Bin{Arrived: arr, Passed: p, Blocked: arr - p}
			a.Arrived += arr
			a.Passed += p
		}
		res.Algorithms = append(res.Algorithms, a)
	}
	return res
}

// TestRunWritesReportHTML: run writes report.html beside chart.png unless
// --html=false, and lists it in its wrote line.
func TestRunWritesReportHTML(t *testing.T) {
	dir := t.TempDir()
	with, without := filepath.Join(dir, "with"), filepath.Join(dir, "without")
	stdout, _, err := execute(t, "run", "boundary-burst", "--quiet", "--chart", "none", "--out", with)
	if err != nil || !strings.Contains(stdout, "/{series.csv,summary.json,report.html}\n") {
		t.Fatalf("%v: %s", err, stdout)
	}
	b, err := os.ReadFile(filepath.Join(with, "report.html"))
	if err != nil || !strings.Contains(string(b), "boundary-burst · 0s to 3s (3s) · 1000 arrivals · limit 500/s · bin 50ms · window 1s · seed 1") {
		t.Errorf("report.html lacks the context line (%v)", err)
	}
	stdout, _, err = execute(t, "run", "boundary-burst", "--quiet", "--chart", "none", "--html=false", "--out", without)
	if err != nil || strings.Contains(stdout, "report.html") {
		t.Fatalf("%v: %s", err, stdout)
	}
	if _, err := os.Stat(filepath.Join(without, "report.html")); !os.IsNotExist(err) {
		t.Errorf("--html=false wrote report.html (%v)", err)
	}
}

// TestReportMergesAndRefusesBadDirs: report puts run and tune directories
// on one page; a directory without a summary.json gets one line and no
// file.
func TestReportMergesAndRefusesBadDirs(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, args := range [][]string{
		{"run", "boundary-burst", "--quiet", "--chart", "none", "--out", a, "--algo", "leap-array:sample-count=2"},
		{"tune", "boundary-burst", "--quiet", "--sample-counts", "1,10", "--out", b},
	} {
		if _, stderr, err := execute(t, args...); err != nil {
			t.Fatalf("%v: %v %s", args, err, stderr)
		}
	}
	out := filepath.Join(dir, "pages", "both.html")
	stdout, _, err := execute(t, "report", a, b, "--out", out)
	if err != nil || stdout != "wrote "+filepath.ToSlash(out)+"\n" {
		t.Fatalf("%v: %q", err, stdout)
	}
	page, _ := os.ReadFile(out)
	for _, want := range []string{`"name":"a"`, `"kind":"tune","name":"b"`, "leap-array:limit=500,sample-count=2,interval=1s"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the merged page lacks %s", want)
		}
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	bad := filepath.Join(dir, "bad", "r.html")
	for want, args := range map[string][]string{
		"has no summary.json (nor tune.csv or bench.csv)": {"report", a, empty, "--out", bad},
		"report needs at least one output directory":      {"report", "--out", bad},
		"does not exist": {"report", filepath.Join(dir, "nope"), "--out", bad},
		"is a directory; give the HTML file to write": {"report", a, "--out", empty},
	} {
		_, stderr, code := binary(t, args...)
		if code == 0 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "ratelimit-lab: ") || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", args[1:], code, stderr, want)
		}
		if _, err := os.Stat(filepath.Dir(bad)); !os.IsNotExist(err) {
			t.Errorf("%v: %s exists after a failed report", args[1:], filepath.Dir(bad))
		}
	}
}

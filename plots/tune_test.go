package plots

import (
	"bytes"
	"image"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// synthTune is a tune run over sample counts 1..1000, 3 and 7 skipped.
func synthTune() *simulator.TuneResult {
	res := &simulator.TuneResult{
		Scenario: "boundary-burst", Limit: 500,
		Interval: time.Second, Window: time.Second, Bin: 50 * time.Millisecond,
	}
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 10, 20, 50, 100, 200, 500, 1000} {
		row := simulator.TuneRow{SampleCount: n}
		if time.Second%time.Duration(n) != 0 || n == 3 || n == 7 {
			row.Skipped = "does not divide 1s"
			res.Rows = append(res.Rows, row)
			continue
		}
		row.Bucket = time.Second / time.Duration(n)
		row.Arrived, row.Passed = 4000, 1500
		row.PassedPct = 37.5
		row.MaxWindowPassed = int64(500 * (1 + 1/float64(n)*0.9))
		row.Overshoot = float64(row.MaxWindowPassed) / 500
		if n == 1 {
			row.Overshoot, row.MaxWindowPassed = 2, 1000
		}
		row.SmoothBound = 1 + 1/float64(n)
		row.PeakBinPassed = 300
		row.StateBytes = 40 + 24*n
		res.Rows = append(res.Rows, row)
	}
	return res
}

func TestTuneDataEqualsRows(t *testing.T) {
	res := synthTune()
	over, state := TuneData(res)
	i := 0
	for _, r := range res.Rows {
		if r.Skipped != "" {
			continue
		}
		if i >= len(over) || i >= len(state) {
			t.Fatalf("only %d/%d points for more rows", len(over), len(state))
		}
		if over[i].X != float64(r.SampleCount) || over[i].Y != r.Overshoot {
			t.Errorf("overshoot point %d = %v, want (%d, %v)", i, over[i], r.SampleCount, r.Overshoot)
		}
		if state[i].X != float64(r.SampleCount) || state[i].Y != float64(r.StateBytes) {
			t.Errorf("state point %d = %v, want (%d, %d)", i, state[i], r.SampleCount, r.StateBytes)
		}
		i++
	}
	if i != len(over) || i != len(state) {
		t.Errorf("%d/%d points for %d rows kept", len(over), len(state), i)
	}
}

func TestTuneChartPNG(t *testing.T) {
	res := synthTune()
	var buf bytes.Buffer
	if err := TuneChart(&buf, res); err != nil {
		t.Fatal(err)
	}
	savePNG(t, "tune.png", buf.Bytes())
	img := decodePNG(t, buf.Bytes())
	b := img.Bounds()
	if b.Dx() != TuneWidth || b.Dy() != TuneHeight {
		t.Fatalf("size %dx%d, want %dx%d", b.Dx(), b.Dy(), TuneWidth, TuneHeight)
	}
	half := b.Dy() / 2
	for j, r := range []image.Rectangle{
		image.Rect(b.Dx()/8, b.Dy()/8, b.Dx()*7/8, half),
		image.Rect(b.Dx()/8, half+b.Dy()/10, b.Dx()*7/8, b.Dy()*7/8),
	} {
		distinct, found := regionStats(img, r, BaseColor("leap-array"))
		if distinct < 3 || !found {
			t.Errorf("panel %d: %d colours, measured colour drawn: %v", j, distinct, found)
		}
	}

	allSkipped := &simulator.TuneResult{Rows: []simulator.TuneRow{{SampleCount: 3, Skipped: "x"}}}
	if err := TuneChart(&buf, allSkipped); err == nil {
		t.Error("a tune result with every row skipped was charted")
	}
	one := synthTune()
	one.Rows = one.Rows[:1]
	buf.Reset()
	if err := TuneChart(&buf, one); err != nil {
		t.Errorf("single row: %v", err)
	}
}

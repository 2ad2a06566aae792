package plots

import (
	"bytes"
	"image"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/concurrent"
)

func synthBench() []concurrent.BenchResult {
	var out []concurrent.BenchResult
	for i, impl := range concurrent.Names() {
		for _, g := range []int{1, 2, 8, 64, 256} {
			out = append(out, concurrent.BenchResult{
				Impl: impl, Goroutines: g,
				DecisionsPerSec:  1e7 / float64(i+1) / float64(g),
				Overshoot:        1 + float64((len(concurrent.Names())-1-i)*g)/100,
				AlignedOvershoot: 1 + float64((len(concurrent.Names())-1-i)*g)/400,
			})
		}
	}
	return out
}

func TestBenchDataEqualsResults(t *testing.T) {
	res := synthBench()
	series := BenchData(res)
	if len(series) != len(concurrent.Names()) {
		t.Fatalf("%d series, want %d", len(series), len(concurrent.Names()))
	}
	k := 0
	for _, s := range series {
		for i := range s.Throughput {
			r := res[k]
			if s.Impl != r.Impl || s.Throughput[i].X != float64(r.Goroutines) || s.Throughput[i].Y != r.DecisionsPerSec ||
				s.Overshoot[i].X != float64(r.Goroutines) || s.Overshoot[i].Y != r.Overshoot ||
				s.Aligned[i].X != float64(r.Goroutines) || s.Aligned[i].Y != r.AlignedOvershoot {
				t.Errorf("%s point %d = %v / %v, want result %+v", s.Impl, i, s.Throughput[i], s.Overshoot[i], r)
			}
			k++
		}
	}
	if k != len(res) {
		t.Errorf("%d points for %d results", k, len(res))
	}
}

func TestBenchChartPNG(t *testing.T) {
	var buf bytes.Buffer
	if err := BenchChart(&buf, synthBench(), "2 cores · limit 100 per 100ms"); err != nil {
		t.Fatal(err)
	}
	savePNG(t, "bench.png", buf.Bytes())
	img := decodePNG(t, buf.Bytes())
	b := img.Bounds()
	if b.Dx() != BenchWidth || b.Dy() != BenchHeight {
		t.Fatalf("size %dx%d, want %dx%d", b.Dx(), b.Dy(), BenchWidth, BenchHeight)
	}
	half := b.Dy() / 2
	for j, r := range []image.Rectangle{
		image.Rect(b.Dx()/8, b.Dy()/8, b.Dx()*7/8, half),
		image.Rect(b.Dx()/8, half+b.Dy()/10, b.Dx()*7/8, b.Dy()*19/20),
	} {
		for _, impl := range []string{"sentinel-ring", "x-time-rate"} {
			if _, found := regionStats(img, r, BenchColor(impl)); !found {
				t.Errorf("panel %d: %s's colour not drawn", j, impl)
			}
		}
	}
	if err := BenchChart(&buf, nil, ""); err == nil {
		t.Error("no results were charted")
	}
}

// The goroutine axis labels the counts measured, and no decade beyond them.
func TestGoroutineTicks(t *testing.T) {
	g := goroutineTicks{1, 8, 64}
	var labels []string
	for _, tk := range g.Ticks(1, 64) {
		labels = append(labels, tk.Label)
	}
	if strings.Join(labels, ",") != "1,8,64" {
		t.Errorf("ticks %v", labels)
	}
	if n := len(g.Ticks(2, 10)); n != 1 {
		t.Errorf("%d ticks in [2, 10], want 1", n)
	}
}

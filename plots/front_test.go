package plots

import (
	"bytes"
	"image/png"
	"testing"
)

func TestFrontChart(t *testing.T) {
	d := FrontData{Title: "t", XLabel: "passed", YLabel: "slack", Points: []FrontPoint{
		{X: 10, Y: -3, Front: true}, {X: 20, Y: 0, Front: true, Best: true, Feasible: true}, {X: 15, Y: -5},
	}}
	var b bytes.Buffer
	if err := FrontChart(&b, d); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds().Dx(); got != FrontWidth {
		t.Errorf("width %d, want %d", got, FrontWidth)
	}
	if err := FrontChart(&b, FrontData{}); err == nil {
		t.Error("an empty front drew a chart")
	}
}

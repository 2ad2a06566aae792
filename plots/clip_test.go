package plots

import (
	"strings"
	"testing"
)

// TestPassSpikesAreClipped: per-bin passes that dwarf the limit and the
// trailing-window line (redis-race: 2,000/s bins, 100/s limit) clip the
// axis at clipFactor times the larger of the two, the note says so and
// each clipped bin gets a mark; a burst that is not that much taller
// (boundary-burst: 5,000/s bins against a window line of 1,000/s) keeps
// the whole axis.
func TestPassSpikesAreClipped(t *testing.T) {
	d := PanelData{Limit: 100, X: []float64{0, 0.05, 0.1, 1}, XEnd: 1.05,
		Pass: []float64{2000, 0, 0, 2000}, PassMax: []float64{2000, 0, 0, 2000},
		ArrivalMax: []float64{4000, 0, 0, 4000}, WindowMax: []float64{100, 100, 100, 139}}
	top, peak := rateTop([]PanelData{d})
	if top != clipFactor*139 || peak != 4000 {
		t.Fatalf("rateTop %v, %v; want %v, 4000", top, peak, clipFactor*139.0)
	}
	if note := clippedNote(peak, []PanelData{d}, top); !strings.Contains(note, "passes peak 2000/s, clipped") || !strings.Contains(note, "arrivals 4000/s") {
		t.Errorf("note %q", note)
	}
	marks := passClips([]PanelData{d}, top)[0]
	if len(marks) != 2 || marks[0] != 0.025 || marks[1] != 1.025 {
		t.Errorf("marks at %v, want the two spikes' middles 0.025 and 1.025", marks)
	}

	b := PanelData{Limit: 500, X: []float64{0, 0.05}, XEnd: 0.1, PassMax: []float64{5000, 0}, ArrivalMax: []float64{5000, 0}, WindowMax: []float64{1000, 1000}}
	if top, peak := rateTop([]PanelData{b}); top != 5000 || peak != 0 {
		t.Errorf("boundary-burst-like panel: rateTop %v, %v; want 5000, 0", top, peak)
	}
}

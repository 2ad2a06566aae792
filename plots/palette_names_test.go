package plots

import (
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
)

// Every limiter the lab can run has a colour of its own: without one its
// pass line is drawn in the grey of the arrivals.
func TestPaletteCoversEveryLimiter(t *testing.T) {
	for _, a := range append(algorithms.List(), distributed.List()...) {
		if _, ok := palette[a.Name]; !ok {
			t.Errorf("%s has no colour in the palette", a.Name)
		}
	}
}

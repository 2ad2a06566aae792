package scenarios

import (
	"math"
	"testing"
)

// TestExpectedArrivalsMatchesTheStream counts the arrivals of every
// catalog scenario and compares them with ExpectedArrivals: within 1 % plus
// a few arrivals (Poisson phases vary around their mean).
func TestExpectedArrivalsMatchesTheStream(t *testing.T) {
	for _, name := range Names() {
		sc, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		st, err := sc.Stream()
		if err != nil {
			t.Fatal(err)
		}
		var n float64
		for {
			if _, ok := st.Next(); !ok {
				break
			}
			n++
		}
		want := sc.ExpectedArrivals()
		if tol := 0.03*want + 3*math.Sqrt(want) + 2; math.Abs(n-want) > tol {
			t.Errorf("%s: %v arrivals, ExpectedArrivals %v", name, n, want)
		}
	}
}

package scenarios_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

func Example() {
	// Five arrivals spread evenly over [900ms, 1000ms).
	st := scenarios.Burst(900*time.Millisecond, time.Second, 5)
	var at []string
	for {
		a, ok := st.Next()
		if !ok {
			break
		}
		at = append(at, a.At.String())
	}
	fmt.Println(strings.Join(at, " "))

	// A catalog scenario, at ten times its limit.
	s, _ := scenarios.Lookup("steady-overload")
	s = s.WithLimit(1000)
	fmt.Println(s.Name, s.Limit, s.Phases[0].Rate)

	// A YAML scenario with a clock step.
	s, err := scenarios.Parse([]byte(`
limit: 2
duration: 2s
phases:
  - {type: constant, rate: 2}
  - {type: clock-step, at: 1s, offset: -800ms}
`), "step.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	arrivals, _ := s.Stream()
	for {
		a, ok := arrivals.Next()
		if !ok {
			break
		}
		fmt.Printf("at %v clock %v\n", a.At, a.Clock)
	}

	_, err = scenarios.Lookup("boundry-burst")
	fmt.Println(err)
	// Output:
	// 900ms 920ms 940ms 960ms 980ms
	// steady-overload 1000 2000
	// at 0s clock 0s
	// at 500ms clock 500ms
	// at 1s clock 200ms
	// at 1.5s clock 700ms
	// unknown scenario "boundry-burst": did you mean "boundary-burst"? (run 'ratelimit-lab list' to see all)
}

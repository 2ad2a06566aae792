package plots

import (
	"fmt"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// redisSummary is the Redis limiters' part of a panel's key-figure line:
// commands sent, peak members and, on a real server, peak bytes.
func redisSummary(a *simulator.AlgoResult) string {
	r := a.Redis
	if r == nil {
		return ""
	}
	s := fmt.Sprintf(" · redis %d cmds, peak %d members", r.Commands, r.PeakMembers)
	if r.PeakBytes >= 0 {
		s += fmt.Sprintf(", %d B", r.PeakBytes)
	}
	return s
}

package algorithms_test

import (
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// TestCapsTable holds Caps: Has is "every capability asked for", and
// String lists the names comma-separated in one fixed order, whatever
// order the bits were set in.
func TestCapsTable(t *testing.T) {
	all := algorithms.CapKeyColumn | algorithms.CapClosedLoop | algorithms.CapRedis | algorithms.CapCost | algorithms.CapStage | algorithms.CapCheckToAdd | algorithms.CapShard
	cases := []struct {
		c    algorithms.Caps
		want string
	}{
		{0, ""},
		{algorithms.CapKeyColumn, "key"},
		{algorithms.CapClosedLoop, "closed-loop"},
		{algorithms.CapRedis, "redis"},
		{algorithms.CapCost, "cost"},
		{algorithms.CapStage, "stage"},
		{algorithms.CapCheckToAdd, "check-to-add"},
		{algorithms.CapShard, "shard"},
		{algorithms.CapCheckToAdd | algorithms.CapKeyColumn, "key,check-to-add"},
		{algorithms.CapStage | algorithms.CapCost | algorithms.CapRedis, "redis,cost,stage"},
		{all, "key,closed-loop,redis,cost,stage,check-to-add,shard"},
	}
	for _, c := range cases {
		if got := c.c.String(); got != c.want {
			t.Errorf("Caps(%b).String() = %q, want %q", c.c, got, c.want)
		}
	}
	// Seven distinct bits.
	seen := algorithms.Caps(0)
	for _, c := range cases[1:8] {
		if c.c&(c.c-1) != 0 || seen&c.c != 0 {
			t.Errorf("%s is not a bit of its own", c.want)
		}
		seen |= c.c
	}
	has := []struct {
		c, want algorithms.Caps
		ok      bool
	}{
		{algorithms.CapKeyColumn | algorithms.CapCost, algorithms.CapKeyColumn, true},
		{algorithms.CapKeyColumn | algorithms.CapCost, algorithms.CapKeyColumn | algorithms.CapCost, true},
		{algorithms.CapKeyColumn | algorithms.CapCost, algorithms.CapKeyColumn | algorithms.CapRedis, false},
		{0, algorithms.CapStage, false},
		{algorithms.CapStage, 0, true},
		{all, all, true},
	}
	for _, h := range has {
		if got := h.c.Has(h.want); got != h.ok {
			t.Errorf("(%s).Has(%s) = %v, want %v", h.c, h.want, got, h.ok)
		}
	}
}

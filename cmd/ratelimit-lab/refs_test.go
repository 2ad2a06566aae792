package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputRefs runs bad specs of the Guava, uber and window limiters
// through the real binary: one line on stderr naming the problem, a
// non-zero exit, no stack trace, nothing written.
func TestBadInputRefs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, spec, want string }{
		{"guava zero rate", "guava-bursty:rate=0", "guava-bursty: rate must be a positive number, got 0"},
		{"guava zero max-burst", "guava-bursty:max-burst=0s", "max-burst must be positive"},
		{"guava bad timeout", "guava-bursty:timeout=soon", `timeout "soon" is not a duration ≥ 0 or inf`},
		{"guava cold factor 1", "guava-warming-up:warm-up=4s,cold-factor=1", "cold-factor must be larger than 1, got 1"},
		{"guava no warm-up", "guava-warming-up", "guava-warming-up needs a warm-up"},
		{"uber zero rate", "uber:rate=0", "uber: rate must be a whole number ≥ 1, got 0"},
		{"uber fractional rate", "uber:rate=2.5", "rate must be a whole number ≥ 1, got 2.5"},
		{"swc zero limit", "sliding-window-counter:limit=0", "limit must be a positive number, got 0"},
		{"seed-ring zero bucket_ms", "seed-ring:window=50ms,buckets=100", "bucket_ms = window_ms // buckets = 50 // 100 is 0 ms"},
		{"decaying buckets", "decaying-window:buckets=3", "buckets 3 does not divide window 1s"},
		{"decaying zero decay", "decaying-window:decay=0s", "decay must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			checkBadInput(t, out, tc.want, "run", "poisson", "--algo", tc.spec, "--out", out)
		})
	}
}

// TestListShowsRefs checks that `ratelimit-lab list` shows every new spec
// with its reference.
func TestListShowsRefs(t *testing.T) {
	stdout, _, err := execute(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	// list wraps long cells onto continuation lines; read the reference
	// column's words in order.
	var words []string
	for _, line := range strings.Split(stdout, "\n") {
		cells := strings.Split(line, "│")
		if len(cells) > 2 {
			words = append(words, cells[len(cells)-2])
		}
	}
	stdout += strings.Join(strings.Fields(strings.Join(words, " ")), " ")
	for _, want := range []string{
		"guava-bursty", "Guava 33 RateLimiter.create(rate) (SmoothBursty)",
		"guava-warming-up", "SmoothWarmingUp",
		"uber", "go.uber.org/ratelimit v0.3.1",
		"sliding-window-counter", "Cloudflare",
		"seed-ring", "seed 002 §3.1 SlidingWindowRateLimiter",
		"decaying-window", "seed 002 §3.4",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("list lacks %q", want)
		}
	}
}

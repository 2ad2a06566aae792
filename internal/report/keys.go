package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// WriteTopKeys writes, for each row with per-key results, one line of its
// per-key figures, its top keys by rejections (at most top) and the share
// of all rejections the top 1% of its keys took. name gives a key id's
// string. The lines of figures wrap to fit columns (DefaultWidth when 0).
func WriteTopKeys(w io.Writer, r *simulator.Result, name func(int32) string, top, fit int) error {
	if fit <= 0 {
		fit = DefaultWidth
	}
	var b strings.Builder
	// wrapped writes text wrapped at fit, lead spaces before it and two
	// more before its continuation lines.
	wrapped := func(lead int, text string) {
		for _, l := range wrap(text, fit-lead, 2) {
			b.WriteString(strings.Repeat(" ", lead) + l + "\n")
		}
	}
	for i := range r.Algorithms {
		a := &r.Algorithms[i]
		k := a.Keys
		if k == nil {
			continue
		}
		var f strings.Builder
		fmt.Fprintf(&f, "per key, %s: %s, %d hurt (%d innocent: never over %s per %s)",
			CompactSpec(a.Spec), Plural(int64(k.DistinctKeys), "key"), k.KeysHurt, k.InnocentKeysHurt, fmtNum(k.NominalLimit), k.NominalWindow)
		if k.HasUsers {
			fmt.Fprintf(&f, ", %s hurt (%d innocent)", Plural(int64(k.UsersHurt), "user"), k.InnocentUsersHurt)
		}
		fmt.Fprintf(&f, ", %s", Plural(int64(k.Figures.Evictions), "eviction"))
		if k.Figures.HasShadow {
			fmt.Fprintf(&f, " (%+d passes against an unbounded table)", k.ExtraPassesFromEviction)
		}
		if k.Figures.AllocFailures > 0 {
			fmt.Fprintf(&f, ", %d could not allocate node", k.Figures.AllocFailures)
		}
		b.WriteString("\n")
		wrapped(0, f.String())
		keys, share := k.TopRejected(top)
		if len(keys) == 0 {
			b.WriteString("  no key was rejected\n")
			continue
		}
		wrapped(2, fmt.Sprintf("top %s by rejections (the top 1%% of keys took %.1f%% of them):", Plural(int64(len(keys)), "key"), 100*share))
		width := 0
		for _, t := range keys {
			width = max(width, min(len(name(t.ID)), 40))
		}
		for _, t := range keys {
			n := name(t.ID)
			if len(n) > 40 {
				n = n[:39] + "…"
			}
			over := ""
			if !t.Stat.Over {
				over = "  innocent"
			}
			fmt.Fprintf(&b, "  %-*s  %d rejected of %d, first at %s, evicted %d%s\n",
				width, n, t.Stat.Rejected, t.Stat.Requests, t.Stat.FirstReject, t.Stat.Evicted, over)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtNum(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

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
// string. Rows go by their table name (the specs are listed under the
// table) and every line is wrapped to fit columns (DefaultWidth when 0).
func WriteTopKeys(w io.Writer, r *simulator.Result, name func(int32) string, top, fit int) error {
	if fit <= 0 {
		fit = DefaultWidth
	}
	var out strings.Builder
	labels := Labels(r)
	for i := range r.Algorithms {
		a := &r.Algorithms[i]
		k := a.Keys
		if k == nil {
			continue
		}
		var b strings.Builder
		nominal := fmt.Sprintf("never over %s per %s", fmtNum(k.NominalLimit), k.NominalWindow)
		if k.NominalWindow == 0 && k.NominalLimit > 0 { // a concurrency limit
			nominal = fmt.Sprintf("never offered a call with %s of its own in flight", fmtNum(k.NominalLimit))
		}
		fmt.Fprintf(&b, "\nper key, %s: %s, %d hurt (%d innocent: %s)",
			labels[i], Plural(int64(k.DistinctKeys), "key"), k.KeysHurt, k.InnocentKeysHurt, nominal)
		if k.HasUsers {
			fmt.Fprintf(&b, ", %s hurt (%d innocent)", Plural(int64(k.UsersHurt), "user"), k.InnocentUsersHurt)
		}
		fmt.Fprintf(&b, ", %s", Plural(int64(k.Figures.Evictions), "eviction"))
		if k.Figures.HasShadow {
			fmt.Fprintf(&b, " (%+d passes against an unbounded table)", k.ExtraPassesFromEviction)
		}
		if k.Figures.AllocFailures > 0 {
			fmt.Fprintf(&b, ", %d could not allocate node", k.Figures.AllocFailures)
		}
		b.WriteString("\n")
		keys, share := k.TopRejected(top)
		if len(keys) == 0 {
			b.WriteString("  no key was rejected\n")
			fitLines(&out, b.String(), fit)
			continue
		}
		fmt.Fprintf(&b, "  top %s by rejections; %s took %.1f%% of them:\n", Plural(int64(len(keys)), "key"), topPctText(k), 100*share)
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
				width, n, t.Stat.Rejected, t.Stat.Requests, simulator.TableDuration(t.Stat.FirstReject), t.Stat.Evicted, over)
		}
		fitLines(&out, b.String(), fit)
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// fitLines writes text's lines, each as it is when it fits fit columns,
// else wrapped at spaces with the continuation lines indented four more
// than the line.
func fitLines(b *strings.Builder, text string, fit int) {
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if width(body) <= fit {
			b.WriteString(line)
			continue
		}
		lead := len(body) - len(strings.TrimLeft(body, " "))
		for _, l := range wrap(body, fit-lead, 4) {
			b.WriteString(strings.Repeat(" ", lead) + l + "\n")
		}
	}
}

func fmtNum(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

// topPctText names the keys whose share of the rejections the top-keys
// line gives: "the top 1% of keys (30 of 3000)", or, where 1% rounds up
// to more than 1% of the keys, what they are: "the top key (1 of 5)",
// "the top 1% of keys (2 of 101, rounded up)".
func topPctText(k *simulator.KeyResult) string {
	n, d := k.TopPctKeys(), k.DistinctKeys
	switch {
	case n == 1:
		return fmt.Sprintf("the top key (1 of %d)", d)
	case int64(n)*100 == d:
		return fmt.Sprintf("the top 1%% of keys (%d of %d)", n, d)
	}
	return fmt.Sprintf("the top 1%% of keys (%d of %d, rounded up)", n, d)
}

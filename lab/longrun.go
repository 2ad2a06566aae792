package lab

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// This file keeps long runs bounded: the bin-width notice, the
// decisions.csv estimate and the in-place assembly of decisions.csv.

// binNotice tells on w, in one line, when a run's series would have more
// than simulator.DefaultMaxBins bins at the requested --bin and a wider bin
// is used instead, and returns the bin the run will use.
func binNotice(w io.Writer, fit int, span, bin time.Duration) time.Duration {
	planned := simulator.PlanBin(span, bin, simulator.DefaultMaxBins)
	if planned != bin {
		report.WriteNote(w, "note: ", fmt.Sprintf("%s at --bin %s would be %s bins per limiter; using --bin %s to stay within %s (give a larger --bin to choose)",
			humanDur(span), bin, groupDigits(ceilDiv(int64(span), int64(bin))), planned, groupDigits(simulator.DefaultMaxBins)), fit)
	}
	return planned
}

// widenedNotice tells when the run had to widen its bins during the run
// (arrivals or admissions far outside the announced span).
func widenedNotice(w io.Writer, fit int, res *simulator.Result, planned time.Duration) {
	if res.Bin != planned {
		report.WriteNote(w, "note: ", fmt.Sprintf("arrivals or admissions outside the run's span widened the bins to %s (at most %s bins per limiter)",
			res.Bin, groupDigits(simulator.DefaultMaxBins)), fit)
	}
}

func ceilDiv(a, b int64) int64 { return (a-1)/b + 1 }

// humanDur prints a span for a notice: "24h0m0s", "2s".
func humanDur(d time.Duration) string {
	if d >= time.Second {
		return d.Round(time.Second).String()
	}
	return d.String()
}

// groupDigits prints 1234567 as "1,234,567".
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// humanBytes prints a size with a binary unit: "512 B", "3.4 MiB".
func humanBytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f %s", n, units[i])
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}

// decisionsBytes estimates the size of decisions.csv for about n arrivals
// over [start, end) through limiters: the header plus, per limiter and
// arrival, the quoted spec, the sequence number, the clock in ns, the
// verdict and the wait.
func decisionsBytes(n float64, start, end time.Duration, limiters []algorithms.Limiter) float64 {
	if n <= 0 {
		return float64(len(simulator.DecisionsHeader))
	}
	// Mean decimal length of 0 .. n-1.
	seqDigits, pow, total := 0.0, 1.0, 0.0
	for d := 1; pow <= n; d++ {
		next := pow * 10
		cnt := min(n, next) - max(pow, 1)
		if d == 1 {
			cnt = min(n, 10)
		}
		seqDigits += float64(d) * cnt
		total += cnt
		pow = next
	}
	seqDigits /= max(total, 1)
	tDigits := float64(len(fmt.Sprint(int64(max(start, 0) + (end-start)/2))))
	var per float64
	for _, l := range limiters {
		spec := l.Spec()
		if strings.ContainsAny(spec, ",\"") {
			spec = `"` + spec + `"`
		}
		wait := 1.0
		if _, q := queueingLimiters[strings.SplitN(spec, ":", 2)[0]]; q {
			wait = 8 // waits of a few ms in ns
		}
		// spec , seq , t_ns , verdict , wait , stage , rt_ns , error ,
		// priority \n (",,," for a pass, ",flow,," for a block: 5 on
		// average; rows with responses add their rt_ns and error).
		per += float64(len(spec)) + 1 + seqDigits + 1 + tDigits + 1 + 4.5 + 1 + wait + 5 + 2 + 1
	}
	return float64(len(simulator.DecisionsHeader)) + n*per
}

var queueingLimiters = map[string]struct{}{"leaky-bucket": {}, "warm-up-rate-limiter": {}}

// decisionsPlan prints the decisions.csv estimate on w and refuses a run
// whose file would not fit in the free space of dir.
func decisionsPlan(w io.Writer, dir string, approx float64, start, end time.Duration, limiters []algorithms.Limiter) error {
	size := decisionsBytes(approx, start, end, limiters)
	arrivals := groupDigits(int64(approx+0.5)) + " arrivals"
	if int64(approx+0.5) == 1 {
		arrivals = "1 arrival"
	}
	fmt.Fprintf(w, "decisions.csv: about %s (%s × %s), written in place\n",
		humanBytes(size), arrivals, report.Plural(int64(len(limiters)), "limiter"))
	if free, ok := freeBytes(dir); ok && size > float64(free) {
		return fmt.Errorf("decisions.csv would need about %s but %s has %s free; drop --decisions, shorten the run or choose another --out",
			humanBytes(size), dir, humanBytes(float64(free)))
	}
	return nil
}

// decisionParts holds one temporary file per limiter for its decision rows
// while the limiters run in parallel; writeInto then moves them into
// decisions.csv without ever holding much more than the final file on disk.
type decisionParts struct {
	files []*os.File
}

func newDecisionParts(dir string, n int) (*decisionParts, error) {
	p := &decisionParts{}
	for range n {
		f, err := os.CreateTemp(dir, ".decisions-part-*")
		if err != nil {
			p.remove()
			return nil, fmt.Errorf("cannot write decisions in %s: %v", dir, err)
		}
		p.files = append(p.files, f)
	}
	return p, nil
}

func (p *decisionParts) writer(i int) io.Writer { return p.files[i] }

// remove deletes every part still present.
func (p *decisionParts) remove() {
	for _, f := range p.files {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
}

// mergeChunk is how much of a part is moved at a time: the most that is on
// disk twice while decisions.csv is assembled.
const mergeChunk = 1 << 20

// writeInto writes the header and every part, in limiter order, into dst.
// Each part is moved from its end backwards: a chunk is copied to its final
// offset in dst and the part is truncated behind it, so the disk holds the
// rows once plus at most one chunk. It stops between chunks when ctx is
// cancelled. afterChunk, if not nil, is called after every chunk (tests
// watch the disk use with it).
func (p *decisionParts) writeInto(ctx context.Context, dst *os.File, afterChunk func()) error {
	if _, err := dst.WriteAt([]byte(simulator.DecisionsHeader), 0); err != nil {
		return err
	}
	off := int64(len(simulator.DecisionsHeader))
	buf := make([]byte, mergeChunk)
	for i, f := range p.files {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		size := st.Size()
		for pos := size; pos > 0; {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(int64(mergeChunk), pos)
			pos -= n
			if _, err := f.ReadAt(buf[:n], pos); err != nil {
				return err
			}
			if _, err := dst.WriteAt(buf[:n], off+pos); err != nil {
				return fmt.Errorf("writing decisions.csv: %v", unwrapPathErr(err))
			}
			if err := f.Truncate(pos); err != nil {
				return err
			}
			if afterChunk != nil {
				afterChunk()
			}
		}
		off += size
		f.Close()
		os.Remove(f.Name())
		p.files[i] = nil
	}
	return nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// writeDecisions creates decisions.csv in dir from the parts.
func writeDecisions(ctx context.Context, dir *output.Dir, parts *decisionParts) error {
	f, err := dir.Create("decisions.csv")
	if err != nil {
		return err
	}
	if err := parts.writeInto(ctx, f.File, nil); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("writing %s: %v", filepath.Join(dir.Path(), "decisions.csv"), err)
	}
	return nil
}

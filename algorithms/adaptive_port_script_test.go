package algorithms

import (
	"bufio"
	"container/heap"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The scripts the ports of the Java limiters (netflix_port_test.go,
// sentinel_system_port_test.go) and the product are run on, and the loop
// that runs them. A script is a header (the case's parameters), for
// Sentinel the load1 and cpu sampled at each second, and arrivals: a time,
// the time the call takes if it is admitted and how it ends. The loop is
// the simulator's order: before each arrival, the admitted calls whose end
// is at or before it complete, by end then by arrival; then the arrival
// is decided. Every completion and every decision prints one line, and
// the lines of the port, of the product and (outside the repository) of
// the real Java classes driven by the same loop must be the same.

// Outcomes in a script: portIgnore is onIgnore, which only the port and
// the Java classes have (the lab has no ignored call).
const (
	portSuccess = 0
	portError   = 1
	portTimeout = 2
	portIgnore  = 3
)

type portArrival struct {
	t, rt int64 // ns
	o     uint8
}

type portScript struct {
	header   string    // "CASE kind key=value ..."
	load     []float64 // Sentinel: load1 sampled at second k
	cpu      []float64 // Sentinel: cpu sampled at second k
	arrivals []portArrival
}

// portSubject is a port or a product limiter under the loop. decide
// returns the decision's line, whether it passed and the call's handle;
// complete returns the completion's line.
type portSubject interface {
	decide(t int64) (line string, pass bool, h any)
	complete(t int64, h any, o uint8) string
}

type portOpen struct {
	end int64
	idx int
	h   any
	o   uint8
}

type portHeap []portOpen

func (h portHeap) Len() int { return len(h) }
func (h portHeap) Less(i, j int) bool {
	if h[i].end != h[j].end {
		return h[i].end < h[j].end
	}
	return h[i].idx < h[j].idx
}
func (h portHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *portHeap) Push(x any)   { *h = append(*h, x.(portOpen)) }
func (h *portHeap) Pop() any {
	o := *h
	x := o[len(o)-1]
	*h = o[:len(o)-1]
	return x
}

// runPortScript runs s on sub and returns the lines, and the number of
// decisions (arrivals) among them.
func runPortScript(s *portScript, sub portSubject) []string {
	var open portHeap
	out := make([]string, 0, 2*len(s.arrivals))
	for i, a := range s.arrivals {
		for len(open) > 0 && open[0].end <= a.t {
			c := heap.Pop(&open).(portOpen)
			out = append(out, sub.complete(c.end, c.h, c.o))
		}
		line, pass, h := sub.decide(a.t)
		out = append(out, line)
		if pass {
			heap.Push(&open, portOpen{end: a.t + a.rt, idx: i, h: h, o: a.o})
		}
	}
	return out
}

// compareRuns fails at the first line where the port and the product
// differ, with the script's arrivals around it.
func compareRuns(t *testing.T, s *portScript, port, product []string) (decisions int) {
	t.Helper()
	if len(port) != len(product) {
		t.Fatalf("%s: the port printed %d lines, the product %d", s.header, len(port), len(product))
	}
	for i := range port {
		if port[i] != product[i] {
			lo := max(0, i-12)
			t.Fatalf("%s: line %d: the port %q, the product %q\nlines %d..%d, port | product:\n%s", s.header, i, port[i], product[i], lo, i,
				sideBySide(port[lo:i+1], product[lo:i+1]))
		}
		if port[i][0] != 'C' {
			decisions++
		}
	}
	return decisions
}

func sideBySide(a, b []string) string {
	var sb strings.Builder
	for i := range a {
		fmt.Fprintf(&sb, "  %-40s | %s\n", a[i], b[i])
	}
	return sb.String()
}

// dbits prints a double exactly, as the Java harness does
// (Long.toHexString(Double.doubleToRawLongBits(x))).
func dbits(x float64) string { return strconv.FormatUint(math.Float64bits(x), 16) }

// writeScript writes s in the harness's format: the header line, "L k
// load cpu" per sampled second, "A t rt o" per arrival, "END".
func writeScript(w *bufio.Writer, s *portScript) {
	fmt.Fprintln(w, s.header)
	for k := range s.load {
		fmt.Fprintf(w, "L %d %s %s\n", k, strconv.FormatFloat(s.load[k], 'g', -1, 64), strconv.FormatFloat(s.cpu[k], 'g', -1, 64))
	}
	for _, a := range s.arrivals {
		fmt.Fprintf(w, "A %d %d %d\n", a.t, a.rt, a.o)
	}
	fmt.Fprintln(w, "END")
}

// TestAdaptivePortDump writes the scripts and the ports' lines for the
// check against the real Java classes outside the repository (see
// docs/algorithms.md): PORTS_DUMP=DIR go test -run TestAdaptivePortDump
// writes DIR/netflix.txt and DIR/sentinel.txt (the scripts) and
// DIR/netflix.port.txt and DIR/sentinel.port.txt (the port's lines, one
// "CASE" line before each script's). PORTS_DUMP_SEED picks the scripts
// (default: the clock). Scripts without onIgnore are checked against the
// product first.
func TestAdaptivePortDump(t *testing.T) {
	dir := os.Getenv("PORTS_DUMP")
	if dir == "" {
		t.Skip("set PORTS_DUMP=DIR to write the scripts for the Java harness")
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("PORTS_DUMP_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = s
	}
	for _, f := range []struct {
		name  string
		cases func(seed uint64) []*portScript
		port  func(s *portScript) portSubject
		prod  func(t *testing.T, s *portScript) portSubject
	}{
		{"netflix", netflixScripts, netflixPortFor, netflixProductFor},
		{"sentinel", sentinelScripts, sentinelPortFor, sentinelProductFor},
	} {
		in, err := os.Create(filepath.Join(dir, f.name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		exp, err := os.Create(filepath.Join(dir, f.name+".port.txt"))
		if err != nil {
			t.Fatal(err)
		}
		wi, we := bufio.NewWriter(in), bufio.NewWriter(exp)
		n, lines := 0, 0
		for _, s := range f.cases(seed) {
			port := runPortScript(s, f.port(s))
			if !strings.Contains(s.header, " ignore=true") {
				n += compareRuns(t, s, port, runPortScript(s, f.prod(t, s)))
			}
			writeScript(wi, s)
			fmt.Fprintln(we, "CASE")
			for _, l := range port {
				fmt.Fprintln(we, l)
			}
			lines += len(port)
		}
		for _, e := range []error{wi.Flush(), we.Flush(), in.Close(), exp.Close()} {
			if e != nil {
				t.Fatal(e)
			}
		}
		t.Logf("%s: seed %d, %d lines written, %d decisions checked against the product", f.name, seed, lines, n)
	}
}

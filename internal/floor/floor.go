// Package floor holds the floor programs of issue 27: the plain Go
// programs a replay of a trace or an access log is measured against. Each
// reads its input once, interns every key in a map, and runs a token bucket
// per key, with nothing else (no checks beyond what parsing needs, no
// statistics, no error lines). The benchmarks beside the readers
// (scenarios/floor_bench_test.go) run them side by side with the lab's
// readers on the same arrivals; docs/performance.md has the figures.
// PoissonSevenFixed (poisson.go) is the floor of the end-to-end run instead:
// run poisson's arrivals through seven fixed windows with 50 ms bins.
//
// The package imports the standard library only, so any floor may use it.
package floor

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"time"
)

// Result is what a floor program counts.
type Result struct {
	Lines, Passed int64
	Keys          int
	// State keeps the run's key table and buckets reachable, so a caller
	// can weigh them (the benchmarks' B/key).
	State any
}

// Bucket is a token bucket in nanoseconds: Rate tokens a second, Burst at
// most. It is the per-key state of the floor programs (16 bytes a key).
type Bucket struct {
	tokens float64
	last   int64
}

// Allow refills b up to now (ns) and takes one token if there is one.
func (b *Bucket) Allow(now int64, rate, burst float64) bool {
	if now > b.last {
		b.tokens += float64(now-b.last) * rate / 1e9
		if b.tokens > burst {
			b.tokens = burst
		}
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	return false
}

// table interns keys: a map from the key's string to a dense id, and a
// bucket per id.
type table struct {
	ids     map[string]int32
	buckets []Bucket
	burst   float64
}

func (t *table) bucket(key []byte) *Bucket {
	id, ok := t.ids[string(key)] // no allocation for a key seen before
	if !ok {
		id = int32(len(t.buckets))
		t.ids[string(key)] = id
		t.buckets = append(t.buckets, Bucket{tokens: t.burst})
	}
	return &t.buckets[id]
}

// CSVPerKey reads a CSV trace with the header t_ms,key (decimal
// milliseconds, then a key), interns every key and runs a token bucket per
// key. It stops at the first line it cannot read.
func CSVPerKey(r io.Reader, rate, burst float64) (Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024)
	t := table{ids: map[string]int32{}, burst: burst}
	var res Result
	sc.Scan() // the header
	for sc.Scan() {
		line := sc.Bytes()
		i := bytes.IndexByte(line, ',')
		if i < 0 {
			return res, strconv.ErrSyntax
		}
		ms, err := strconv.ParseFloat(string(line[:i]), 64)
		if err != nil {
			return res, err
		}
		now := int64(ms * 1e6)
		res.Lines++
		if t.bucket(line[i+1:]).Allow(now, rate, burst) {
			res.Passed++
		}
	}
	res.Keys, res.State = len(t.buckets), &t
	return res, sc.Err()
}

// TimeLocal is nginx's $time_local layout.
const TimeLocal = "02/Jan/2006:15:04:05 -0700"

// LogPerAddress reads an nginx combined (or common) access log: it splits
// each line at its first space (the client address) and at the brackets
// around $time_local, parses the time with time.Parse and the fixed layout
// TimeLocal, interns the address and runs a token bucket per address.
func LogPerAddress(r io.Reader, rate, burst float64) (Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024)
	t := table{ids: map[string]int32{}, burst: burst}
	var res Result
	for sc.Scan() {
		line := sc.Bytes()
		sp := bytes.IndexByte(line, ' ')
		lb := bytes.IndexByte(line, '[')
		if sp < 0 || lb < 0 || len(line) < lb+1+len(TimeLocal)+1 || line[lb+1+len(TimeLocal)] != ']' {
			return res, strconv.ErrSyntax
		}
		ts, err := time.Parse(TimeLocal, string(line[lb+1:lb+1+len(TimeLocal)]))
		if err != nil {
			return res, err
		}
		res.Lines++
		if t.bucket(line[:sp]).Allow(ts.UnixNano(), rate, burst) {
			res.Passed++
		}
	}
	res.Keys, res.State = len(t.buckets), &t
	return res, sc.Err()
}

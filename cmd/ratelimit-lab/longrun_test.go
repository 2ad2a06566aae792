//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/labtest"
)

// stackTrace matches what the Go runtime prints when a program dies.
var stackTrace = regexp.MustCompile(`goroutine \d+|fatal error|panic:|runtime\.`)

// lockedBuffer is a bytes.Buffer safe to read while a child writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// child is the real command running in a subprocess.
type child struct {
	cmd         *exec.Cmd
	out, errOut *lockedBuffer
	done        chan struct{}
	code        int
}

func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	return startChildWith(t, nil, args...)
}

// startChildWith is startChild with setup applied to the command before
// it starts (its stdin, its environment).
func startChildWith(t *testing.T, setup func(*exec.Cmd), args ...string) *child {
	t.Helper()
	c := &child{out: &lockedBuffer{}, errOut: &lockedBuffer{}, done: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], args...)
	c.cmd.Env = append(os.Environ(), "RATELIMIT_LAB_AS_MAIN=1")
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.errOut
	if setup != nil {
		setup(c.cmd)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := c.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			c.code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				c.code = 128 + int(ws.Signal())
			}
		}
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			c.cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// waitFor polls cond every 2 ms until it holds or the child exits, and
// reports whether cond held. It has no deadline of its own: a child that
// never gets there fails by the test binary's -timeout, never because the
// machine is slow.
func (c *child) waitFor(cond func() bool) bool {
	for !cond() {
		select {
		case <-c.done:
			return cond()
		case <-time.After(2 * time.Millisecond):
		}
	}
	return true
}

// hidden lists the dot files of dir matching prefix.
func hidden(dir, prefix string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
	return m
}

// TestHugeSpansEndCleanly runs the inputs that used to end in "fatal
// error: out of memory": --bin 1ns, and a 3-line trace spanning a year.
// They finish with a one-line note on the widened bin, bounded files and
// no stack trace.
func TestHugeSpansEndCleanly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	year := filepath.Join(dir, "year.csv")
	os.WriteFile(year, []byte("t_ms\n0\n15768000000\n31536000000\n"), 0o644)
	day := filepath.Join(dir, "day.csv")
	os.WriteFile(day, []byte("t_ms\n0\n86399999\n"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		note string
	}{
		{"bin-1ns", []string{"run", "boundary-burst", "--bin", "1ns"}, "using --bin 50µs"},
		{"year-trace", []string{"run", "--trace", year, "--limit", "10"}, "using --bin 8m20s"},
		{"day-trace", []string{"run", "--trace", day, "--limit", "10"}, "using --bin 1s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name)
			_, stderr, code := binary(t, append(c.args, "--quiet", "--out", out)...)
			if code != 0 || stackTrace.MatchString(stderr) {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			// One note, wrapped to the terminal as every note is.
			if !strings.Contains(strings.ReplaceAll(stderr, "\n  ", " "), c.note) || strings.Count(stderr, "note:") != 1 || strings.Count(stderr, "\n") != strings.Count(stderr, "\n  ")+1 {
				t.Errorf("stderr %q, want one note saying %q", stderr, c.note)
			}
			st, err := os.Stat(filepath.Join(out, "series.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() > 100<<20 {
				t.Errorf("series.csv is %d MB", st.Size()>>20)
			}
		})
	}
}

// interrupt sends sig and waits for the child to exit (no deadline: how
// fast it stops depends on the machine's load; that it stops, with the
// right status and files, does not).
func interrupt(t *testing.T, c *child, sig syscall.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	<-c.done
}

// holdFIFO makes a FIFO at path and returns a function that opens its
// write end: it returns once a reader has opened the other end (the
// child is then waiting in its read), and the writer stays open until the
// test ends, so the child can only stop by a signal.
func holdFIFO(t *testing.T, path string) func(c *child) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return func(c *child) {
		t.Helper()
		opened := make(chan *os.File, 1)
		go func() {
			if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
				opened <- w
			}
		}()
		select {
		case w := <-opened:
			t.Cleanup(func() { w.Close() })
		case <-c.done:
			t.Fatalf("exit %d before opening %s; stderr:\n%s", c.code, path, c.errOut.String())
		}
	}
}

// TestSignalsLeaveTheEarlierRun sends SIGINT and SIGTERM to the real
// command while it waits in the middle of a run (reading a trace from a
// FIFO whose writer stays open, so only the signal can end it) into a
// directory that holds an earlier run: it exits 130 or 143 with one line
// saying what happened, and leaves the earlier run's files byte for byte.
// The signal is sent on an event (the child opened the FIFO), never after
// a delay. lab's TestCancelLeavesTheEarlierRun covers the other phases
// (simulating, drawing the chart, writing decisions.csv) in process.
func TestSignalsLeaveTheEarlierRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, err := execute(t, "run", "boundary-burst", "--decisions", "--quiet", "--out", out); err != nil {
		t.Fatalf("first run: %v: %s", err, stderr)
	}
	before := labtest.Snapshot(t, out)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		says string
	}{
		{syscall.SIGINT, 130, "interrupted (SIGINT)"},
		{syscall.SIGTERM, 143, "terminated (SIGTERM)"},
	} {
		t.Run(c.sig.String(), func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "trace.csv")
			open := holdFIFO(t, fifo)
			ch := startChild(t, "run", "--trace", fifo, "--limit", "100", "--decisions", "--quiet", "--out", out)
			open(ch)
			interrupt(t, ch, c.sig)
			stderr := ch.errOut.String()
			if ch.code != c.code || stackTrace.MatchString(stderr) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, want %d and one line; stderr:\n%s", ch.code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.says) || !strings.Contains(stderr, "earlier run's files are untouched") {
				t.Errorf("stderr %q does not say what happened", stderr)
			}
			labtest.Unchanged(t, out, before, "signal")
		})
	}
}

// TestDecisionsEstimate: --decisions prints the expected size before the
// run, and it is close to the file written.
func TestDecisionsEstimate(t *testing.T) {
	for _, sc := range []string{"boundary-burst", "poisson"} {
		out := filepath.Join(t.TempDir(), "out")
		_, stderr, code := binary(t, "run", sc, "--decisions", "--quiet", "--chart", "none", "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", sc, code, stderr)
		}
		var size float64
		var unit string
		if _, err := fmt.Sscanf(stderr, "decisions.csv: about %f %s", &size, &unit); err != nil {
			t.Fatalf("%s: stderr %q: %v", sc, stderr, err)
		}
		mult := map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]
		st, err := os.Stat(filepath.Join(out, "decisions.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if ratio := size * mult / float64(st.Size()); ratio < 0.85 || ratio > 1.15 {
			t.Errorf("%s: estimated %v %s, wrote %d bytes (ratio %.2f)", sc, size, unit, st.Size(), ratio)
		}
	}
}

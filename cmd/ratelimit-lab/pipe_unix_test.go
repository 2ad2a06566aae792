//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalWhileReadingAPipe: SIGINT while the trace is read from a pipe
// that stays open (--trace - on stdin) or from a FIFO nobody writes stops
// the run at once, not when the pipe closes: exit 130 within 2 s, no
// output directory and no copy of the trace left behind.
func TestSignalWhileReadingAPipe(t *testing.T) {
	for _, c := range []string{"stdin", "fifo"} {
		t.Run(c, func(t *testing.T) {
			dir := t.TempDir()
			tmp := filepath.Join(dir, "tmp")
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			trace := "-"
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close() // held open until the test ends
			if c == "fifo" {
				trace = filepath.Join(dir, "fifo")
				if err := syscall.Mkfifo(trace, 0o644); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
			} else if _, err := w.WriteString("t_ms\n0\n"); err != nil {
				t.Fatal(err)
			}
			ch := startChildWith(t, func(cmd *exec.Cmd) {
				cmd.Stdin = r
				cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
			}, "run", "--trace", trace, "--limit", "100", "--quiet", "--out", out)
			spooling := func() bool { return len(hidden(tmp, "ratelimit-lab-trace-")) > 0 }
			if !ch.waitFor(20*time.Second, spooling) {
				t.Fatalf("never started reading the trace; exit %d, stderr:\n%s", ch.code, ch.errOut.String())
			}
			time.Sleep(200 * time.Millisecond) // blocked in the read
			took := interrupt(t, ch, syscall.SIGINT)
			if took > 2*time.Second {
				t.Errorf("stopped %v after SIGINT, want under 2 s", took)
			}
			if ch.code != 130 || stackTrace.MatchString(ch.errOut.String()) || !strings.Contains(ch.errOut.String(), "interrupted (SIGINT)") {
				t.Fatalf("exit %d, want 130; stderr:\n%s", ch.code, ch.errOut.String())
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the interrupted run left %s behind (%v)", out, err)
			}
			if left := hidden(tmp, "ratelimit-lab-trace-"); len(left) > 0 {
				t.Errorf("the copy of the trace is left: %v", left)
			}
		})
	}
}

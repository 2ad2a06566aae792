//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSignalWhileReadingAPipe: SIGINT while the trace is read from a pipe
// that stays open (--trace - on stdin) or from a FIFO nobody writes stops
// the run while the pipe is still open, not when it closes: exit 130, no
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
			if !ch.waitFor(spooling) {
				t.Fatalf("never started reading the trace; exit %d, stderr:\n%s", ch.code, ch.errOut.String())
			}
			// The pipe stays open until the test ends: only the signal
			// can end the read.
			interrupt(t, ch, syscall.SIGINT)
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

// TestSignalWhileReadingOtherPipes: the other inputs named by a path do not
// hold Ctrl-C either. A .yaml scenario that is a FIFO held open by a writer
// that sends nothing is read under the same wait as a trace: SIGINT exits
// 130 at once. A --rules file must be a regular file, so a FIFO or
// /dev/stdin is refused at once, before anything waits on it.
func TestSignalWhileReadingOtherPipes(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return p
	}
	t.Run("scenario", func(t *testing.T) {
		p := fifo("held.yaml")
		out := filepath.Join(dir, "out")
		ch := startChild(t, "run", p, "--quiet", "--out", out)
		// The open of the write end returns once the child has opened the
		// read end; the child then waits in its read.
		opened := make(chan *os.File, 1)
		go func() {
			if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				opened <- w
			}
		}()
		select {
		case w := <-opened:
			defer w.Close()
		case <-ch.done:
			t.Fatalf("exit %d before opening the scenario; stderr:\n%s", ch.code, ch.errOut.String())
		}
		interrupt(t, ch, syscall.SIGINT)
		if ch.code != 130 || !strings.Contains(ch.errOut.String(), "interrupted (SIGINT)") {
			t.Fatalf("exit %d, want 130; stderr:\n%s", ch.code, ch.errOut.String())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("the interrupted run left %s behind (%v)", out, err)
		}
	})
	for _, args := range [][]string{
		{"run", "poisson", "--rules", fifo("rules.json")},
		{"rules", "explain", filepath.Join(dir, "rules.json")},
		{"run", "poisson", "--rules", "/dev/stdin"},
	} {
		t.Run(strings.Join(args[:2], " ")+" "+filepath.Base(args[len(args)-1]), func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			ch := startChildWith(t, func(cmd *exec.Cmd) { cmd.Stdin = r }, args...)
			<-ch.done // refused before reading: it ends with the pipe still open
			if ch.code != 1 || !strings.Contains(ch.errOut.String(), "is not a regular file") {
				t.Errorf("exit %d, stderr:\n%s", ch.code, ch.errOut.String())
			}
		})
	}
}

//go:build unix

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// fakeRedis is an in-process server that speaks just enough RESP for a
// run to start: it answers PING and SCRIPT LOAD, then, on the first other
// command (mid-run), either never answers (stall) or closes the
// connection and stops listening (close), as a stopped or killed server
// does. With silent it answers nothing at all, not even PING.
type fakeRedis struct {
	ln      net.Listener
	mode    string // "stall", "close" or "silent"
	reached atomic.Bool
	mu      sync.Mutex
	conns   []net.Conn
}

func startFakeRedis(t *testing.T, mode string) *fakeRedis {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRedis{ln: ln, mode: mode}
	t.Cleanup(func() {
		ln.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, c := range f.conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, c)
			f.mu.Unlock()
			go f.serve(c)
		}
	}()
	return f
}

func (f *fakeRedis) url() string { return "redis://" + f.ln.Addr().String() + "/0" }

func (f *fakeRedis) serve(c net.Conn) {
	rd := bufio.NewReader(c)
	for {
		cmd, err := readCommand(rd)
		if err != nil {
			return
		}
		if f.mode == "silent" {
			f.reached.Store(true)
			continue
		}
		switch name := strings.ToUpper(cmd[0]); {
		case name == "PING":
			io.WriteString(c, "+PONG\r\n")
		case name == "HELLO": // as a server before Redis 6 does
			io.WriteString(c, "-ERR unknown command 'HELLO'\r\n")
		case name == "SCRIPT":
			io.WriteString(c, "$40\r\n"+strings.Repeat("a", 40)+"\r\n")
		case f.mode == "close":
			f.reached.Store(true)
			f.ln.Close()
			c.Close()
			return
		default: // stall: read on, never answer
			f.reached.Store(true)
		}
	}
}

// readCommand reads one RESP array of bulk strings.
func readCommand(rd *bufio.Reader) ([]string, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("not a RESP array: %q", line)
	}
	cmd := make([]string, n)
	for i := range cmd {
		if line, err = rd.ReadString('\n'); err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
		if err != nil {
			return nil, err
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(rd, b); err != nil {
			return nil, err
		}
		cmd[i] = string(b[:size])
	}
	return cmd, nil
}

// A server that stops answering (kill -STOP) or never answers ends the run
// after --redis-timeout with one line; one that closes the connection
// mid-run (killed) says so plainly, not "answered an error: ... EOF".
// Nothing is written either way.
func TestRedisServerStopsAnswering(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		mode, want string
	}{
		{"stall", "did not answer within 300ms (is the server stopped or overloaded?); check it, or give it longer with --redis-timeout"},
		{"silent", "did not answer within 300ms"},
		{"close", "closed the connection mid-run (the server stopped?); check the server and run again"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			srv := startFakeRedis(t, c.mode)
			out := filepath.Join(dir, c.mode)
			// The fake server holds the connection open until the test
			// ends: the run can only end by its own timeout (or the
			// closed connection), which the message names.
			checkBadInput(t, out, "ratelimit-lab: Redis at "+srv.ln.Addr().String()+" "+c.want,
				"run", "redis-race", "--algo", "redis-sliding-log:instances=4", "--redis", srv.url(), "--redis-timeout", "300ms", "--chart", "none", "--out", out)
			if !srv.reached.Load() {
				t.Error("the run never reached the stalled command")
			}
		})
	}
	out := filepath.Join(dir, "bad")
	checkBadInput(t, out, "--redis-timeout must be between 1ms and 1h0m0s, got 0s", "run", "redis-race", "--redis-timeout", "0s", "--out", out)
}

// SIGINT while a run waits on a server that stopped answering stops it at
// (exit 130, nothing written) while the server still holds the reply and
// long before the timeout: mid-run, and while the first PING waits.
func TestRedisStallInterrupted(t *testing.T) {
	for _, mode := range []string{"stall", "silent"} {
		t.Run(mode, func(t *testing.T) {
			srv := startFakeRedis(t, mode)
			out := filepath.Join(t.TempDir(), "out")
			ch := startChild(t, "run", "redis-race", "--algo", "redis-sliding-log", "--redis", srv.url(), "--redis-timeout", "1m", "--quiet", "--out", out)
			if !ch.waitFor(srv.reached.Load) {
				t.Fatalf("never reached the server; exit %d, stderr:\n%s", ch.code, ch.errOut.String())
			}
			// The server never answers and the timeout is a minute: the
			// run can end only by the signal.
			interrupt(t, ch, syscall.SIGINT)
			if ch.code != 130 || strings.Count(ch.errOut.String(), "\n") != 1 || !strings.Contains(ch.errOut.String(), "interrupted (SIGINT)") {
				t.Fatalf("exit %d, want 130 and one line; stderr:\n%s", ch.code, ch.errOut.String())
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the interrupted run left %s behind (%v)", out, err)
			}
		})
	}
}

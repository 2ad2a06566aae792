package distributed

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// silentListener accepts connections and never answers: a server stopped
// with kill -STOP (the kernel still accepts). It sends on accepted each
// time it accepts a connection, without blocking.
func silentListener(t *testing.T) (addr string, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	acc := make(chan struct{}, 1)
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			select {
			case acc <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String(), acc
}

// A server that never answers is a ServerError after the timeout (and
// not before it), and a cancelled context stops the wait: the context is
// cancelled once the server has accepted the connection, so the wait has
// begun, and the timeout is a minute, so only the cancellation can end it
// with context.Canceled. No bound on the elapsed time: a busy machine may
// take any time to schedule the test.
func TestOpenURLStalledServer(t *testing.T) {
	addr, _ := silentListener(t)
	t0 := time.Now()
	_, err := OpenURL(context.Background(), "redis://"+addr+"/0", 200*time.Millisecond)
	var se *ServerError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "Redis at "+addr+" did not answer within 200ms") {
		t.Errorf("got %v, want a ServerError saying it did not answer within 200ms", err)
	}
	if took := time.Since(t0); took < 200*time.Millisecond {
		t.Errorf("gave up after %v with a 200ms timeout", took)
	}

	addr, accepted := silentListener(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-accepted
		cancel()
	}()
	_, err = OpenURL(ctx, "redis://"+addr+"/0", time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	for _, d := range []time.Duration{-time.Second, time.Microsecond, 2 * time.Hour} {
		if _, err := OpenURL(context.Background(), "redis://"+addr+"/0", d); err == nil || !strings.Contains(err.Error(), "--redis-timeout must be between 1ms and 1h0m0s") {
			t.Errorf("timeout %v: %v", d, err)
		}
	}
}

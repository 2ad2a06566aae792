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
// with kill -STOP (the kernel still accepts).
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// A server that never answers is a ServerError after the timeout, and a
// cancelled context stops the wait at once, not after the timeout.
func TestOpenURLStalledServer(t *testing.T) {
	addr := silentListener(t)
	t0 := time.Now()
	_, err := OpenURL(context.Background(), "redis://"+addr+"/0", 200*time.Millisecond)
	var se *ServerError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "Redis at "+addr+" did not answer within 200ms") {
		t.Errorf("got %v, want a ServerError saying it did not answer within 200ms", err)
	}
	if took := time.Since(t0); took > 2*time.Second {
		t.Errorf("took %v with a 200ms timeout", took)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	t0 = time.Now()
	_, err = OpenURL(ctx, "redis://"+addr+"/0", time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if took := time.Since(t0); took > time.Second {
		t.Errorf("cancelled after 100ms, returned after %v", took)
	}
	for _, d := range []time.Duration{-time.Second, time.Microsecond, 2 * time.Hour} {
		if _, err := OpenURL(context.Background(), "redis://"+addr+"/0", d); err == nil || !strings.Contains(err.Error(), "--redis-timeout must be between 1ms and 1h0m0s") {
			t.Errorf("timeout %v: %v", d, err)
		}
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// redisSession builds a run's redis-* limiters on one backend, opened on
// the first redis-* spec: the embedded native default, the embedded Lua
// interpreter (--redis lua), or a real server (--redis URL).
type redisSession struct {
	ctx        context.Context
	url        string
	bin        time.Duration
	timeout    time.Duration // a real server's reply may take this long
	timeoutSet bool          // --redis-timeout was given
	backend    *distributed.Backend
	limiters   []*distributed.Limiter
}

// newRedisSession checks run's Redis flags and returns the session its
// redis-* limiters are built on.
func newRedisSession(ctx context.Context, opts *RunOptions) (*redisSession, error) {
	if err := distributed.CheckTimeout(opts.RedisTimeout); err != nil {
		return nil, err
	}
	return &redisSession{ctx: ctx, url: opts.Redis, bin: opts.Bin, timeout: opts.RedisTimeout, timeoutSet: opts.RedisTimeoutSet}, nil
}

func (r *redisSession) build(spec string, limit float64) (algorithms.Limiter, error) {
	if r == nil {
		return nil, errors.New("redis-* limiters run with 'ratelimit-lab run' only")
	}
	s, err := distributed.Parse(spec, limit)
	if err != nil {
		return nil, err
	}
	if r.backend == nil {
		switch r.url {
		case "":
			r.backend, err = distributed.OpenEmbedded()
		case "lua":
			r.backend, err = distributed.OpenEmbeddedLua()
		default:
			r.backend, err = distributed.OpenURL(r.ctx, r.url, r.timeout)
		}
		if err != nil {
			return nil, err
		}
	}
	l, err := distributed.New(s, r.backend, distributed.Options{Bin: r.bin})
	if err != nil {
		return nil, err
	}
	r.limiters = append(r.limiters, l)
	return l, nil
}

// printNotes says, on one "note:" line, that --redis goes unused when the
// run has no redis-* limiter (its limiters are all built by then).
func (r *redisSession) printNotes(w io.Writer, fit int) {
	if r == nil {
		return
	}
	if r.timeoutSet && (r.url == "" || r.url == "lua") {
		why := "this run's Redis is the embedded one, which answers at once"
		if r.backend == nil {
			why = "this run has no redis-* limiter"
		}
		report.WriteNote(w, "note: ", "--redis-timeout is unused: it bounds a real server's replies (--redis redis://HOST:PORT/DB), and "+why, fit)
	}
	if r.url == "" || r.backend != nil {
		return
	}
	report.WriteNote(w, "note: ", fmt.Sprintf("--redis %s is unused: this run has no redis-* limiter (add one with --algo, e.g. --algo redis-sliding-log; 'ratelimit-lab list' shows them)", distributed.RedactURL(r.url)), fit)
}

// close deletes what the limiters left (after an error) and closes the
// backend.
func (r *redisSession) close() {
	if r == nil || r.backend == nil {
		return
	}
	for _, l := range r.limiters {
		_ = l.Close()
	}
	_ = r.backend.Close()
}

// trackProgress makes the progress bar follow the slowest Redis limiter
// (arrivals it has decided, polled every 100 ms) instead of the arrivals
// fed, which run far ahead of a limiter paced by round trips. It returns
// the function that stops it; without Redis limiters it changes nothing.
func (r *redisSession) trackProgress(cfg *simulator.Config, update func(int64)) (stop func()) {
	if r == nil || len(r.limiters) == 0 || cfg.Progress == nil {
		return func() {}
	}
	cfg.Progress = nil
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				slowest := r.limiters[0].Decided()
				for _, l := range r.limiters[1:] {
					slowest = min(slowest, l.Decided())
				}
				update(slowest)
			}
		}
	}()
	return func() { close(done); <-finished }
}

package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// redisSession builds a run's redis-* limiters on one backend, opened on
// the first redis-* spec: the embedded server, or --redis URL.
type redisSession struct {
	ctx      context.Context
	url      string
	bin      time.Duration
	backend  *distributed.Backend
	limiters []*distributed.Limiter
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
		if r.url == "" {
			r.backend, err = distributed.OpenEmbedded()
		} else {
			r.backend, err = distributed.OpenURL(r.ctx, r.url)
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

// renderRedisTable writes the Redis limiters' figures, if the run has any.
func renderRedisTable(w io.Writer, res *simulator.Result) error {
	header, rows := simulator.RedisTable(res)
	if len(rows) == 0 {
		return nil
	}
	return renderTable(w, header, rows)
}

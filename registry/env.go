package registry

import (
	"context"
	"errors"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
)

// Env is what a run's limiters need beyond their spec: the Redis backend
// the redis-* limiters share, opened lazily on the first redis-* spec New
// builds, so that a run without one opens nothing. One Env serves one run;
// Close releases it.
type Env struct {
	ctx     context.Context
	url     string
	timeout time.Duration
	bin     time.Duration

	backend  *distributed.Backend
	limiters []*distributed.Limiter
}

// NewEnv checks a run's Redis settings and returns its Env. redis is ""
// for the embedded native backend (the default), "lua" for the embedded
// Lua interpreter, or the URL of a real server (redis://HOST:PORT/DB),
// whose replies may take up to timeout; ctx (nil: Background) bounds
// connecting to it. bin
// is the run's bin, for the limiters' per-bin figures.
func NewEnv(ctx context.Context, redis string, timeout, bin time.Duration) (*Env, error) {
	if err := distributed.CheckTimeout(timeout); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return &Env{ctx: ctx, url: redis, timeout: timeout, bin: bin}, nil
}

// Redis is the Redis setting the Env was made with: "", "lua" or a URL.
func (e *Env) Redis() string { return e.url }

// Embedded reports whether the Redis backend is an embedded one ("" or
// "lua"), which answers at once.
func (e *Env) Embedded() bool { return e.url == "" || e.url == "lua" }

// Opened reports whether a redis-* spec opened the backend.
func (e *Env) Opened() bool { return e.backend != nil }

// RedisLimiters returns the redis-* limiters built on the Env, in order.
func (e *Env) RedisLimiters() []*distributed.Limiter { return e.limiters }

// Close deletes what the redis-* limiters left (after an error) and
// closes the backend; it does nothing when none was opened. A nil Env is
// fine.
func (e *Env) Close() {
	if e == nil || e.backend == nil {
		return
	}
	for _, l := range e.limiters {
		_ = l.Close()
	}
	_ = e.backend.Close()
}

// newRedis builds a redis-* limiter on env's backend, opening it first.
func newRedis(s string, limit float64, env *Env) (algorithms.Limiter, error) {
	if env == nil {
		return nil, errors.New("redis-* limiters run with 'ratelimit-lab run' only")
	}
	sp, err := distributed.Parse(s, limit)
	if err != nil {
		return nil, err
	}
	if env.backend == nil {
		switch env.url {
		case "":
			env.backend, err = distributed.OpenEmbedded()
		case "lua":
			env.backend, err = distributed.OpenEmbeddedLua()
		default:
			env.backend, err = distributed.OpenURL(env.ctx, env.url, env.timeout)
		}
		if err != nil {
			return nil, err
		}
	}
	l, err := distributed.New(sp, env.backend, distributed.Options{Bin: env.bin})
	if err != nil {
		return nil, err
	}
	env.limiters = append(env.limiters, l)
	return l, nil
}

package distributed

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
	"github.com/redis/go-redis/v9"
)

// Backend is the Redis server a run's limiters share: an embedded
// miniredis (the default) or a real server reached with go-redis. Every
// key the lab writes is under a prefix unique to the Backend; Close
// deletes what is left and never flushes a database.
type Backend struct {
	name   string
	ctx    context.Context
	mini   *miniredis.Miniredis
	client *redis.Client
	prefix string
	native bool // the built-in limiters decide in Go (native.go)

	mu   sync.Mutex
	next int // limiters created
	shas map[string]string

	// A real server: how long a reply may take, and, once the server has
	// stopped answering or closed the connection, why (every later command
	// fails at once with it, and no key deletion waits on it).
	timeout time.Duration
	down    atomic.Pointer[ServerError]
}

// DefaultTimeout is how long a command on a real server may wait for its
// reply (--redis-timeout's default).
const DefaultTimeout = 5 * time.Second

// MaxTimeout bounds --redis-timeout.
const MaxTimeout = time.Hour

// CheckTimeout reports a --redis-timeout out of range, in one line.
func CheckTimeout(d time.Duration) error {
	if d < time.Millisecond || d > MaxTimeout {
		return fmt.Errorf("--redis-timeout must be between 1ms and %v, got %v (for example --redis-timeout 5s)", MaxTimeout, d)
	}
	return nil
}

// ServerError says that a real server stopped answering or closed the
// connection mid-run: the run cannot go on, whatever the limiter.
type ServerError struct{ msg string }

func (e *ServerError) Error() string { return e.msg }

// IsServerDown reports whether err is a ServerError or the run's context
// ending: errors a limiter passes on as they are, with no wording of its
// own around them.
func IsServerDown(err error) bool {
	var se *ServerError
	return errors.As(err, &se) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// OpenEmbedded opens the embedded default: the built-in limiters decide
// natively in Go (native.go) and redis-script runs its Lua on an
// in-process miniredis. Commands are dispatched to it directly, without a
// network round trip. It never ages keys: TTLs only move when its clock is
// fast-forwarded, which the lab never does.
func OpenEmbedded() (*Backend, error) {
	m := miniredis.NewMiniRedis()
	if err := m.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the embedded Redis (%v); pass --redis redis://HOST:PORT/DB to use a real server", err)
	}
	return &Backend{name: "the embedded Redis", mini: m, prefix: "ratelimit-lab:", shas: map[string]string{}, native: true}, nil
}

// OpenURL connects to a real server given as redis://[:PASSWORD@]HOST:PORT/DB.
// The client runs with retries off: a retried EVAL would count a request
// twice. A dial, a write or a reply that takes longer than timeout (0:
// DefaultTimeout) ends the run with a ServerError, and ctx ending stops
// the wait at once. It checks the connection with PING.
func OpenURL(ctx context.Context, rawURL string, timeout time.Duration) (*Backend, error) {
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if err := CheckTimeout(timeout); err != nil {
		return nil, err
	}
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("--redis %s is not a Redis URL%s; write redis://HOST:PORT/DB, for example redis://127.0.0.1:6379/0", RedactURL(rawURL), parseCause(rawURL, err))
	}
	opt.MaxRetries = -1
	opt.DialTimeout = timeout
	opt.ReadTimeout = timeout
	opt.WriteTimeout = timeout
	opt.PoolTimeout = timeout
	opt.PoolSize = 16
	opt.Protocol = 2
	opt.DisableIdentity = true
	opt.DialerRetries = 1
	opt.ContextTimeoutEnabled = true // an interrupted run stops waiting
	redis.SetLogger(silent{})
	name := "Redis at " + opt.Addr
	c := redis.NewClient(opt)
	var id [6]byte
	_, _ = rand.Read(id[:])
	b := &Backend{name: name, ctx: ctx, client: c, prefix: "ratelimit-lab:" + hex.EncodeToString(id[:]) + ":", shas: map[string]string{}, timeout: timeout}
	err = b.wait(ctx, true, func() error { return c.Ping(ctx).Err() })
	if err != nil {
		c.Close()
		if IsServerDown(err) {
			return nil, err
		}
		return nil, connectError(name, rawURL, err)
	}
	return b, nil
}

// grace is how long a command whose run was interrupted may still take to
// get its reply before the server counts as stopped (and the interrupted
// run does not wait on it to delete its keys).
const grace = 250 * time.Millisecond

// wait runs f, a command or a pipeline on the real server, on its own
// goroutine, so that ctx ending (SIGINT, SIGTERM) stops the wait at once:
// go-redis bounds a read by its timeout but does not watch ctx. f's
// failures to reach the server become one ServerError, which every later
// call returns without waiting. While opening, a failure to connect is
// returned as it is, for connectError to word.
func (b *Backend) wait(ctx context.Context, opening bool, f func() error) error {
	if se := b.down.Load(); se != nil {
		return se
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- f() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		select {
		case <-done:
		case <-time.After(grace):
			b.down.CompareAndSwap(nil, &ServerError{fmt.Sprintf("%s did not answer; the run was interrupted while it waited", b.name)})
		}
		return ctx.Err()
	}
	if err == nil || err == redis.Nil {
		return err
	}
	var rerr redis.Error
	if errors.As(err, &rerr) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var nerr net.Error
	timeout := errors.As(err, &nerr) && nerr.Timeout()
	switch {
	case opening && !timeout:
		return err
	case timeout:
		b.down.CompareAndSwap(nil, &ServerError{fmt.Sprintf("%s did not answer within %v (is the server stopped or overloaded?); check it, or give it longer with --redis-timeout", b.name, b.timeout)})
	default:
		b.down.CompareAndSwap(nil, &ServerError{fmt.Sprintf("%s closed the connection mid-run (the server stopped?); check the server and run again", b.name)})
	}
	return b.down.Load()
}

func connectError(name, rawURL string, err error) error {
	msg := scrub(rawURL, oneLine(err))
	var nerr net.Error
	switch {
	case strings.Contains(msg, "NOAUTH") || strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "invalid password") || strings.Contains(msg, "AUTH"):
		return fmt.Errorf("%s refused the password (%s); put the right one in the URL: redis://:PASSWORD@HOST:PORT/DB", name, msg)
	case errors.As(err, &nerr), strings.Contains(msg, "connection refused"), strings.Contains(msg, "no such host"):
		return fmt.Errorf("%s is unreachable (%s); start redis-server there or fix --redis %s", name, msg, RedactURL(rawURL))
	}
	return fmt.Errorf("%s: %s; check the server and --redis %s", name, msg, RedactURL(rawURL))
}

// userinfo returns where the credentials of a URL (what lies between its
// scheme's "//" and the last "@") start and end, or ok false if it has
// none. It reads the string itself, not url.Parse's view, so that a URL
// too broken to parse is still redacted.
func userinfo(raw string) (start, end int, ok bool) {
	if i := strings.Index(raw, "://"); i >= 0 {
		start = i + 3
	}
	at := strings.LastIndex(raw[start:], "@")
	if at < 0 {
		return 0, 0, false
	}
	return start, start + at, true
}

// RedactURL returns raw with its credentials, if any, replaced by xxx, as
// every message naming a --redis URL prints it.
func RedactURL(raw string) string {
	start, end, ok := userinfo(raw)
	if !ok {
		return raw
	}
	return raw[:start] + "xxx" + raw[end:]
}

// scrub replaces msg if it holds any part of raw's credentials: the user,
// the password, or a quoted piece of them (a parse error echoes the URL,
// or the piece it stumbled on, which a "/" in a password makes the port).
func scrub(raw, msg string) string {
	start, end, ok := userinfo(raw)
	if !ok {
		return msg
	}
	info := raw[start:end]
	secrets := []string{info}
	if user, pass, found := strings.Cut(info, ":"); found {
		secrets = append(secrets, user, pass)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(msg, s) {
			return scrubbed
		}
	}
	for _, q := range quoted.FindAllStringSubmatch(msg, -1) {
		if strings.Contains(info, q[1]) {
			return scrubbed
		}
	}
	return msg
}

const scrubbed = "the credentials are left out of this message"

var quoted = regexp.MustCompile(`"([^"]+)"`)

// parseCause is why raw does not parse, as " (cause)", or "" when the
// cause would quote the credentials. url.Parse's error quotes the whole
// URL: only its reason is kept.
func parseCause(raw string, err error) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	var esc url.EscapeError
	if start, end, ok := userinfo(raw); ok && errors.As(err, &esc) && strings.Contains(raw[start:end], string(esc)) {
		return " (a % in the credentials is not followed by two hex digits)"
	}
	msg := oneLine(err)
	if scrub(raw, msg) != msg {
		return ""
	}
	return " (" + msg + ")"
}

// Name names the server in messages.
func (b *Backend) Name() string { return b.name }

// Real reports whether the backend is a real server.
func (b *Backend) Real() bool { return b.client != nil }

// Close stops the embedded server or closes the connections.
func (b *Backend) Close() error {
	if b.mini != nil {
		b.mini.Close()
		return nil
	}
	return b.client.Close()
}

// newPrefix returns the key prefix of the next limiter.
func (b *Backend) newPrefix() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	return fmt.Sprintf("%s%d:", b.prefix, b.next)
}

// conn is one limiter's line to the server.
type conn interface {
	// do runs cmds in one batch (a pipeline; the lab is the only client of
	// its keys, and a limiter sends one batch at a time, so nothing of its
	// own interleaves) and returns one reply per command: int64, string,
	// []any or nil. The first error reply is returned as an error.
	do(cmds [][]string) ([]any, error)
}

func (b *Backend) conn() conn {
	if b.mini != nil {
		c := &embeddedConn{srv: b.mini.Server()}
		c.w = bufio.NewWriter(&c.buf)
		c.peer = server.NewPeer(c.w)
		c.rd = bufio.NewReader(&c.buf)
		return c
	}
	return &realConn{ctx: b.ctx, c: b.client, b: b}
}

// load loads a script (SCRIPT LOAD) and returns its SHA1.
func (b *Backend) load(src string) (string, error) {
	b.mu.Lock()
	sha, ok := b.shas[src]
	b.mu.Unlock()
	if ok {
		return sha, nil
	}
	r, err := b.conn().do([][]string{{"SCRIPT", "LOAD", src}})
	if err != nil {
		return "", err
	}
	sha, _ = r[0].(string)
	b.mu.Lock()
	b.shas[src] = sha
	b.mu.Unlock()
	return sha, nil
}

type embeddedConn struct {
	srv  *server.Server
	buf  bytes.Buffer
	w    *bufio.Writer
	peer *server.Peer
	rd   *bufio.Reader
}

func (c *embeddedConn) do(cmds [][]string) ([]any, error) {
	out := make([]any, len(cmds))
	for i, cmd := range cmds {
		c.buf.Reset()
		c.srv.Dispatch(c.peer, cmd)
		c.w.Flush()
		c.rd.Reset(&c.buf)
		r, err := server.ParseReply(c.rd)
		if err != nil {
			return nil, err
		}
		out[i] = normalize(r)
	}
	return out, nil
}

func normalize(r any) any {
	switch v := r.(type) {
	case int:
		return int64(v)
	case server.Simple:
		return string(v)
	case []any:
		for i := range v {
			v[i] = normalize(v[i])
		}
		return v
	}
	return r
}

type realConn struct {
	ctx context.Context
	c   *redis.Client
	b   *Backend
}

func (c *realConn) do(cmds [][]string) ([]any, error) {
	ctx := c.ctx
	// The arguments are copied here: an interrupted wait leaves the
	// goroutine behind while the caller reuses cmds.
	args := make([][]any, len(cmds))
	for i, cmd := range cmds {
		args[i] = make([]any, len(cmd))
		for j, a := range cmd {
			args[i][j] = a
		}
	}
	out := make([]any, len(cmds))
	err := c.b.wait(ctx, false, func() error {
		pipe := c.c.Pipeline()
		rs := make([]*redis.Cmd, len(args))
		for i, a := range args {
			rs[i] = pipe.Do(ctx, a...)
		}
		_, _ = pipe.Exec(ctx)
		for i, r := range rs {
			v, err := r.Result()
			if err == redis.Nil {
				v, err = nil, nil
			}
			if err != nil {
				return err
			}
			out[i] = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// down reports whether the server has stopped answering or closed the
// connection.
func (c *realConn) down() bool { return c.b.down.Load() != nil }

// silent drops go-redis's log lines: errors reach the user as one line.
type silent struct{}

func (silent) Printf(context.Context, string, ...any) {}

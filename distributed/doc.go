// Package distributed runs rate limits shared through Redis: N simulated
// gateway instances, each with its own clock, send the very Lua scripts
// (or pipelined commands) a team deploys to one Redis server, over round
// trips of a fixed length, and the lab records what each design lets
// through and what it costs Redis.
//
// The limiters are redis-fixed-window (one INCR key per window),
// redis-sliding-log (the per-request ZSET log, atomic in one script or as
// the check-then-act pair of round trips), redis-bucketed (one ZSET of
// bucket counters), redis-gcra (go-redis/redis_rate v10's GCRA with now
// passed in), the gateways' redis-spring-gateway (Spring Cloud Gateway's
// request_rate_limiter.lua), redis-envoy-ratelimit (envoyproxy/ratelimit's
// fixed window, its local cache and shadow mode) and redis-cell
// (CL.THROTTLE), and redis-script (the user's own Lua file). They are built
// from spec strings by Parse and New, like the in-memory limiters of
// package algorithms, and satisfy algorithms.Limiter.
//
// # The model
//
// Arrival i (0-based, in file order) goes to instance i mod instances,
// whose clock reads true time + offset_k, offset_k = −skew +
// ⌊2·skew·k/(instances−1)⌋ ns. A batch (one script call, or one round's
// pipelined commands) sent at s executes in Redis at s + ⌊rtt/2⌋ and its
// reply is back at s + rtt. A request's first batch is sent at its arrival
// T; the non-atomic sliding log sends its second batch (ZADD + PEXPIRE) at
// T + rtt. Redis runs batches in order of (execution time, arrival number,
// round) and never interleaves them. With clock=instance the script's now
// is the instance's clock in whole ms, read once at T; with clock=redis
// each batch reads the true time at its own execution, as a script calling
// TIME would. A pass waits one round trip (two for the non-atomic sliding
// log); a block waits nothing. Virtual time 0 is Unix ms EpochMs, a
// multiple of lcm(1000 ms, window).
//
// Decide is synchronous: with a clock that never goes back, the verdict of
// arrival i depends only on batches that execute before i's first batch
// (every later arrival's batches execute after it, or at the same instant
// with a higher arrival number), so Decide runs the queued second batches
// that come first (internal/eventq orders them), then i's first batch.
// Finish runs what is still queued and deletes the limiter's keys.
//
// # Backends
//
// OpenEmbedded is the default: every built-in limiter decides natively in
// Go on its own copy of the keys its script keeps (native.go), with the
// script's arithmetic, so that decisions, commands and members are those
// of the Lua on a server; redis-script runs on an in-process miniredis.
// OpenEmbeddedLua runs every script on that miniredis, which runs the Lua
// with gopher-lua and never ages keys; OpenURL connects to a real server with
// go-redis, retries off and a timeout on every dial, write and reply (a
// server that stops answering or closes the connection is one
// ServerError, and the run's context ending stops the wait at once), and
// cancels every TTL a script
// sets (PERSIST in the same batch) so that no key expires during a run.
// Keys live under a prefix unique to the run and are deleted at the end;
// no database is ever flushed. All three give the same decisions.
package distributed

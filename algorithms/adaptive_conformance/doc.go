// Package adaptiveconformance checks the lab's adaptive limiters against
// their Go references, run here on a scripted clock: sentinel-golang's
// core/isolation and core/system (util.SetClock with a MockClock, the
// system signals set with system_metric.SetSystemLoad and
// SetSystemCpuUsage on the lab's sampling schedule), and go-kratos/aegis
// ratelimit/bbr v0.2.0 (inside a testing/synctest bubble, whose fake
// clock is what time.Now reads, with the limiter's CPU getter replaced by
// a scripted EMA: see aegisconf, which was also run against aegis's
// master outside the repository). It is a module of its own so that the
// references and their dependencies stay out of the lab's go.mod; .ci/run
// runs its tests.
package adaptiveconformance

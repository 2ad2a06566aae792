// Package conformance holds reference tests that need a dependency the
// main module does not take: sentinel-golang's core/hotspot, run beside
// the lab's sentinel-param with flavor=go on a clock the test sets, and
// its core/flow slot chain (api.Entry with WithBatchCount) beside the
// lab's flavor=go controllers with costs. It is
// its own module (go.mod here) so that sentinel-golang and what it pulls
// in stay out of ratelimit-lab's go.mod; .ci/run runs its tests.
package conformance

// Package conformance checks the lab's redis-* limiters against their
// references where those are Go modules too heavy for the lab's own
// go.mod: envoyproxy/ratelimit (gRPC, OpenTelemetry, Envoy's control
// plane…). It is a module of its own so that none of that reaches the
// lab's dependencies; .ci/run tests it with `go test ./...` in this
// directory.
package conformance

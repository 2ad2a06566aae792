package scenarios

import (
	"fmt"
	"strings"
)

// AlgorithmNames are the limiter names a spec string may start with.
var AlgorithmNames = []string{
	"fixed-window",
	"leap-array",
	"sliding-log",
	"token-bucket",
	"leaky-bucket",
	"warm-up",
	"warm-up-rate-limiter",
}

// SpecKeys are the parameter keys a spec string may set.
var SpecKeys = []string{"limit", "window", "sample-count", "interval", "rate", "burst", "max-queue", "warm-up", "cold-factor"}

// checkSpec checks the shape of a limiter spec string,
// NAME[:KEY=VALUE[,KEY=VALUE...]]: a known name and known keys, each with
// a value. The algorithms package parses the values.
func checkSpec(spec string) error {
	name, params, hasParams := strings.Cut(spec, ":")
	if !contains(AlgorithmNames, name) {
		msg := fmt.Sprintf("algorithm %q: unknown limiter %q", spec, name)
		if near := nearest(name, AlgorithmNames); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return fmt.Errorf("%s (limiters: %s)", msg, strings.Join(AlgorithmNames, ", "))
	}
	if !hasParams {
		return nil
	}
	if params == "" {
		return fmt.Errorf("algorithm %q: nothing after ':'; write %s:KEY=VALUE or drop the ':'", spec, name)
	}
	for _, kv := range strings.Split(params, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" {
			return fmt.Errorf("algorithm %q: parameter %q has no value; write KEY=VALUE, e.g. %s:sample-count=10", spec, kv, name)
		}
		if !contains(SpecKeys, k) {
			msg := fmt.Sprintf("algorithm %q: unknown parameter %q", spec, k)
			if near := nearest(k, SpecKeys); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
			return fmt.Errorf("%s (parameters: %s)", msg, strings.Join(SpecKeys, ", "))
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

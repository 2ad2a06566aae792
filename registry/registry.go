// Package registry is the one list of the lab's limiters: every family's
// specs with their parameters and capabilities, and the one place that
// turns a spec string into a limiter.
//
// The in-memory families (windows, buckets, Sentinel, breakers, gateways,
// per-key, adaptive) are declared in package algorithms, one line per
// family in its kinds table; the Redis family in package distributed. The
// engine packages (simulator, scenarios, algorithms) never import this one,
// so they link no Redis client: whatever needs every family (the CLI, the
// findings page) asks here.
package registry

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/distributed"
	"github.com/ratelimit-lab/ratelimit-lab/internal/suggest"
	"github.com/ratelimit-lab/ratelimit-lab/spec"
)

// family is one source of specs.
type family struct {
	// list describes its specs, in the order `list` shows them.
	list func() []algorithms.Info
	// owns reports whether a stage name belongs to the family, known or
	// not (so that a misspelt redis-* name gets the Redis family's error);
	// nil for the family that takes every name no other family owns.
	owns func(name string) bool
	// check validates a spec without opening any backend; build makes the
	// limiter.
	check func(s string, limit float64) error
	build func(s string, limit float64, env *Env) (algorithms.Limiter, error)
}

// families is every family, in the order `list` shows them: the in-memory
// ones (their own per-family lines are in algorithms' kinds table, whose
// interleaved order `list` prints), then Redis.
func families() []family {
	return []family{
		{list: algorithms.List, check: checkMemory, build: newMemory},
		{list: distributed.List, owns: distributed.Owns, check: checkRedis, build: newRedis},
	}
}

func checkMemory(s string, limit float64) error {
	_, err := algorithms.New(s, limit)
	return err
}

func newMemory(s string, limit float64, _ *Env) (algorithms.Limiter, error) {
	return algorithms.New(s, limit)
}

func checkRedis(s string, limit float64) error {
	_, err := distributed.Parse(s, limit)
	return err
}

// familyOf is the family a spec belongs to: the one that owns the name of
// its first stage (a chain is built by the family of its first stage,
// which reports any stage it cannot chain).
func familyOf(sp spec.Spec) family {
	fs := families()
	name := sp.Stages[0].Name
	var fallback family
	for _, f := range fs {
		if f.owns == nil {
			fallback = f
			continue
		}
		if f.owns(name) {
			return f
		}
	}
	return fallback
}

// List describes every spec of every family, in a fixed order, for
// `ratelimit-lab list`, --help and the docs index.
func List() []algorithms.Info {
	var out []algorithms.Info
	for _, f := range families() {
		out = append(out, f.list()...)
	}
	return out
}

// Names returns every spec name and alias, sorted.
func Names() []string {
	var names []string
	for _, info := range List() {
		names = append(names, info.Name)
		names = append(names, info.Aliases...)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the spec called name (or one of its aliases), in any
// case, and whether there is one.
func Lookup(name string) (algorithms.Info, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, info := range List() {
		if info.Name == name {
			return info, true
		}
		for _, a := range info.Aliases {
			if a == name {
				return info, true
			}
		}
	}
	return algorithms.Info{}, false
}

// Caps returns the capabilities of a spec string: those of its limiter, or
// for a chain A+B the union of its stages'. Unknown names add none.
func Caps(s string) algorithms.Caps {
	var c algorithms.Caps
	for _, st := range spec.Split(s).Stages {
		if info, ok := Lookup(st.Name); ok {
			c |= info.Caps
		}
	}
	return c
}

// Parse reads a spec string into its typed form and checks its syntax and
// that every stage names a known limiter. It does not check parameter
// values; Check does.
func Parse(s string) (spec.Spec, error) {
	sp, err := spec.Parse(s)
	if err != nil {
		return sp, err
	}
	for _, st := range sp.Stages {
		if _, ok := Lookup(st.Name); !ok {
			return sp, fmt.Errorf("unknown algorithm %q%s; known algorithms: %s", st.Name, suggest.DidYouMean(st.Name, Names()), strings.Join(Names(), ", "))
		}
	}
	return sp, nil
}

// Check validates a spec with limit as the default for a limit it leaves
// out, as New would, without opening any backend: the error is the one
// New returns for a bad spec, word for word (a redis-script's file is read
// and parsed as Lua).
func Check(s string, limit float64) error {
	return familyOf(spec.Split(s)).check(s, limit)
}

// New builds the limiter of a spec with limit as the default for a limit it
// leaves out. A redis-* spec runs on env's Redis backend, opened on the
// first such spec; env may be nil when the run has no Redis session, and
// a redis-* spec is then an error.
func New(s string, limit float64, env *Env) (algorithms.Limiter, error) {
	return familyOf(spec.Split(s)).build(s, limit, env)
}

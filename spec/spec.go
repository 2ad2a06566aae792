// Package spec reads limiter specs: NAME[:key=value,...] for one limiter,
// A+B+… for a chain of them, and key=COLUMN for a per-key limiter. It knows
// the syntax only; which names and keys exist is the registry's business
// (package registry), and what they mean is each family's.
//
// A '+' starts a new stage only when a limiter name follows it (a letter,
// after optional spaces) or nothing does, so "limit=3e+08" stays whole.
package spec

import (
	"fmt"
	"strings"
)

// Spec is a parsed spec: its stages in order, one for a single limiter.
type Spec struct {
	Stages []Stage
}

// Stage is one limiter of a spec: NAME[:key=value,...].
type Stage struct {
	// Text is the stage as written, between the '+' that delimit it.
	Text string
	// Name is the limiter's name, trimmed and lower-cased.
	Name string
	// Rest is what follows the first ':' of the trimmed Text ("" when
	// there is none), as written.
	Rest string
	// Params are Rest's comma-separated parameters (none when Rest is
	// blank).
	Params []Param
}

// Param is one key=value of a stage.
type Param struct {
	// Text is the parameter as written, between its commas.
	Text string
	// Key is the text before the first '=', trimmed and lower-cased;
	// Value the text after it, trimmed.
	Key, Value string
	// OK is false when Text is not key=value: no '=', or an empty key or
	// value.
	OK bool
}

// Split reads s into its stages and parameters without judging it: every
// string splits, and joining the stages' Text with '+' gives s back. Use
// it where a family reports its own errors; Parse checks the syntax too.
func Split(s string) Spec {
	var out Spec
	for _, text := range splitChain(s) {
		out.Stages = append(out.Stages, splitStage(text))
	}
	return out
}

// Parse reads s and checks its syntax: at least one stage, no empty
// stage, every parameter key=value and given once per stage. It does not
// check names or keys against the registry.
func Parse(s string) (Spec, error) {
	sp := Split(s)
	if strings.TrimSpace(s) == "" {
		return sp, fmt.Errorf("empty algorithm spec %q: write NAME[:key=value,...], for example leap-array:sample-count=10", s)
	}
	for _, st := range sp.Stages {
		if st.Name == "" {
			if len(sp.Stages) > 1 {
				return sp, fmt.Errorf("chain %q has an empty stage; write A+B, for example leap-array:limit=100+circuit-breaker:strategy=error-count,threshold=5", s)
			}
			return sp, fmt.Errorf("empty algorithm spec %q: write NAME[:key=value,...], for example leap-array:sample-count=10", s)
		}
		seen := map[string]bool{}
		for _, p := range st.Params {
			if !p.OK {
				return sp, fmt.Errorf("%s: parameter %q is not key=value (for example %s:key=value)", st.Name, strings.TrimSpace(p.Text), st.Name)
			}
			if seen[p.Key] {
				return sp, fmt.Errorf("%s: parameter %q is given twice", st.Name, p.Key)
			}
			seen[p.Key] = true
		}
	}
	return sp, nil
}

// IsChain reports whether s has more than one stage.
func (s Spec) IsChain() bool { return len(s.Stages) > 1 }

// Names returns every stage's name, in order.
func (s Spec) Names() []string {
	names := make([]string, len(s.Stages))
	for i, st := range s.Stages {
		names[i] = st.Name
	}
	return names
}

// String is s in canonical form: names and keys lower-cased, values and
// names trimmed, stages joined by '+'.
func (s Spec) String() string {
	parts := make([]string, len(s.Stages))
	for i, st := range s.Stages {
		parts[i] = st.String()
	}
	return strings.Join(parts, "+")
}

// Get returns the value of the stage's parameter key (the last one given)
// and whether it is there.
func (st Stage) Get(key string) (string, bool) {
	v, ok := "", false
	for _, p := range st.Params {
		if p.OK && p.Key == key {
			v, ok = p.Value, true
		}
	}
	return v, ok
}

// Key returns the key column of key=COLUMN, "" when the stage has none.
func (st Stage) Key() string {
	v, _ := st.Get("key")
	return v
}

// String is the stage in canonical form, NAME or NAME:key=value,...; a
// parameter that is not key=value is written trimmed, as given.
func (st Stage) String() string {
	if len(st.Params) == 0 {
		return st.Name
	}
	kvs := make([]string, len(st.Params))
	for i, p := range st.Params {
		if p.OK {
			kvs[i] = p.Key + "=" + p.Value
		} else {
			kvs[i] = strings.TrimSpace(p.Text)
		}
	}
	return st.Name + ":" + strings.Join(kvs, ",")
}

func splitStage(text string) Stage {
	name, rest, _ := strings.Cut(strings.TrimSpace(text), ":")
	st := Stage{Text: text, Name: strings.ToLower(strings.TrimSpace(name)), Rest: rest}
	if strings.TrimSpace(rest) == "" {
		return st
	}
	for _, kv := range strings.Split(rest, ",") {
		key, val, ok := strings.Cut(kv, "=")
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		st.Params = append(st.Params, Param{Text: kv, Key: key, Value: val, OK: ok && key != "" && val != ""})
	}
	return st
}

// splitChain splits s at each '+' that starts a stage: one followed, after
// spaces, by a letter, by another '+' or by nothing.
func splitChain(s string) []string {
	var parts []string
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '+' {
			continue
		}
		rest := strings.TrimLeft(s[i+1:], " ")
		if rest == "" || rest[0] == '+' || (rest[0]|0x20 >= 'a' && rest[0]|0x20 <= 'z') {
			parts = append(parts, s[last:i])
			last = i + 1
		}
	}
	return append(parts, s[last:])
}

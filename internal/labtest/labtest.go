// Package labtest holds inputs that the tests of several packages share.
package labtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RulesTrace writes a trace with response times and the key columns the
// example rules read (key, ip), seeded, with bursts, ties and idle gaps,
// into a temporary directory of t, and returns its path.
func RulesTrace(t testing.TB) string {
	t.Helper()
	r := rand.New(rand.NewPCG(19, 1))
	var b strings.Builder
	b.WriteString("t_ms,rt_ms,error,key,ip\n")
	ms := 0.0
	for i := 0; i < 6000; i++ {
		switch {
		case i%1500 == 1499:
			ms += 3000 // an idle gap
		case r.IntN(4) > 0:
			ms += r.Float64() * 4
		}
		rt := 5 + r.ExpFloat64()*80
		errv := 0
		if r.IntN(20) == 0 {
			errv = 1
		}
		key := fmt.Sprintf("user-%d", r.IntN(12))
		if r.IntN(10) == 0 {
			key = "vip-42"
		}
		fmt.Fprintf(&b, "%.3f,%.3f,%d,%s,10.0.0.%d\n", ms, rt, errv, key, r.IntN(6))
	}
	path := filepath.Join(t.TempDir(), "trace.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Snapshot returns the content of every file in dir by name.
func Snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

// Unchanged fails t unless dir holds exactly the files of before, byte
// for byte (what an interrupted run must leave of the earlier one); what
// names the interruption in the message.
func Unchanged(t testing.TB, dir string, before map[string]string, what string) {
	t.Helper()
	after := Snapshot(t, dir)
	if len(after) != len(before) {
		var names []string
		for n := range after {
			names = append(names, n)
		}
		t.Fatalf("files after the %s: %v", what, names)
	}
	for name, b := range before {
		if after[name] != b {
			t.Errorf("%s changed", name)
		}
	}
}

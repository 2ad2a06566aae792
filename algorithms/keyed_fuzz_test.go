package algorithms

import (
	"strings"
	"testing"
)

// The per-key limiters' parsers never panic, and what they accept prints
// back to what they parse.
func FuzzParseNginxRate(f *testing.F) {
	for _, s := range []string{"10r/s", "1r/m", "0r/s", "r/s", "-1r/m", "99999999999r/s", "5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseNginxRate(s)
		if err != nil {
			return
		}
		if r <= 0 {
			t.Fatalf("%q parsed to %d", s, r)
		}
		again, err := ParseNginxRate(formatNginxRate(r))
		if err != nil && !strings.HasSuffix(formatNginxRate(r), "mr/s") {
			t.Fatalf("%q → %d → %q does not parse: %v", s, r, formatNginxRate(r), err)
		}
		if err == nil && again != r {
			t.Fatalf("%q → %d → %q → %d", s, r, formatNginxRate(r), again)
		}
	})
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"10m", "32k", "1g", "4096", "", "m", "-1k", "9999999999999g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("%q parsed to %d", s, n)
		}
		if n > 0 {
			if again, err := ParseSize(formatSize(n)); err != nil || again != n {
				t.Fatalf("%q → %d → %q → %d, %v", s, n, formatSize(n), again, err)
			}
		}
	})
}

func FuzzParseItems(f *testing.F) {
	for _, s := range []string{"a:1|b:2", "a:0", "a", ":1", "a:1|a:2", "x:y:3", "a:-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, err := ParseItems(s)
		if err != nil {
			return
		}
		for v, c := range items {
			if v == "" || c < 0 {
				t.Fatalf("%q gave item %q:%d", s, v, c)
			}
		}
	})
}

// Every spec a per-key kind accepts builds a limiter whose spec parses
// back to itself.
func FuzzKeyedSpec(f *testing.F) {
	for _, s := range []string{"nginx-limit-req:rate=1r/s", "sentinel-param:count=3,items=a:1", "token-bucket:rate=1,key=ip,capacity=3", "nginx-limit-req:rate=2r/m,burst=3,delay=1,zone=32k,key=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		l, err := New(spec, 0)
		if err != nil {
			return
		}
		again, err := New(l.Spec(), 0)
		if err != nil {
			t.Fatalf("%q → %q does not parse: %v", spec, l.Spec(), err)
		}
		if again.Spec() != l.Spec() {
			t.Fatalf("%q → %q → %q", spec, l.Spec(), again.Spec())
		}
	})
}

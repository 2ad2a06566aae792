package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestExamplesLoadAndStream(t *testing.T) {
	files, err := filepath.Glob("examples/*.yaml")
	if err != nil || len(files) < 4 {
		t.Fatalf("want at least 4 examples, got %v (%v)", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := LoadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			arr := drain(t, s)
			if len(arr) == 0 {
				t.Fatal("no arrivals")
			}
			for i := 1; i < len(arr); i++ {
				if arr[i].At < arr[i-1].At {
					t.Fatalf("arrival %d out of order", i)
				}
			}
		})
	}
}

func TestExampleContents(t *testing.T) {
	s := mustLoad(t, "examples/boundary.yaml")
	equalTimes(t, times(drain(t, s))[:3], msList(800, 802, 804))
	if s.Phases[1].Start != time.Second || s.Phases[1].Duration != 200*ms || len(drain(t, s)) != 200 {
		t.Fatalf("second burst %+v", s.Phases[1])
	}
	k6 := mustLoad(t, "examples/k6-ramp.yaml")
	if n := len(drain(t, k6)); n != 250+1250+1000+500 {
		t.Fatalf("k6-ramp: %d arrivals, want 3000", n)
	}
	if k6.Duration != 25*time.Second || k6.Phases[1].Start != 5*time.Second || k6.Phases[0].Type != PhaseConstant {
		t.Fatalf("k6-ramp resolved to %+v", k6)
	}
	ntp := mustLoad(t, "examples/clock-step.yaml")
	for _, a := range drain(t, ntp) {
		want := a.At
		if a.At >= 4*time.Second {
			want -= 500 * ms
		}
		if a.At >= 7*time.Second {
			want += 200 * ms
		}
		if a.Clock != want {
			t.Fatalf("arrival at %v has clock %v, want %v", a.At, a.Clock, want)
		}
	}
}

func mustLoad(t *testing.T, path string) Scenario {
	t.Helper()
	s, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func times(arr []Arrival) []time.Duration {
	out := make([]time.Duration, len(arr))
	for i, a := range arr {
		out[i] = a.At
	}
	return out
}

func TestParseDefaults(t *testing.T) {
	s, err := Parse([]byte("limit: 10\nphases:\n  - {type: burst, count: 4, from: 1s}\n  - {type: idle, duration: 1s}\n  - {type: constant, rate: 2, duration: 1s}\n"), "dir/my-file.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "my-file" || s.Seed != 1 || len(s.Algorithms) != 7 {
		t.Fatalf("defaults: name %q seed %d algorithms %v", s.Name, s.Seed, s.Algorithms)
	}
	// Burst at 1 s takes no time; idle 1 s → 2 s; constant 2/s for 1 s;
	// the run ends at 3 s.
	if s.Duration != 3*time.Second || s.Phases[2].Start != 2*time.Second {
		t.Fatalf("duration %v, third phase at %v", s.Duration, s.Phases[2].Start)
	}
	equalTimes(t, times(drain(t, s)), msList(1000, 1000, 1000, 1000, 2000, 2500))

	// A last burst exactly on a second still fits in the default duration.
	s, err = Parse([]byte("limit: 10\nphases: [{type: burst, count: 1, from: 2s}]\n"), "x")
	if err != nil || s.Duration != 3*time.Second {
		t.Fatalf("duration %v, %v", s.Duration, err)
	}
	// timeUnit: 1m makes rate 120 two per second.
	s, err = Parse([]byte("limit: 1\nduration: 1s\nphases: [{type: constant, rate: 120, timeUnit: 1m}]\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	equalTimes(t, times(drain(t, s)), msList(0, 500))
}

func TestParseErrors(t *testing.T) {
	const ok = "limit: 100\nduration: 3s\nphases:\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"empty", "", "f.yaml: the file is empty"},
		{"syntax", "limit: 100\nphases: [\n", "YAML syntax error"},
		{"tab indent", "limit: 100\nphases:\n\t- type: idle\n", "f.yaml:3: YAML syntax error"},
		{"not a mapping", "- 1\n- 2\n", "f.yaml:1: the file is not a mapping"},
		{"two documents", "limit: 1\n---\nlimit: 2\n", "f.yaml:2: a second YAML document"},
		{"unknown top key", "limt: 100\n", `f.yaml:1: unknown key "limt" at the top level; did you mean "limit"?`},
		{"unknown phase key", ok + "  - type: burst\n    coutn: 5\n", `f.yaml:5: unknown key "coutn" in a phase; did you mean "count"?`},
		{"unknown stage key", ok + "  - type: ramping\n    stages: [{traget: 5, duration: 1s}]\n", `f.yaml:5: unknown key "traget" in a stage; did you mean "target"?`},
		{"key twice", "limit: 100\nlimit: 200\n", `f.yaml:2: key "limit" is set twice (first at line 1)`},
		{"missing limit", "phases: [{type: idle, duration: 1s}]\n", "f.yaml:1: limit is missing"},
		{"zero limit", "limit: 0\n", "f.yaml:1: limit 0 is not a positive number"},
		{"limit text", "limit: lots\n", `f.yaml:1: limit: "lots" is not a number`},
		{"limit nan", "limit: .nan\n", "limit NaN is not a positive number"},
		{"duration without unit", "limit: 1\nduration: 10\n", `f.yaml:2: duration: "10" is not a duration; write a Go duration with a unit`},
		{"duration word", "limit: 1\nduration: long\n", `f.yaml:2: duration: "long" is not a duration`},
		{"negative duration", "limit: 1\nduration: -1s\nphases: [{type: idle, duration: 1s}]\n", "f.yaml:2: duration -1s is not positive"},
		{"negative seed", "limit: 1\nseed: -1\n", `f.yaml:2: seed: "-1" is not a whole number of 0 or more`},
		{"fractional seed", "limit: 1\nseed: 1.5\nphases: [{type: idle, duration: 1s}]\n", `f.yaml:2: seed: "1.5" is not a whole number`},
		{"no phases", "limit: 1\nduration: 1s\n", "no phases; add phases:"},
		{"phases not a list", "limit: 1\nphases: {type: idle}\n", "f.yaml:2: phases: a mapping is not a list of phases"},
		{"phase not a mapping", ok + "  - idle\n", "f.yaml:4: a phase is \"idle\", not a mapping"},
		{"no type", ok + "  - rate: 5\n", "f.yaml:4: phase 1 has no type"},
		{"bad type", ok + "  - type: constnt\n    rate: 5\n", `f.yaml:4: unknown phase type "constnt"; did you mean "constant"?`},
		{"key not for type", ok + "  - type: constant\n    rate: 5\n    count: 3\n", `f.yaml:6: key "count" does not apply to a constant phase`},
		{"missing rate", ok + "  - type: poisson\n    duration: 1s\n", "f.yaml:4: this poisson phase has no rate"},
		{"missing count", ok + "  - type: burst\n    from: 1s\n", "f.yaml:4: this burst phase has no count"},
		{"zero rate", ok + "  - type: constant\n    rate: 0\n", "f.yaml:5: rate 0 is not positive"},
		{"negative rate", ok + "  - type: constant\n    rate: -3\n", "f.yaml:5: rate -3 is not positive"},
		{"rate text", ok + "  - {type: constant, rate: fast}\n", `f.yaml:4: rate: "fast" is not a number`},
		{"zero count", ok + "  - {type: burst, count: 0, from: 1s}\n", "count 0 is less than 1"},
		{"fractional count", ok + "  - type: burst\n    count: 2.5\n", `f.yaml:5: count: "2.5" is not a whole number`},
		{"to before from", ok + "  - type: burst\n    count: 5\n    from: 2s\n    to: 1s\n", "f.yaml:7: to 1s is before from 2s"},
		{"to and duration", ok + "  - {type: burst, count: 5, from: 1s, to: 2s, duration: 1s}\n", "both to and duration"},
		{"start and from", ok + "  - {type: burst, count: 5, from: 1s, start: 1s}\n", "both start and from"},
		{"overlapping every", ok + "  - type: burst\n    count: 5\n    duration: 1s\n    every: 100ms\n", "f.yaml:7: every 100ms is shorter than the burst's width"},
		{"until without every", ok + "  - type: burst\n    count: 5\n    until: 2s\n", "f.yaml:6: until only applies to a repeating burst"},
		{"negative start", ok + "  - type: constant\n    rate: 5\n    start: -1s\n", "f.yaml:6: start -1s is negative"},
		{"zero timeUnit", ok + "  - type: constant\n    rate: 5\n    timeUnit: 0s\n", "f.yaml:6: timeUnit 0s is not positive"},
		{"zero phase duration", ok + "  - type: constant\n    rate: 5\n    duration: 0s\n", "f.yaml:6: duration 0s is not positive"},
		{"stages missing", ok + "  - type: ramping\n    startRate: 5\n", "this ramping phase has no stages"},
		{"stage without duration", ok + "  - type: ramping\n    stages:\n      - target: 5\n", "f.yaml:6: stage 1 needs both target and duration"},
		{"negative target", ok + "  - type: ramping\n    stages:\n      - {target: 5, duration: 1s}\n      - {target: -5, duration: 1s}\n", "f.yaml:7: stage 2: target -5 is negative"},
		{"stages take no time", ok + "  - type: ramping\n    stages: [{target: 5, duration: 0s}]\n", "f.yaml:5: the stages last 0s"},
		{"stages not a list", ok + "  - type: ramping\n    stages: 5\n", `f.yaml:5: stages: "5" is not a list of stages`},
		{"clock step offset missing", ok + "  - type: clock-step\n    at: 1s\n", "this clock-step phase has no offset"},
		{"clock before zero", ok + "  - {type: constant, rate: 5}\n  - {type: clock-step, at: 100ms, offset: -1s}\n", "f.yaml:5: at 100ms the limiters' clock would read -900ms"},
		{"zero offset", ok + "  - {type: clock-step, at: 1s, offset: 0s}\n", "offset is 0"},
		{"open-ended without duration", "limit: 1\nphases:\n  - type: constant\n    rate: 5\n", "f.yaml:3: this constant phase has no end and the file has no top-level duration"},
		{"after open-ended", ok + "  - {type: constant, rate: 5}\n  - {type: idle, duration: 1s}\n", "f.yaml:5: phase 2 would start after phase 1, which runs until the scenario's end"},
		{"algorithms not a list", "limit: 1\nalgorithms: token-bucket\n", `f.yaml:2: algorithms: "token-bucket" is not a list`},
		{"empty algorithms", ok + "  - {type: idle, duration: 1s}\nalgorithms: []\n", "f.yaml:5: algorithms is empty"},
		{"unknown algorithm", ok + "  - {type: idle, duration: 1s}\nalgorithms:\n  - fixed-window\n  - token-buckt\n", `f.yaml:7: algorithm "token-buckt": unknown algorithm`},
		{"bad algorithm parameter", ok + "  - {type: idle, duration: 1s}\nalgorithms: [\"leap-array:sample-cout=10\"]\n", `f.yaml:5: algorithm "leap-array:sample-cout=10"`},
		{"too long", "limit: 1\nduration: 10000h\nphases: [{type: idle, duration: 1s}]\n", "f.yaml:2: duration 10000h0m0s is longer than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engineLoader.Parse([]byte(tc.yaml), "f.yaml")
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Fatalf("error is not one line: %q", msg)
			}
			if !strings.HasPrefix(msg, "f.yaml") {
				t.Fatalf("error does not name the file: %q", msg)
			}
			t.Log(msg)
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q, want it to contain %q", msg, tc.want)
			}
		})
	}
}

func TestLoadFileErrors(t *testing.T) {
	_, err := LoadFile(filepath.Join(t.TempDir(), "missing.yaml"))
	if err == nil || !strings.Contains(err.Error(), "missing.yaml: cannot read the scenario file") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v", err)
	}
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("limit: 1\nphase: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = LoadFile(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+":2: unknown key \"phase\"") {
		t.Fatalf("got %v", err)
	}
}

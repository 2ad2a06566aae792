package scenarios

import (
	"reflect"
	"strings"
	"testing"
)

// An alias to a phase, or a merge key into one, reads exactly as the phase
// written out.
func TestYAMLAliasAndMergeKeys(t *testing.T) {
	withAliases := `limit: 100
duration: 4s
phases:
  - &base {type: constant, rate: 50, duration: 1s}
  - *base
  - <<: *base
    rate: 150
  - <<: [{type: burst, count: 7}, {count: 9}]
    from: 3500ms
    to: 3600ms
`
	written := `limit: 100
duration: 4s
phases:
  - {type: constant, rate: 50, duration: 1s}
  - {type: constant, rate: 50, duration: 1s}
  - {type: constant, rate: 150, duration: 1s}
  - {type: burst, count: 7, from: 3500ms, to: 3600ms}
`
	a, err := Parse([]byte(withAliases), "aliases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte(written), "aliases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("aliases read as\n%+v\nwritten out:\n%+v", a, b)
	}
	if n := len(drain(t, a)); n != 50+50+150+7 {
		t.Errorf("%d arrivals, want 257", n)
	}
}

// A merged key that does not apply to the phase's type is still reported,
// at the line where it is written.
func TestYAMLMergeKeyErrors(t *testing.T) {
	_, err := Parse([]byte(`limit: 100
duration: 4s
phases:
  - &c {type: constant, rate: 50, duration: 1s}
  - <<: *c
    type: burst
    count: 5
`), "m.yaml")
	if err == nil || !strings.Contains(err.Error(), `m.yaml:4: key "rate" does not apply to a burst phase`) {
		t.Errorf("error %v", err)
	}
}

// Aliases and merge keys never make Parse panic or fail in more than one
// line, and what it accepts is valid.
func FuzzParseAliases(f *testing.F) {
	for _, seed := range []string{
		"limit: 10\nduration: 2s\nphases:\n  - &a {type: constant, rate: 5, duration: 1s}\n  - *a\n",
		"limit: 10\nduration: 2s\nphases:\n  - &a {type: constant, rate: 5}\n  - <<: *a\n    start: 1s\n",
		"limit: 10\nduration: 2s\nphases:\n  - &a {type: burst, count: 3}\n  - <<: [*a, {from: 1s}]\n",
		"limit: 10\nduration: 2s\nphases: &p [{type: constant, rate: 1}]\n",
		"limit: 10\nduration: 2s\nphases:\n  - <<: *nope\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "fuzz.yaml") {
				t.Fatalf("error not one line naming the file: %q", msg)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted an invalid scenario: %v", err)
		}
	})
}

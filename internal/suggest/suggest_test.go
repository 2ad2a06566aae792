package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"leap-array", "leap-arry", 1}, {"flaw", "lawn", 2},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"fixed-window", "leap-array", "sliding-log", "token-bucket"}
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"leap-arry", "leap-array", true},
		{"Token-Bucket", "token-bucket", true},
		{"sliding", "sliding-log", true},
		{"zzz", "", false},
	} {
		got, ok := Nearest(tc.in, names)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Nearest(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if s := DidYouMean("fixd-window", names); s != ` (did you mean "fixed-window"?)` {
		t.Errorf("DidYouMean = %q", s)
	}
}

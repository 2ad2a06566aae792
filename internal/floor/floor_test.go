package floor

import (
	"strings"
	"testing"
)

// The floor programs decide as a token bucket does: burst 2 at 1 token a
// second lets two of three requests at one instant through, per key, and a
// second later one more.
func TestCSVPerKey(t *testing.T) {
	in := "t_ms,key\n0,a\n0,a\n0,a\n0,b\n1000,a\n1000,a\n"
	res, err := CSVPerKey(strings.NewReader(in), 1, 2)
	if err != nil || res.Lines != 6 || res.Passed != 4 || res.Keys != 2 {
		t.Fatalf("got %+v, %v", res, err)
	}
	if _, err := CSVPerKey(strings.NewReader("t_ms,key\nx,a\n"), 1, 2); err == nil {
		t.Fatal("a bad time was read")
	}
}

func TestLogPerAddress(t *testing.T) {
	line := func(ip, ts string) string {
		return ip + ` - - [` + ts + `] "GET / HTTP/1.1" 200 5 "-" "curl/8.5"` + "\n"
	}
	in := line("10.0.0.1", "30/Nov/2026:10:00:00 +0100") + line("10.0.0.1", "30/Nov/2026:10:00:00 +0100") +
		line("10.0.0.2", "30/Nov/2026:10:00:00 +0100") + line("10.0.0.1", "30/Nov/2026:10:00:01 +0100")
	res, err := LogPerAddress(strings.NewReader(in), 1, 1)
	if err != nil || res.Lines != 4 || res.Passed != 3 || res.Keys != 2 {
		t.Fatalf("got %+v, %v", res, err)
	}
	if _, err := LogPerAddress(strings.NewReader("10.0.0.1 - - [30/Nov/2026 +0100]\n"), 1, 1); err == nil {
		t.Fatal("a bad time was read")
	}
}

// The generated inputs are what the floor programs read: every line
// counted, the keys as drawn.
func TestGeneratedInputs(t *testing.T) {
	var a, b, c strings.Builder
	if err := WriteTraces(&a, &b, 1000, 10); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.String(), "t_ms\n") || strings.Count(a.String(), "\n") != 1001 {
		t.Fatalf("times: %.40q", a.String())
	}
	res, err := CSVPerKey(strings.NewReader(b.String()), 1e9, 1e9)
	if err != nil || res.Lines != 1000 || res.Keys != 10 || res.Passed != 1000 {
		t.Fatalf("keyed: %+v, %v", res, err)
	}
	if err := WriteCombined(&c, 1000); err != nil {
		t.Fatal(err)
	}
	if res, err := LogPerAddress(strings.NewReader(c.String()), 1e9, 1e9); err != nil || res.Lines != 1000 || res.Keys < 900 {
		t.Fatalf("log: %+v, %v", res, err)
	}
}

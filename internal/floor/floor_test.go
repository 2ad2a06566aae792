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

package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCombined writes n combined lines, one a millisecond, from addrs
// distinct client addresses, and returns the file's path.
func writeCombined(t *testing.T, n, addrs int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `10.0.%d.%d - alice [30/Nov/2026:10:00:%02d.%03d +0100] "GET /items/%d HTTP/1.1" 200 512 "-" "curl/8.5"`+"\n",
			(i%addrs)/250, (i%addrs)%250, i/1000%60, i%1000, i%7)
	}
	p := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Reading an access log allocates per stream and per new key, never per
// line (issue 27): 20,000 lines over 10 addresses allocate what 1,000
// lines over 10 addresses do (both past the 200 lines auto-detection
// samples); and ScanLog's pass interns nothing, so 2,000
// distinct addresses cost it no more than 10.
func TestAccessLogReadsWithoutAllocatingPerLine(t *testing.T) {
	o := LogOptions{Keys: []string{"ip"}, User: "user"}
	replay := func(p string) float64 {
		return testing.AllocsPerRun(3, func() {
			st, err := OpenLog(p, "access.log", o)
			if err != nil {
				t.Fatal(err)
			}
			for {
				if _, ok := st.Next(); !ok {
					break
				}
			}
			if st.Err() != nil {
				t.Fatal(st.Err())
			}
			st.Close()
		})
	}
	scan := func(p string) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := ScanLog(p, "access.log", o); err != nil {
				t.Fatal(err)
			}
		})
	}
	if small, large := replay(writeCombined(t, 1000, 10)), replay(writeCombined(t, 20000, 10)); large > small {
		t.Errorf("replay: %v allocations for 20,000 lines, %v for 1,000", large, small)
	}
	if few, many := scan(writeCombined(t, 2000, 10)), scan(writeCombined(t, 2000, 2000)); many > few {
		t.Errorf("ScanLog: %v allocations over 2,000 addresses, %v over 10", many, few)
	}
}

// A JSON-lines log keyed by a nested field, with a user field, allocates
// per stream, not per line, as the combined format does.
func TestJSONLogReadsWithoutAllocatingPerLine(t *testing.T) {
	write := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `{"level":"info","ts":%d.%06d,"request":{"client_ip":"10.0.0.%d","method":"GET","uri":"/v1/items/%d","headers":{"User-Agent":["curl/8.5.0"]}},"user_id":"u%d","duration":0.0021,"status":200}`+"\n",
				1733047200+i/1000, (i%1000)*1000, i%10, i%7, i%3)
		}
		p := filepath.Join(t.TempDir(), "access.json")
		if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	replay := func(p string) float64 {
		return testing.AllocsPerRun(3, func() {
			st, err := OpenLog(p, "access.json", LogOptions{Keys: []string{"request.client_ip"}, User: "user_id"})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				if _, ok := st.Next(); !ok {
					break
				}
				n++
			}
			if st.Err() != nil || n == 0 {
				t.Fatal(n, st.Err())
			}
			st.Close()
		})
	}
	if small, large := replay(write(1000)), replay(write(20000)); large > small {
		t.Errorf("%v allocations for 20,000 lines, %v for 1,000", large, small)
	}
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// README's retry-storm caption says from when none's goodput is 0 to the
// end of the run: the start of the first bin of series.csv after the last
// bin with goodput (it said 11.5 s where series.csv has 8 until 11.55 s).
func TestReadmeRetryStormCaption(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`!\[retry-storm: [^]]*goodput 0 from ([0-9.]+) s to the end`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no retry-storm caption with \"goodput 0 from X s to the end\"")
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := run100(t, nil, "run", "retry-storm", "--algo", "none", "--quiet", "--chart", "none", "--html=false", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	var last int64 = -1
	var bin int64
	for _, r := range csvRows(t, filepath.Join(out, "series.csv")) {
		at := atoi64(t, r["bin_start_ms"])
		if bin == 0 && at > 0 {
			bin = at
		}
		if atoi64(t, r["goodput"]) > 0 {
			last = at
		}
	}
	if want := strconv.FormatFloat(float64(last+bin)/1000, 'f', -1, 64); string(m[1]) != want {
		t.Errorf("README says goodput 0 from %s s; series.csv's last bin with goodput starts at %d ms, so from %s s", m[1], last, want)
	}
}

package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// priority-mix end to end: summary.json's priority figures, series.csv's
// borrowed column and decisions.csv's priority column tell the same story,
// and the rows that ignore priority borrow nothing.
func TestRunPriorityMix(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, code := binary(t, "run", "priority-mix", "--decisions", "--chart", "none", "--quiet", "--out", out)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, "note: 455 prioritized arrivals; passed, prioritized / ordinary: leap-array N=2 100.0% / 53.9% (218") {
		t.Errorf("no priority note:\n%s", stdout)
	}
	var sum struct {
		Algorithms []struct {
			Algorithm string `json:"algorithm"`
			Priority  *struct {
				Arrived, Passed int64
			} `json:"priority"`
			Waited *int64 `json:"waited_for_next_window"`
		} `json:"algorithms"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &sum); err != nil {
		t.Fatal(err)
	}
	borrowed := map[string]int64{}
	lines := strings.Split(strings.TrimSpace(string(readFile(t, filepath.Join(out, "series.csv")))), "\n")
	if !strings.HasSuffix(lines[0], ",borrowed") {
		t.Fatalf("series.csv header %q", lines[0])
	}
	for _, l := range lines[1:] {
		i := strings.LastIndexByte(l, ',')
		n, _ := strconv.ParseInt(l[i+1:], 10, 64)
		spec := strings.Trim(l[:strings.Index(l, "\",")+1], "\"")
		borrowed[spec] += n
	}
	prio := map[string]int64{}
	waited := map[string]int64{}
	dec := strings.Split(strings.TrimSpace(string(readFile(t, filepath.Join(out, "decisions.csv")))), "\n")
	if dec[0] != "algorithm,seq,t_ns,verdict,wait_ns,stage,rt_ns,error,priority" {
		t.Fatalf("decisions.csv header %q", dec[0])
	}
	for _, l := range dec[1:] {
		spec := strings.Trim(l[:strings.Index(l, "\",")+1], "\"")
		f := strings.Split(l[strings.Index(l, "\",")+2:], ",")
		if f[7] == "1" {
			prio[spec]++
			if f[2] == "pass" && f[3] != "0" {
				waited[spec]++
			}
		}
	}
	if len(sum.Algorithms) != 4 {
		t.Fatalf("%d rows", len(sum.Algorithms))
	}
	for _, a := range sum.Algorithms {
		if a.Priority == nil || a.Waited == nil || a.Priority.Arrived != prio[a.Algorithm] || a.Priority.Arrived < 300 {
			t.Fatalf("%s: priority %+v, %d prioritized rows", a.Algorithm, a.Priority, prio[a.Algorithm])
		}
		off := strings.Contains(a.Algorithm, "occupy-timeout=0s")
		if *a.Waited != waited[a.Algorithm] || *a.Waited != borrowed[a.Algorithm] || (*a.Waited == 0) != off {
			t.Errorf("%s: waited_for_next_window %d, %d waited rows, %d borrowed in the series", a.Algorithm, *a.Waited, waited[a.Algorithm], borrowed[a.Algorithm])
		}
	}
}

package main

import (
	encodingcsv "encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// The derived figures of summary.json, each worked out again here from the
// rows they summarize (decisions.csv, series.csv, the scenario's own
// arrivals), with the definitions docs/outputs.md gives, on catalog
// scenarios: the largest sliding window and its end, the overshoot, the
// peak bin, the waits, goodput, recovery, keys and users hurt.

// ranRun runs the command with --decisions into a fresh directory and
// returns it.
func ranRun(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := run100(t, nil, append(append([]string{"run"}, args...), "--decisions", "--quiet", "--out", out)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return out
}

// csvRows reads a CSV file into maps from its header.
func csvRows(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := encodingcsv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// summaryBySpec reads summary.json's algorithms by their spec.
func summaryBySpec(t *testing.T, dir string) (map[string]map[string]any, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Algorithms []map[string]any `json:"algorithms"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	var order []string
	for _, a := range s.Algorithms {
		spec := a["algorithm"].(string)
		out[spec] = a
		order = append(order, spec)
	}
	return out, order
}

func num(t *testing.T, v any) float64 {
	t.Helper()
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v is not a number", v)
	}
	return f
}

func atoi64(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// nearestRank is the smallest value with at least ⌈p·n⌉ of the sorted
// values at or below it.
func nearestRank(sorted []int64, p float64) int64 {
	k := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(k, 0)]
}

// closeMs reports whether summary's ms value is within 0.05% of ns (waits
// that are not whole ms are stored that precisely; whole ms exactly).
func closeMs(got float64, ns int64) bool {
	want := float64(ns) / 1e6
	if ns%1e6 == 0 {
		return got == want
	}
	return math.Abs(got-want) <= 0.0005*want
}

func TestDerivedFiguresFromDecisions(t *testing.T) {
	dir := ranRun(t, "boundary-burst")
	sum, order := summaryBySpec(t, dir)
	passes := map[string][]int64{} // admission times, ns
	waits := map[string][]int64{}
	for _, r := range csvRows(t, filepath.Join(dir, "decisions.csv")) {
		if r["verdict"] != "pass" {
			continue
		}
		w := atoi64(t, r["wait_ns"])
		passes[r["algorithm"]] = append(passes[r["algorithm"]], atoi64(t, r["t_ns"])+w)
		waits[r["algorithm"]] = append(waits[r["algorithm"]], w)
	}
	seriesPeak := map[string]int64{}
	for _, r := range csvRows(t, filepath.Join(dir, "series.csv")) {
		seriesPeak[r["algorithm"]] = max(seriesPeak[r["algorithm"]], atoi64(t, r["passed"]))
	}
	const window, bin = int64(time.Second), int64(50 * time.Millisecond)
	for _, spec := range order {
		a := sum[spec]
		adm := passes[spec]
		slices.Sort(adm)
		if int64(len(adm)) != int64(num(t, a["passed"])) {
			t.Errorf("%s: %d passes in decisions.csv, passed %v", spec, len(adm), a["passed"])
		}
		// The largest window (t − W, t] over every t: it ends at an
		// admission; its end is the first such t.
		var best, end int64
		lo := 0
		for hi, at := range adm {
			for adm[lo] <= at-window {
				lo++
			}
			if n := int64(hi - lo + 1); n > best {
				best, end = n, at
			}
		}
		if best != int64(num(t, a["max_window_passed"])) || float64(end)/1e6 != num(t, a["max_window_end_ms"]) {
			t.Errorf("%s: largest window %d ending at %v ms; summary %v at %v", spec, best, float64(end)/1e6, a["max_window_passed"], a["max_window_end_ms"])
		}
		over := float64(best) / num(t, a["window_limit"])
		if math.Abs(over-num(t, a["overshoot"])) > 5e-7 {
			t.Errorf("%s: overshoot %v, summary %v", spec, over, a["overshoot"])
		}
		// The peak bin: admissions by 50 ms bin, from decisions.csv and
		// from series.csv's passed column.
		perBin := map[int64]int64{}
		var peak int64
		for _, at := range adm {
			perBin[at/bin]++
			peak = max(peak, perBin[at/bin])
		}
		if peak != int64(num(t, a["peak_bin_passed"])) || peak != seriesPeak[spec] {
			t.Errorf("%s: peak bin %d (series.csv %d), summary %v", spec, peak, seriesPeak[spec], a["peak_bin_passed"])
		}
		ws := waits[spec]
		slices.Sort(ws)
		if len(ws) > 0 && (!closeMs(num(t, a["wait_p50_ms"]), nearestRank(ws, 0.5)) || !closeMs(num(t, a["wait_p99_ms"]), nearestRank(ws, 0.99)) || !closeMs(num(t, a["wait_max_ms"]), ws[len(ws)-1])) {
			t.Errorf("%s: waits p50 %d p99 %d max %d ns; summary %v %v %v", spec, nearestRank(ws, 0.5), nearestRank(ws, 0.99), ws[len(ws)-1], a["wait_p50_ms"], a["wait_p99_ms"], a["wait_max_ms"])
		}
	}
	if len(waits["leaky-bucket:limit=500,interval=1s,max-queue=500ms"]) == 0 || nearestRank(waits["leaky-bucket:limit=500,interval=1s,max-queue=500ms"], 0.99) == 0 {
		t.Error("no waits to check: leaky-bucket queues on boundary-burst")
	}
}

// Goodput is the responses without error or timeout: the passes of
// decisions.csv whose error is 0 (cpu-slowdown has no retries, so every
// attempt is a row), and the sum of series.csv's goodput column. Recovery
// is worked out from series.csv's goodput per bin as docs/outputs.md
// defines it: from the phase's end (20 s), the first one-second window
// within ±10% of the mean over the 10 s before the phase (0-10 s).
func TestGoodputAndRecoveryFromTheFiles(t *testing.T) {
	dir := ranRun(t, "cpu-slowdown", "--algo", "none", "--algo", "gradient2", "--algo", "sentinel-system:cpu=0.9", "--duration", "30s")
	sum, order := summaryBySpec(t, dir)
	good := map[string]int64{}
	for _, r := range csvRows(t, filepath.Join(dir, "decisions.csv")) {
		if r["verdict"] == "pass" && r["error"] == "0" {
			good[r["algorithm"]]++
		}
	}
	bins := map[string][]int64{} // goodput per 50 ms bin from 0
	seriesGood := map[string]int64{}
	for _, r := range csvRows(t, filepath.Join(dir, "series.csv")) {
		at := atoi64(t, r["bin_start_ms"]) / 50
		g := atoi64(t, r["goodput"])
		b := bins[r["algorithm"]]
		for int64(len(b)) <= at {
			b = append(b, 0)
		}
		b[at] = g
		bins[r["algorithm"]] = b
		seriesGood[r["algorithm"]] += g
	}
	checked := 0
	for _, spec := range order {
		a := sum[spec]
		if g := int64(num(t, a["goodput"])); g != good[spec] || g != seriesGood[spec] {
			t.Errorf("%s: goodput %d; decisions.csv %d, series.csv %d", spec, g, good[spec], seriesGood[spec])
		}
		b := bins[spec]
		var base int64
		for i := 0; i < 200; i++ { // 0-10 s
			base += b[i]
		}
		// Per one-second window (20 bins): within ±10% of base/10.
		want := -1.0
		for i := 400; i+20 <= 600; i++ { // windows from 20 s that end by 30 s
			var g int64
			for k := i; k < i+20; k++ {
				if k < len(b) {
					g += b[k]
				}
			}
			if d := float64(g) - float64(base)/10; math.Abs(d) <= 0.1*float64(base)/10 {
				want = float64(i-400) * 50
				break
			}
		}
		got, ok := a["recovery_ms"].(float64)
		switch {
		case want < 0 && a["recovery_ms"] != nil:
			t.Errorf("%s: goodput never back within 10%%, recovery_ms %v", spec, a["recovery_ms"])
		case want >= 0 && (!ok || got != want):
			t.Errorf("%s: recovery %v ms from series.csv, recovery_ms %v", spec, want, a["recovery_ms"])
		case want >= 0:
			checked++
		}
	}
	if checked == 0 {
		t.Error("no row recovered: nothing checked")
	}
}

// Keys and users hurt: the distinct keys (users) of the scenario's own
// arrivals, by seq, that have at least one block in decisions.csv.
func TestKeysAndUsersHurtFromDecisions(t *testing.T) {
	dir := ranRun(t, "nat-office")
	sum, order := summaryBySpec(t, dir)
	sc, err := scenarios.Lookup("nat-office")
	if err != nil {
		t.Fatal(err)
	}
	st, err := sc.Stream()
	if err != nil {
		t.Fatal(err)
	}
	var keyOf, userOf []int32
	for {
		a, ok := st.Next()
		if !ok {
			break
		}
		keyOf, userOf = append(keyOf, a.Keys[0]), append(userOf, a.User)
	}
	keys, users := map[string]map[int32]bool{}, map[string]map[int32]bool{}
	for _, r := range csvRows(t, filepath.Join(dir, "decisions.csv")) {
		if r["verdict"] != "block" {
			continue
		}
		seq := atoi64(t, r["seq"])
		alg := r["algorithm"]
		if keys[alg] == nil {
			keys[alg], users[alg] = map[int32]bool{}, map[int32]bool{}
		}
		keys[alg][keyOf[seq]] = true
		if u := userOf[seq]; u != scenarios.NoKey {
			users[alg][u] = true
		}
	}
	for _, spec := range order {
		a := sum[spec]
		if int(num(t, a["keys_hurt"])) != len(keys[spec]) || int(num(t, a["users_hurt"])) != len(users[spec]) {
			t.Errorf("%s: keys hurt %d, users hurt %d from decisions.csv; summary %v, %v", spec, len(keys[spec]), len(users[spec]), a["keys_hurt"], a["users_hurt"])
		}
		if len(users[spec]) == 0 {
			t.Errorf("%s: no user hurt, nothing checked", spec)
		}
	}
}

package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	labspec "github.com/ratelimit-lab/ratelimit-lab/spec"
)

// fromProduct turns a product value back into the spec's value (the
// inverse of toProduct), for the expected spec.
func fromProduct(v, conv string) string {
	switch conv {
	case "ms":
		return v + "ms"
	case "sec":
		return v + "s"
	}
	return v
}

// newValue picks a different valid value for field f.
func newValue(f Field) string {
	switch {
	case f.Param == "nodelay":
		return "false"
	case f.Unit == "Nr/s or Nr/m":
		n, _ := strconv.Atoi(strings.TrimRight(f.Value, "r/sm"))
		return fmt.Sprintf("%dr/%s", n+7, f.Value[len(f.Value)-1:])
	case f.Param == "unit":
		if f.Value == "minute" {
			return "hour"
		}
		return "minute"
	case strings.HasPrefix(f.Unit, "a duration"):
		d, err := time.ParseDuration(f.Value)
		if err != nil {
			d, _ = time.ParseDuration(strings.TrimSuffix(f.Value, "s") + "s")
		}
		d = d*2 + time.Second
		if f.Unit == convUnit["proto"] {
			return protoDuration(d)
		}
		return springDuration(d)
	}
	x, err := strconv.ParseFloat(f.Value, 64)
	if err != nil {
		return f.Value
	}
	if f.Param == "threshold" && x <= 1 {
		return strconv.FormatFloat(x/2, 'f', -1, 64) // a ratio stays a ratio
	}
	return strconv.FormatFloat(x*2+3, 'f', -1, 64)
}

func fieldConv(_ Rule, f Field) string { return f.conv }

func mustCanon(s string) string {
	c, err := CanonicalSpec(s)
	if err != nil {
		panic(err)
	}
	return c
}

// expectSpec is r's spec with the fields' parameters set to the values.
func expectSpec(r Rule, fields []Field, set map[string]string) string {
	stages := labspec.Split(mustCanon(r.Spec)).Stages
	var parts []string
	for i, st := range stages {
		kv := map[string]string{}
		var keys []string
		for _, p := range st.Params {
			kv[p.Key] = p.Value
			keys = append(keys, p.Key)
		}
		for _, f := range fields {
			if v, ok := set[f.Name]; ok && f.Stage == i && f.Param == "duration" && st.Name == "sentinel-param" {
				// capacity defaults to min(4000·durationInSec, 200000)
				old, _ := time.ParseDuration(kv["duration"])
				if kv["capacity"] == strconv.FormatInt(min(4000*int64(old/time.Second), 200000), 10) {
					n, _ := strconv.ParseInt(v, 10, 64)
					kv["capacity"] = strconv.FormatInt(min(4000*n, 200000), 10)
				}
			}
		}
		for _, f := range fields {
			if v, ok := set[f.Name]; ok && f.Stage == i {
				if f.Param == "nodelay" && v == "false" {
					delete(kv, "nodelay")
					continue
				}
				if _, ok := kv[f.Param]; !ok {
					keys = append(keys, f.Param)
				}
				kv[f.Param] = fromProduct(v, fieldConv(r, f))
			}
		}
		var ps []string
		for _, k := range keys {
			if v, ok := kv[k]; ok {
				ps = append(ps, k+"="+v)
			}
		}
		parts = append(parts, st.Name+":"+strings.Join(ps, ","))
	}
	return mustCanon(strings.Join(parts, "+"))
}

// TestPatchRealFiles: on the examples and the real-shaped gateway files,
// every tunable field of every rule is set to a new value, one field at a
// time and all of a rule's fields at once; the patched file differs from
// the original only on the lines of those values, each line being the old
// one with the old value replaced by the new, and the rule read back is
// the original spec with those parameters changed.
func TestPatchRealFiles(t *testing.T) {
	files, _ := filepath.Glob("../examples/rules/*")
	real, _ := filepath.Glob("testdata/real/gw-*")
	files = append(files, real...)
	files = append(files, "testdata/real/traefik-dynamic.toml", "testdata/real/resilience4j-limiters.yml", "testdata/real/sentinel-go-datasource-flow.json", "testdata/real/sentinel-dashboard-entities.json")
	fieldsSeen, rulesSeen := 0, 0
	for _, file := range files {
		if strings.HasSuffix(file, ".golden") || strings.HasSuffix(file, "limits.conf") {
			continue
		}
		if _, err := os.Stat(file); err != nil {
			continue
		}
		sets, err := LoadFiles([]string{file}, "", Options{})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, s := range sets {
			for _, r := range s.Rules {
				fields := TunableFields(r)
				if len(fields) == 0 {
					continue
				}
				rulesSeen++
				all := map[string]string{}
				for _, f := range fields {
					v := newValue(f)
					all[f.Name] = v
					fieldsSeen++
					checkPatch(t, r, fields, map[string]string{f.Name: v})
				}
				checkPatch(t, r, fields, all)
			}
		}
	}
	if rulesSeen < 15 || fieldsSeen < 40 {
		t.Fatalf("patched only %d fields of %d rules; the files changed?", fieldsSeen, rulesSeen)
	}
}

func checkPatch(t *testing.T, r Rule, fields []Field, set map[string]string) {
	t.Helper()
	out, up, err := PatchFiles(r, set)
	if err != nil {
		t.Errorf("%s (%s) set %v: %v", r.Name, r.Source, set, err)
		return
	}
	if want := expectSpec(r, fields, set); mustCanon(up.Spec) != want {
		t.Errorf("%s (%s) set %v: reads back as %s, want %s", r.Name, r.Source, set, mustCanon(up.Spec), want)
	}
	// SetFor inverts Patch: the assignment that makes r run as the
	// re-read spec patches to the same bytes.
	again, err := SetFor(r, up.Spec)
	if err != nil {
		t.Errorf("%s: SetFor(%s): %v", r.Name, up.Spec, err)
	} else if out2, _, err := PatchFiles(r, again); err != nil || len(out2) != len(out) || string(out2[0].Data) != string(out[0].Data) {
		t.Errorf("%s: SetFor(%s) = %v patches differently from %v (%v)", r.Name, up.Spec, again, set, err)
	}
	for _, pf := range out {
		orig, err := os.ReadFile(pf.File)
		if err != nil {
			t.Fatal(err)
		}
		ol, nl := strings.Split(string(orig), "\n"), strings.Split(string(pf.Data), "\n")
		inserted := len(nl) - len(ol)
		changed := 0
		for i, j := 0, 0; i < len(ol) || j < len(nl); {
			if i < len(ol) && j < len(nl) && ol[i] == nl[j] {
				i++
				j++
				continue
			}
			changed++
			if inserted > 0 && (i >= len(ol) || !lineHasNew(ol[i], nl[j], fields, set)) {
				if parentLine(nl[j], set) {
					changed--
				} else if !lineInserts(nl[j], set) {
					t.Errorf("%s: %s: inserted line %q sets none of %v", r.Name, pf.File, nl[j], set)
				}
				inserted--
				j++
				continue
			}
			if i >= len(ol) || j >= len(nl) || !lineHasNew(ol[i], nl[j], fields, set) {
				t.Errorf("%s: %s: line %d changed from %q to %q, which is not one of %v", r.Name, pf.File, i+1, at(ol, i), at(nl, j), set)
				return
			}
			i++
			j++
		}
		if changed > len(set) {
			t.Errorf("%s: %s: %d lines changed for %d fields", r.Name, pf.File, changed, len(set))
		}
	}
}

func at(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return "(end)"
}

// lineHasNew: nl is ol with some field's old value replaced by its new one
// (nginx: a limit_req line may change several arguments).
func lineHasNew(ol, nl string, fields []Field, set map[string]string) bool {
	for _, f := range fields {
		v, ok := set[f.Name]
		if !ok {
			continue
		}
		if strings.Contains(ol, "limit_req") && strings.Contains(nl, "limit_req") {
			return true
		}
		for _, q := range []string{"", `"`, `'`} {
			if strings.Replace(ol, q+f.Value+q, q+v+q, 1) == nl {
				return true
			}
		}
		leaf := f.Name[strings.LastIndexByte(f.Name, '.')+1:]
		if strings.Contains(ol, leaf) && strings.Contains(nl, v) && strings.Count(nl, ",") == strings.Count(ol, ",") {
			return true
		}
	}
	return false
}

// parentLine: an inserted "config:" holding an inserted config.minute.
func parentLine(nl string, set map[string]string) bool {
	for k := range set {
		if i := strings.LastIndexByte(k, '.'); i >= 0 && strings.TrimSpace(nl) == k[:i]+":" {
			return true
		}
	}
	return false
}

func lineInserts(nl string, set map[string]string) bool {
	for k, v := range set {
		leaf := k[strings.LastIndexByte(k, '.')+1:]
		if strings.Contains(nl, leaf) && strings.Contains(nl, v) {
			return true
		}
	}
	return false
}

// TestPatchNginxIncludes: the zone's rate is in the included limits.conf,
// the burst in nginx.conf's location: Patch refuses two files in one
// line, PatchFiles writes both and the configuration reads back with both.
func TestPatchNginxIncludes(t *testing.T) {
	rs, err := Load("../examples/rules/nginx.conf", "")
	if err != nil {
		t.Fatal(err)
	}
	r := rs[slices.IndexFunc(rs, func(r Rule) bool { return strings.Contains(r.Name, "/api/") })]
	set := map[string]string{"perip.rate": "25r/s", "perip.burst": "40"}
	if _, _, _, err := Patch(r, set); err == nil || !strings.Contains(err.Error(), "2 files") {
		t.Fatalf("Patch over two files: %v, want an error naming 2 files", err)
	}
	out, up, err := PatchFiles(r, set)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || filepath.Base(out[0].File) != "limits.conf" && filepath.Base(out[1].File) != "limits.conf" {
		t.Fatalf("patched %d files, want limits.conf and nginx.conf", len(out))
	}
	want := "nginx-limit-req:rate=25r/s,burst=40,nodelay=true,zone=10m,key=ip+nginx-limit-req:rate=500r/s,burst=100,zone=1m,key=*"
	if up.Spec != want {
		t.Errorf("re-read spec %s, want %s", up.Spec, want)
	}
	if !strings.Contains(string(out[0].Data)+string(out[1].Data), "limit_req zone=perip burst=40 nodelay;") {
		t.Errorf("the limit_req line is not patched in place:\n%s", out[1].Data)
	}
	// nodelay off and a delay, in the location only.
	f, b, up, err := Patch(r, map[string]string{"perip.delay": "5"})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(f) != "nginx.conf" || !strings.Contains(string(b), "limit_req zone=perip burst=20 delay=5;") {
		t.Errorf("delay=5: %s:\n%s", f, b)
	}
	if !strings.HasPrefix(up.Spec, "nginx-limit-req:rate=10r/s,burst=20,delay=5,") {
		t.Errorf("delay=5 reads back as %s", up.Spec)
	}
}

// TestPatchInserts: a field the file leaves out is added beside its
// siblings, at their indentation (resilience4j's backendA takes its values
// from a config; setting limitForPeriod on the instance overrides it).
func TestPatchInserts(t *testing.T) {
	rs, err := Load("../examples/rules/resilience4j.yml", "")
	if err != nil {
		t.Fatal(err)
	}
	r := rs[slices.IndexFunc(rs, func(r Rule) bool { return r.Name == "backendA" })]
	_, b, up, err := Patch(r, map[string]string{"limitForPeriod": "25"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "        baseConfig: default\n        limitForPeriod: 25\n") {
		t.Errorf("limitForPeriod not inserted beside baseConfig:\n%s", b)
	}
	if up.Spec != "resilience4j:limit-for-period=25,refresh-period=1s,timeout=0s" {
		t.Errorf("re-read spec %s", up.Spec)
	}
	// Sentinel JSON: a field missing from a FlowRule object.
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.json")
	if err := os.WriteFile(p, []byte("[\n  {\n    \"resource\": \"a\",\n    \"count\": 10,\n    \"controlBehavior\": 2\n  }\n]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err = Load(p, "")
	if err != nil {
		t.Fatal(err)
	}
	_, b, up, err = Patch(rs[0], map[string]string{"maxQueueingTimeMs": "800", "count": "12.5"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[\n  {\n    \"resource\": \"a\",\n    \"count\": 12.5,\n    \"controlBehavior\": 2,\n    \"maxQueueingTimeMs\": 800\n  }\n]\n"; string(b) != want {
		t.Errorf("patched JSON:\n%s\nwant:\n%s", b, want)
	}
	if up.Spec != "leaky-bucket:limit=12.5,max-queue=800ms" {
		t.Errorf("re-read spec %s", up.Spec)
	}
}

// TestPatchTOML: Traefik's TOML is patched in its table: values in place
// (quotes kept), missing keys after the table's last key.
func TestPatchTOML(t *testing.T) {
	const file = "testdata/real/traefik-dynamic.toml"
	rs, err := Load(file, "")
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(file)
	_, b, up, err := Patch(rs[1], map[string]string{"burst": "7", "period": "2m", "average": "9"})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(orig), "    average = 5\n", "    average = 9\n    burst = 7\n    period = \"2m\"\n", 1)
	if string(b) != want {
		t.Errorf("patched:\n%s\nwant:\n%s", b, want)
	}
	if up.Spec != "traefik:average=9,period=120s,burst=7,key=ip" {
		t.Errorf("re-read spec %s", up.Spec)
	}
	_, b, _, err = Patch(rs[0], map[string]string{"period": "30s"})
	if err != nil || string(b) != strings.Replace(string(orig), `period = "1m"`, `period = "30s"`, 1) {
		t.Errorf("period in place: %v\n%s", err, b)
	}
}

// TestPatchRefuses: unknown fields, values the product refuses, TOML.
func TestPatchRefuses(t *testing.T) {
	rs, err := Load("../examples/rules/traefik-dynamic.yml", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"rate": "5"}, `no tunable field "rate"; its fields are average, period, burst`},
		{map[string]string{"average": "x"}, "average"},
		{map[string]string{"average": "0"}, "no row"},
		{map[string]string{"average": "5\nburst: 9"}, "spans lines"},
		{nil, "no field to set"},
	} {
		_, _, _, err := Patch(rs[0], c.set)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Patch(%v) = %v, want one line with %q", c.set, err, c.want)
		}
	}
}

// FuzzPatch: whatever value a field is given, Patch either refuses it or
// changes that field's value only: the other lines stay, and every other
// rule of the file reads back with the same spec.
func FuzzPatch(f *testing.F) {
	files := []string{"../examples/rules/traefik-dynamic.yml", "../examples/rules/sentinel-flow-rules.json", "../examples/rules/kong.yaml", "../examples/rules/spring-application.yml", "../examples/rules/envoy-local.yaml", "../examples/rules/resilience4j.yml", "../examples/rules/nginx.conf"}
	for i := range files {
		f.Add(uint8(i), uint8(0), "25")
	}
	f.Add(uint8(1), uint8(0), `5, "grade": 0`)
	f.Add(uint8(1), uint8(0), "0")
	f.Add(uint8(0), uint8(1), "1s # x")
	f.Add(uint8(6), uint8(1), "5 nodelay; limit_req zone=login")
	f.Fuzz(func(t *testing.T, fi, ki uint8, v string) {
		file := files[int(fi)%len(files)]
		sets, err := LoadFiles([]string{file}, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := sets[0].Rules[0]
		fields := TunableFields(r)
		fd := fields[int(ki)%len(fields)]
		out, up, err := PatchFiles(r, map[string]string{fd.Name: v})
		if err != nil {
			return
		}
		for _, pf := range out {
			orig, _ := os.ReadFile(pf.File)
			ol, nl := strings.Split(string(orig), "\n"), strings.Split(string(pf.Data), "\n")
			p, q := 0, 0
			for p < min(len(ol), len(nl)) && ol[p] == nl[p] {
				p++
			}
			for q < min(len(ol), len(nl))-p && ol[len(ol)-1-q] == nl[len(nl)-1-q] {
				q++
			}
			diff := max(len(ol), len(nl)) - p - q
			if diff > 2 {
				t.Fatalf("%s = %q changed %d lines of %s:\n%s", fd.Name, v, diff, pf.File, pf.Data)
			}
		}
		_ = up
		if r.Format == "nginx" || len(out) != 1 {
			return
		}
		after, err := Parse(out[0].File, out[0].Data, r.Format)
		if err != nil {
			t.Fatalf("%s = %q: the patched file does not read back: %v", fd.Name, v, err)
		}
		for _, x := range sets[0].Rules[1:] {
			k := slices.IndexFunc(after, func(y Rule) bool { return y.Name == x.Name && y.Scope == x.Scope })
			if k < 0 || after[k].Spec != x.Spec {
				t.Fatalf("%s = %q on %s changed another rule, %s", fd.Name, v, r.Name, x.Name)
			}
		}
	})
}

// TestPatchRules: several rules patched as one edit, each on the bytes the
// ones before left: a field inserted into the first rule moves the second
// down a line, and the second is still found and patched; every rule
// reads back with its own values, an empty set leaves its rule as it was.
func TestPatchRules(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "flow.json")
	src := "[\n  {\n    \"resource\": \"a\",\n    \"count\": 10,\n    \"controlBehavior\": 2\n  },\n  {\n    \"resource\": \"b\",\n    \"count\": 20\n  },\n  {\n    \"resource\": \"c\",\n    \"count\": 30\n  }\n]\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := Load(p, "")
	if err != nil || len(rs) != 3 {
		t.Fatalf("%d rules, %v", len(rs), err)
	}
	files, ups, err := PatchRules(rs, []map[string]string{{"maxQueueingTimeMs": "800"}, nil, {"count": "35"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "[\n  {\n    \"resource\": \"a\",\n    \"count\": 10,\n    \"controlBehavior\": 2,\n    \"maxQueueingTimeMs\": 800\n  },\n  {\n    \"resource\": \"b\",\n    \"count\": 20\n  },\n  {\n    \"resource\": \"c\",\n    \"count\": 35\n  }\n]\n"
	if len(files) != 1 || files[0].File != p || string(files[0].Data) != want {
		t.Fatalf("patched %d files:\n%s\nwant:\n%s", len(files), files[0].Data, want)
	}
	for i, w := range []string{"leaky-bucket:limit=10,max-queue=800ms", rs[1].Spec, "leap-array:limit=35"} {
		if ups[i].Spec != w {
			t.Errorf("rule %s reads back as %s, want %s", ups[i].Name, ups[i].Spec, w)
		}
	}
	if ups[2].Source != p+":12" { // was line 11
		t.Errorf("rule c's source %s, want its line after the insert", ups[2].Source)
	}

	// nginx: two locations, their zones' rates in an included file.
	rs, err = Load("../examples/rules/nginx.conf", "")
	if err != nil {
		t.Fatal(err)
	}
	files, ups, err = PatchRules(rs, []map[string]string{{"perip.burst": "30", "perserver.rate": "600r/s"}, {"rate": "60r/m", "burst": "5"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range files {
		got[filepath.Base(f.File)] = string(f.Data)
	}
	conf, _ := os.ReadFile("../examples/rules/nginx.conf")
	limits, _ := os.ReadFile("../examples/rules/limits.conf")
	wantConf := strings.Replace(strings.Replace(string(conf), "zone=perip burst=20 nodelay", "zone=perip burst=30 nodelay", 1), "limit_req zone=login;", "limit_req zone=login burst=5;", 1)
	if len(files) != 2 || got["nginx.conf"] != wantConf || got["limits.conf"] == "" {
		t.Fatalf("%d files; nginx.conf:\n%s", len(files), got["nginx.conf"])
	}
	if n := strings.Count(got["limits.conf"], "rate=600r/s") + strings.Count(got["limits.conf"], "rate=60r/m"); n != 2 || len(got["limits.conf"]) != len(limits) {
		t.Errorf("limits.conf:\n%s", got["limits.conf"])
	}
	if !strings.HasPrefix(ups[0].Spec, "nginx-limit-req:rate=10r/s,burst=30,nodelay=true,") || !strings.Contains(ups[0].Spec, "+nginx-limit-req:rate=600r/s,burst=100,") {
		t.Errorf("/api/ reads back as %s", ups[0].Spec)
	}
	if !strings.HasPrefix(ups[1].Spec, "nginx-limit-req:rate=60r/m,burst=5,") {
		t.Errorf("/login reads back as %s", ups[1].Spec)
	}
}

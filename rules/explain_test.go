package rules

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestExplainExamples pins what every example file in examples/rules
// becomes: its detected format, rows, specs and notes.
func TestExplainExamples(t *testing.T) {
	files, err := filepath.Glob("../examples/rules/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	formats := map[string]bool{}
	for _, f := range files {
		if filepath.Base(f) == "limits.conf" {
			continue // included by nginx.conf
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			rules, err := Load(f, "")
			if err != nil {
				t.Fatal(err)
			}
			formats[rules[0].Format] = true
			var b bytes.Buffer
			if err := WriteExplain(&b, filepath.ToSlash(f), rules, 0); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", filepath.Base(f)+".golden")
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./rules -update)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("explain changed (go test ./rules -update to accept):\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
	for _, f := range Formats {
		if !formats[f] {
			t.Errorf("no example of format %s in examples/rules", f)
		}
	}
	_ = strings.TrimSpace
}

// A local_ratelimit filter's descriptors are rows of their own and are
// not read again as bare LocalRateLimits: a filter with a token_bucket and
// two descriptors is three rows, named after the filter, and the filter's
// filter_enabled holds for the descriptors' rows too.
func TestEnvoyLocalDescriptorsOnce(t *testing.T) {
	const desc = "  descriptors:\n    - entries: [{key: client, value: vip}]\n      token_bucket: {max_tokens: 5, tokens_per_fill: 5, fill_interval: 1s}\n    - entries: [{key: ip}]\n      token_bucket: {max_tokens: 2, tokens_per_fill: 2, fill_interval: 1s}\n"
	const head = "name: envoy.filters.http.local_ratelimit\ntyped_config:\n  \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n  stat_prefix: edge\n  token_bucket: {max_tokens: 50, tokens_per_fill: 50, fill_interval: 1s}\n"
	const on = "  filter_enabled: {default_value: {numerator: 100, denominator: HUNDRED}}\n  filter_enforced: {default_value: {numerator: 100, denominator: HUNDRED}}\n"
	for _, c := range []struct {
		name, body    string
		disabledNotes int
	}{
		{"enabled", head + on + desc, 0},
		{"filter_enabled unset", head + desc, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := Parse("envoy.yaml", []byte(c.body), "")
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			notes := 0
			for _, r := range rs {
				names = append(names, r.Name)
				for _, n := range r.Notes {
					if strings.HasPrefix(n, "filter_enabled") {
						notes++
					}
				}
			}
			if want := "edge|edge [client=vip]|edge [ip=*]"; strings.Join(names, "|") != want {
				t.Errorf("rows %q, want %q", strings.Join(names, "|"), want)
			}
			if notes != c.disabledNotes {
				t.Errorf("%d rows say filter_enabled is off, want %d", notes, c.disabledNotes)
			}
		})
	}
}

// A dry-run location is a row of its own with the dry-run note, never
// merged with an enforcing location of the same limits, whether it sets
// limit_req itself or inherits it (and limit_req_dry_run) from the http or
// server block, as ngx_http_limit_req_merge_conf does.
func TestNginxDryRunOwnRow(t *testing.T) {
	const zone = "limit_req_zone $binary_remote_addr zone=a:10m rate=10r/s;\n"
	for _, c := range []struct {
		name, conf string
		want       string // rows as NAME=dry|enforce, in order
	}{
		{"own limit_req", zone + "server { server_name s;\n location / { limit_req zone=a burst=5; }\n location = /x { limit_req zone=a burst=5; limit_req_dry_run on; }\n}\n",
			"s location /=enforce|s location = /x=dry"},
		{"inherited from http", zone + "limit_req zone=a burst=5;\nserver { server_name s;\n location / { }\n location = /x { limit_req_dry_run on; }\n location /y { }\n}\n",
			"s location /, s location /y=enforce|s location = /x=dry"},
		{"dry run from server, off in a location", zone + "server { server_name s; limit_req zone=a burst=5; limit_req_dry_run on;\n location / { }\n location = /x { limit_req_dry_run off; }\n}\n",
			"s location /=dry|s location = /x=enforce"},
		{"dry run from http", zone + "limit_req_dry_run on;\nserver { server_name s;\n location / { limit_req zone=a burst=5 nodelay; }\n location = /x { limit_req zone=a burst=5 nodelay; }\n}\n",
			"s location /, s location = /x=dry"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := Parse("nginx.conf", []byte("http {\n"+c.conf+"}\n"), "")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rs {
				mode := "enforce"
				if r.DryRun {
					mode = "dry"
				}
				got = append(got, r.Name+"="+mode)
				noted := strings.Contains(strings.Join(r.Notes, "|"), "limit_req_dry_run on")
				if noted != r.DryRun {
					t.Errorf("row %q: dry run %t but dry-run note %t (%q)", r.Name, r.DryRun, noted, r.Notes)
				}
			}
			if g := strings.Join(got, "|"); g != c.want {
				t.Errorf("rows %q, want %q", g, c.want)
			}
		})
	}
}

// A Traefik Middleware resource is recognised by its content under both
// API groups, and burst is what Traefik's ratelimiter runs:
// max(burst, 1), 1 when absent; the CRD schema refuses a negative burst.
func TestTraefikMiddleware(t *testing.T) {
	const head = "apiVersion: %s\nkind: Middleware\nmetadata:\n  name: m\nspec:\n  rateLimit:\n    average: 10\n"
	for _, c := range []struct {
		name, body, spec, note, err string
	}{
		{"traefik.io burst 0", fmt.Sprintf(head, "traefik.io/v1alpha1") + "    burst: 0\n", "traefik:average=10,period=1s,burst=1,key=ip", "burst 0: Traefik raises", ""},
		{"containo.us absent burst", fmt.Sprintf(head, "traefik.containo.us/v1alpha1"), "traefik:average=10,period=1s,burst=1,key=ip", "", ""},
		{"burst 7", fmt.Sprintf(head, "traefik.io/v1alpha1") + "    burst: 7\n", "traefik:average=10,period=1s,burst=7,key=ip", "", ""},
		{"CRD negative burst", fmt.Sprintf(head, "traefik.io/v1alpha1") + "    burst: -2\n", "", "", "t.yaml:8: rateLimit field burst: is -2; the Middleware schema requires 0 or more"},
		{"dynamic negative burst", "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 10\n        burst: -2\n", "traefik:average=10,period=1s,burst=1,key=ip", "burst -2: Traefik raises", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := Parse("t.yaml", []byte(c.body), "")
			if c.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 || rs[0].Format != "traefik" || rs[0].Spec != c.spec {
				t.Fatalf("rules %+v, want one traefik row %s", rs, c.spec)
			}
			notes := strings.Join(rs[0].Notes, "|")
			if c.note == "" && strings.Contains(notes, "burst") || c.note != "" && !strings.Contains(notes, c.note) {
				t.Errorf("notes %q, want %q", notes, c.note)
			}
		})
	}
}

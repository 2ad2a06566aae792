package rules

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// nginxGoldens are the nginx configurations of testdata/nginx-* as
// `rules explain` prints them: each case is the --rules arguments (and
// --nginx-prefix) of one command.
var nginxGoldens = []struct {
	name   string
	paths  []string
	prefix string
}{
	// A Debian /etc/nginx: absolute includes, globs, snippets, zones in
	// http and conf.d, limit_req and limit_conn in sites-enabled.
	{"tree", []string{"testdata/nginx-tree/nginx.conf"}, "testdata/nginx-tree"},
	// The http block in one file, a server block in another, given together.
	{"split", []string{"testdata/nginx-split/nginx.conf", "testdata/nginx-split/api.conf"}, ""},
	// conf.d given as a directory: no http block, the files in name order.
	{"confd", []string{"testdata/nginx-confd"}, ""},
	{"conn", []string{"testdata/nginx-conn/nginx.conf"}, ""},
	{"stream", []string{"testdata/nginx-stream/nginx.conf"}, ""},
	{"missing-stock", []string{"testdata/nginx-missing/stock.conf"}, ""},
	// ${var} in a word, a '}' right after a ';', quoted arguments.
	{"syntax", []string{"testdata/nginx-syntax/nginx.conf"}, ""},
	// OpenResty's *_by_lua_block, Lua code with braces in strings and
	// comments (not checked by nginx -t: nginx-light has no Lua module).
	{"openresty", []string{"testdata/nginx-openresty/nginx.conf"}, ""},
}

func TestNginxExplainGolden(t *testing.T) {
	for _, c := range nginxGoldens {
		t.Run(c.name, func(t *testing.T) {
			sets, err := LoadFiles(c.paths, "auto", Options{NginxPrefix: c.prefix})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			for i, s := range sets {
				if i > 0 {
					b.WriteString("\n")
				}
				if err := WriteExplain(&b, s.Name, s.Rules, 0); err != nil {
					t.Fatal(err)
				}
			}
			golden := filepath.Join("testdata", "nginx-golden", c.name+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./rules -run TestNginxExplainGolden -update)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("explain changed (go test ./rules -run TestNginxExplainGolden -update to accept):\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// specsOf maps each rule's name to its spec (or its outcome).
func specsOf(t *testing.T, sets []Set) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range sets {
		for _, r := range s.Rules {
			v := r.Spec
			if !r.Active() {
				v = string(r.Outcome)
			}
			out[r.Name] = v
		}
	}
	return out
}

// The Debian tree's rows, one by one: where each limit comes from, and
// that the tree read as a directory, or without --nginx-prefix, is the
// same configuration.
func TestNginxTree(t *testing.T) {
	want := map[string]string{
		"shop.example.com location /":           "concurrency:limit=10,key=ip",
		"shop.example.com location /api/":       "nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=10m,key=ip+nginx-limit-req:rate=100r/s,burst=50,zone=1m,key=*+concurrency:limit=10,key=ip",
		"shop.example.com location = /login":    "nginx-limit-req:rate=5r/m,burst=3,zone=1m,key=ip+concurrency:limit=10,key=ip",
		"shop.example.com location /downloads/": "concurrency:limit=2,key=ip",
	}
	for _, c := range []struct {
		name   string
		paths  []string
		prefix string
	}{
		{"prefix", []string{"testdata/nginx-tree/nginx.conf"}, "testdata/nginx-tree"},
		{"directory", []string{"testdata/nginx-tree"}, ""},
		{"file beside its includes", []string{"testdata/nginx-tree/nginx.conf"}, ""},
		// conf.d and sites-enabled given too: nginx.conf includes them, so
		// they are read once, where it includes them.
		{"with its includes", []string{"testdata/nginx-tree/nginx.conf", "testdata/nginx-tree/conf.d", "testdata/nginx-tree/sites-enabled"}, "testdata/nginx-tree"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sets, err := LoadFiles(c.paths, "", Options{NginxPrefix: c.prefix})
			if err != nil {
				t.Fatal(err)
			}
			if len(sets) != 1 {
				t.Fatalf("%d configurations, want 1", len(sets))
			}
			if got := specsOf(t, sets); !equalMaps(got, want) {
				t.Errorf("rows:\n got %v\nwant %v", got, want)
			}
			for _, r := range sets[0].Rules {
				if strings.Contains(r.Spec, "concurrency") != r.NeedsResponses {
					t.Errorf("%s: NeedsResponses %t with spec %s", r.Name, r.NeedsResponses, r.Spec)
				}
			}
			if c.name == "with its includes" {
				notes := strings.Join(sets[0].Rules[0].Notes, "\n")
				for _, f := range []string{"conf.d/site-zone.conf is included by testdata/nginx-tree/nginx.conf:50", "sites-enabled/shop.example.com is included by testdata/nginx-tree/nginx.conf:51"} {
					if !strings.Contains(notes, f) {
						t.Errorf("no note %q in:\n%s", f, notes)
					}
				}
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Each file of nginx-refused is refused with the line nginx -t prints
// (TestNginxAgreesWithNginx checks it against nginx itself).
var nginxRefused = map[string]string{
	"if-limit-req.conf":         `"limit_req" directive is not allowed here in testdata/nginx-refused/if-limit-req.conf:12`,
	"limit-except.conf":         `"limit_req" directive is not allowed here in testdata/nginx-refused/limit-except.conf:11`,
	"main-limit-req.conf":       `"limit_req" directive is not allowed here in testdata/nginx-refused/main-limit-req.conf:3`,
	"server-if-limit-conn.conf": `"limit_conn" directive is not allowed here in testdata/nginx-refused/server-if-limit-conn.conf:10`,
	"zone-in-server.conf":       `"limit_req_zone" directive is not allowed here in testdata/nginx-refused/zone-in-server.conf:7`,
}

func TestNginxRefusedWhereNginxRefuses(t *testing.T) {
	files, _ := filepath.Glob("testdata/nginx-refused/*.conf")
	if len(files) != len(nginxRefused) {
		t.Fatalf("%d files in testdata/nginx-refused, %d expected errors", len(files), len(nginxRefused))
	}
	for _, f := range files {
		_, err := LoadFiles([]string{f}, "", Options{})
		want := nginxRefused[filepath.Base(f)]
		if err == nil || !strings.HasPrefix(err.Error(), want+";") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want %s; ...", f, err, want)
		}
	}
}

func TestNginxIncludes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// glob(3) order is byte order over the whole path: "a/b-c/x.conf"
	// before "a/b/x.conf" ('-' < '/'), though Go's Glob lists b first.
	write("sites/b/x.conf", "limit_req_zone $binary_remote_addr zone=second:1m rate=2r/s;\n")
	write("sites/b-c/x.conf", "limit_req_zone $binary_remote_addr zone=first:1m rate=1r/s;\n")
	write("sites/.hidden.conf", "this is not nginx {\n")
	main := write("nginx.conf", "events {}\nhttp {\n include sites/*/x.conf;\n include sites/*.conf;\n include /etc/nginx/none.d/*.conf;\n server { location / { limit_req zone=first; limit_req zone=second; } }\n}\n")
	sets, err := LoadFiles([]string{main}, "", Options{NginxPrefix: dir})
	if err != nil {
		t.Fatal(err)
	}
	r := sets[0].Rules[0]
	if want := "nginx-limit-req:rate=1r/s,zone=1m,key=ip+nginx-limit-req:rate=2r/s,zone=1m,key=ip"; r.Spec != want {
		t.Errorf("spec %s, want %s", r.Spec, want)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{"include sites/*.conf (", "include /etc/nginx/none.d/*.conf (", "matches no file, which nginx accepts"} {
		if !strings.Contains(notes, want) {
			t.Errorf("no note %q in:\n%s", want, notes)
		}
	}
	zones := func(list []*directive) (out []string) {
		for _, d := range allDirectives(list) {
			if d.name == "limit_req_zone" {
				out = append(out, d.args[1])
			}
		}
		return out
	}
	cfgs, err := newNginxLoader(Options{NginxPrefix: dir}).load([]nginxInput{{name: main, data: mustRead(t, main)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := zones(cfgs[0].top); !slices.Equal(got, []string{"zone=first:1m", "zone=second:1m"}) {
		t.Errorf("zones read in order %v, want first then second", got)
	}

	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"missing include that matters", "http {\n  include limits/zones.conf;\n}\n", []string{"loop.conf:2: include \"limits/zones.conf\" cannot be read: no such file (looked at", "--nginx-prefix"}},
		{"includes itself", "http {\n  include loop.conf;\n}\n", []string{"loop.conf:2: include \"loop.conf\" reads", "includes itself"}},
		{"two arguments", "http {\n  include a.conf b.conf;\n}\n", []string{"loop.conf:2: invalid number of arguments in \"include\" directive"}},
		{"a directory", "http {\n  include sites/*;\n}\n", []string{"loop.conf:2: include \"sites/*\" cannot be read", "not a regular file"}},
		{"two http blocks", "events {}\nhttp {}\nhttp {}\n", []string{"\"http\" directive is duplicate in", "loop.conf:3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := write("loop.conf", c.text)
			_, err := LoadFiles([]string{f}, "nginx", Options{NginxPrefix: dir})
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of several lines: %q", err)
			}
		})
	}
}

func mustRead(t *testing.T, f string) []byte {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An absolute include under /etc/nginx is read under --nginx-prefix only
// when the flag is given: a missing file there is an error naming the
// include, never the machine's own /etc/nginx.
func TestNginxPrefixMapsAbsoluteIncludes(t *testing.T) {
	_, err := LoadFiles([]string{"testdata/nginx-missing/matters.conf"}, "", Options{NginxPrefix: "testdata/nginx-missing"})
	want := `testdata/nginx-missing/matters.conf:5: include "/etc/nginx/limits/zones.conf" cannot be read: no such file (looked at testdata/nginx-missing/limits/zones.conf)`
	if err == nil || !strings.HasPrefix(filepath.ToSlash(err.Error()), want) {
		t.Errorf("got %v\nwant %s...", err, want)
	}
	l := &nginxLoader{opts: Options{NginxPrefix: "/copy"}, confDir: "/work/site"}
	for _, c := range []struct {
		name, from string
		want       []string
	}{
		{"/etc/nginx/conf.d/*.conf", "/work/site/nginx.conf", []string{"/copy/conf.d/*.conf"}},
		{"/usr/local/nginx/conf/mime.types", "/work/site/nginx.conf", []string{"/copy/mime.types"}},
		{"/etc/letsencrypt/options-ssl-nginx.conf", "/work/site/nginx.conf", []string{"/etc/letsencrypt/options-ssl-nginx.conf"}},
		{"snippets/a.conf", "/work/site/conf.d/x.conf", []string{"/copy/snippets/a.conf", "/work/site/snippets/a.conf", "/work/site/conf.d/snippets/a.conf"}},
	} {
		if got := slashAll(l.candidates(c.name, c.from)); !slices.Equal(got, c.want) {
			t.Errorf("%s from %s: %v, want %v", c.name, c.from, got, c.want)
		}
	}
	l.opts.NginxPrefix = ""
	if got, want := slashAll(l.candidates("/etc/nginx/conf.d/*.conf", "/work/site/sites/x")), []string{"/work/site/conf.d/*.conf", "/work/site/sites/conf.d/*.conf", "/etc/nginx/conf.d/*.conf"}; !slices.Equal(got, want) {
		t.Errorf("without a prefix: %v, want %v", got, want)
	}
	if _, err := LoadFiles([]string{"testdata/nginx-tree"}, "", Options{NginxPrefix: "testdata/nginx-tree/nginx.conf"}); err == nil || !strings.Contains(err.Error(), "--nginx-prefix testdata/nginx-tree/nginx.conf is not a directory") {
		t.Errorf("a file as --nginx-prefix: %v", err)
	}
}

// limit_conn becomes a concurrency stage as nginx counts it, or a rule
// the lab does not simulate, with why.
func TestNginxLimitConn(t *testing.T) {
	sets, err := LoadFiles([]string{"testdata/nginx-conn/nginx.conf"}, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Rule{}
	for _, r := range sets[0].Rules {
		got[r.Name] = r
	}
	check := func(name, spec string, dry bool, outcome Outcome) {
		t.Helper()
		r, ok := got[name]
		if !ok {
			t.Fatalf("no rule %q in %v", name, slices.Collect(mapKeys(got)))
		}
		if r.Spec != spec || r.DryRun != dry || r.Outcome != outcome {
			t.Errorf("%s: spec %q dry %t outcome %q, want %q %t %q", name, r.Spec, r.DryRun, r.Outcome, spec, dry, outcome)
		}
		if outcome == Translated && !r.NeedsResponses {
			t.Errorf("%s: a limit_conn row needs response times", name)
		}
	}
	// A server level limit_conn replaces http's (ngx_http_limit_conn_merge_conf).
	check("files.example.com", "concurrency:limit=100", false, Translated)
	check("trial.example.com location /", "concurrency:limit=4,key=ip", true, Translated)
	check("trial.example.com location /search", "", false, NotSimulated)
	if why := got["trial.example.com location /search"].Why; !strings.Contains(why, "limit_req_dry_run on but limit_conn_dry_run off") {
		t.Errorf("why: %s", why)
	}
	if len(got) != 3 {
		t.Errorf("%d rules, want 3", len(got))
	}

	sets, err = LoadFiles([]string{"testdata/nginx-stream/nginx.conf"}, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stream *Rule
	for i, r := range sets[0].Rules {
		if r.Outcome == NotSimulated {
			stream = &sets[0].Rules[i]
		}
	}
	if stream == nil || stream.Name != "stream server :5432" || !strings.Contains(stream.Why, "TCP/UDP connections") {
		t.Errorf("stream limit_conn: %+v", stream)
	}

	// A conf.d file with limit_conn alone is told as nginx.
	if rs, err := Parse("conn.conf", []byte("# conf.d/conn.conf\nlimit_conn_zone $binary_remote_addr zone=addr:10m;\nlimit_conn addr 5;\n"), ""); err != nil || rs[0].Format != "nginx" || rs[0].Spec != "concurrency:limit=5,key=ip" {
		t.Errorf("limit_conn alone: %v %+v", err, rs)
	}
	for _, c := range []struct{ conf, want string }{
		{"limit_conn_zone $binary_remote_addr zone=a:1m;\nserver { limit_conn a 0; }\n", "x.conf:2: invalid number of connections \"0\""},
		{"limit_conn_zone $binary_remote_addr zone=a:1m;\nserver { limit_conn a 65536; }\n", "x.conf:2: connection limit must be less 65536"},
		{"server { limit_conn nope 1; }\n", "x.conf:1: limit_conn nope: no limit_conn_zone defines \"nope\""},
		{"limit_conn_zone $binary_remote_addr zone=a:1m;\nserver { limit_conn a 1; limit_conn a 2; }\n", "x.conf:2: \"limit_conn\" directive is duplicate"},
		{"limit_conn_zone $binary_remote_addr zone=a:1m;\nlimit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n", "x.conf:2: zone \"a\" is already declared by limit_conn_zone"},
		{"limit_conn_zone $binary_remote_addr;\n", "x.conf:1: invalid number of arguments in \"limit_conn_zone\" directive"},
		{"limit_conn_zone $binary_remote_addr zone=a:1m;\nlimit_conn_status 302;\nserver { limit_conn a 1; }\n", "x.conf:2: limit_conn_status \"302\" must be a code from 400 to 599"},
	} {
		_, err := Parse("x.conf", []byte(c.conf), "nginx")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s...", c.conf, err, c.want)
		}
	}
}

func mapKeys(m map[string]Rule) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// A directory is its files in name order, leaving out hidden files and
// leftovers; with an nginx.conf, that file first and the others marked
// beside it.
func TestExpandPaths(t *testing.T) {
	got, err := expandPaths([]string{"testdata/nginx-tree", "testdata/nginx-confd", "testdata/nginx-tree/sites-enabled"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		n := filepath.ToSlash(e.path)
		if e.beside {
			n += " (beside)"
		}
		names = append(names, n)
	}
	want := []string{"testdata/nginx-tree/nginx.conf", "testdata/nginx-tree/fastcgi.conf (beside)", "testdata/nginx-tree/mime.types (beside)", "testdata/nginx-tree/proxy_params (beside)",
		"testdata/nginx-confd/00-zones.conf", "testdata/nginx-confd/api.conf",
		"testdata/nginx-tree/sites-enabled/default", "testdata/nginx-tree/sites-enabled/shop.example.com"}
	if !slices.Equal(names, want) {
		t.Errorf("got %q\nwant %q", names, want)
	}
	// A file given by name and by its directory is read once.
	if got, err := expandPaths([]string{"testdata/nginx-tree/nginx.conf", "testdata/nginx-tree"}); err != nil || len(got) != 4 || got[0].beside {
		t.Errorf("nginx.conf twice: %v %v", got, err)
	}
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "site.conf~"), []byte("x"), 0o644)
	if _, err := expandPaths([]string{empty}); err == nil || !strings.Contains(err.Error(), "the directory has no rules file") {
		t.Errorf("empty directory: %v", err)
	}
	// examples/rules: its nginx.conf (which includes limits.conf) and
	// every file of another format, each read alone.
	sets, err := LoadFiles([]string{"../examples/rules"}, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	formats := map[string]int{}
	for _, s := range sets {
		formats[s.Format]++
	}
	if formats["nginx"] != 1 || len(formats) != len(Formats) {
		t.Errorf("examples/rules read as %v; want one nginx configuration and every format", formats)
	}
	// A server block beside an nginx.conf that does not include it joins it.
	sets, err = LoadFiles([]string{"testdata/nginx-split"}, "", Options{})
	if err != nil || len(sets) != 1 || len(sets[0].Files) != 2 || len(sets[0].Rules) != 1 {
		t.Errorf("nginx-split as a directory: %v %+v", err, sets)
	}
}

// Files of other formats are read one by one beside the nginx ones, in
// the order given; nginx files that are two main files stay two
// configurations.
func TestLoadFilesMixed(t *testing.T) {
	sets, err := LoadFiles([]string{"../examples/rules/kong.yaml", "testdata/nginx-conn/nginx.conf", "testdata/nginx-split/nginx.conf", "testdata/nginx-split/api.conf"}, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range sets {
		names = append(names, s.Format+" "+s.Name)
	}
	want := []string{"kong ../examples/rules/kong.yaml", "nginx testdata/nginx-conn/nginx.conf", "nginx testdata/nginx-split/nginx.conf + testdata/nginx-split/api.conf"}
	if !slices.Equal(names, want) {
		t.Errorf("sets %q\nwant %q", names, want)
	}
	// api.conf joins the main file given before it, nginx-conn's, whose
	// http block has no zone "api".
	sets, err = LoadFiles([]string{"testdata/nginx-conn/nginx.conf", "testdata/nginx-split/api.conf", "testdata/nginx-split/nginx.conf"}, "", Options{})
	if err == nil || !strings.Contains(err.Error(), "api.conf:6: limit_req zone=api: no limit_req_zone defines \"api\"") {
		t.Errorf("got %v", err)
	}
	// The zones alone: a fragment, with what to give instead.
	sets, err = LoadFiles([]string{"testdata/nginx-confd/00-zones.conf"}, "", Options{})
	var frag *FragmentError
	if err != nil || len(sets) != 1 || sets[0].Fragment == nil || !errors.As(error(sets[0].Fragment), &frag) || len(frag.Zones) != 2 {
		t.Errorf("fragment: %v %+v", err, sets)
	}
}

// FuzzNginx holds the nginx reader to one-line errors and no panics on
// any text, alone and beside a server block.
func FuzzNginx(f *testing.F) {
	for _, s := range []string{
		"http { limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s; server { location / { limit_req zone=a burst=2; limit_conn c 1; } } limit_conn_zone $x zone=c:1m; }",
		"events {} http { server { if ($x) { limit_req zone=a; } } }",
		"stream { limit_conn_zone $binary_remote_addr zone=t:1m; server { limit_conn t 2; } }",
		"include /etc/nginx/conf.d/*.conf; limit_conn_dry_run On;",
		"location / { limit_except GET { limit_conn a 1; } }",
		"server { location / { return 301 https://${host}${request_uri};} }",
		"server { location / { access_by_lua_block { local s = \"}\" --[==[ { ]==] } limit_req zone=a; } }",
		"http { \"quoted\\\" {\" ; } }",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	main := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(main, []byte("events {}\nhttp {\n limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n}\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	line := regexp.MustCompile(`\n`)
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		frag := filepath.Join(dir, "frag.conf")
		if err := os.WriteFile(frag, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, paths := range [][]string{{frag}, {main, frag}} {
			sets, err := LoadFiles(paths, "nginx", Options{NginxPrefix: dir})
			if err != nil {
				if line.MatchString(err.Error()) {
					t.Fatalf("error of several lines: %q", err)
				}
				continue
			}
			for _, s := range sets {
				for _, r := range s.Rules {
					if r.Active() == (r.Spec == "") {
						t.Fatalf("rule %q: outcome %q with spec %q", r.Name, r.Outcome, r.Spec)
					}
					if !r.Active() && r.Why == "" {
						t.Fatalf("rule %q without a row says not why", r.Name)
					}
				}
			}
		}
	})
}

// The lexer refuses what ngx_conf_read_token refuses after a quoted
// string, and drops the ')' that may follow one, as nginx does.
func TestNginxLexerAfterQuote(t *testing.T) {
	if _, err := Parse("q.conf", []byte("limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\nserver {\n location / { limit_req zone=a; return 200 \"ok\"}\n}\n"), "nginx"); err == nil || !strings.HasPrefix(err.Error(), `q.conf:3: unexpected "}" after a quoted string`) {
		t.Errorf("got %v", err)
	}
	rs, err := Parse("q.conf", []byte("limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\nserver {\n location / { if ($request_method = \"POST\") { return 405; } limit_req zone=a; }\n}\n"), "nginx")
	if err != nil || len(rs) != 1 {
		t.Errorf("if with a quoted operand: %v %v", rs, err)
	}
}

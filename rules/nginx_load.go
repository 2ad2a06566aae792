package rules

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// This file reads an nginx configuration as nginx is deployed: a main
// nginx.conf that includes other files by relative or absolute path and by
// glob, and the files a user gives together with it (conf.d/*.conf, a
// server block beside the http block), combined into one configuration.
//
// nginx's own rules (nginx/nginx, src/core/ngx_conf_file.c):
//   - ngx_conf_include resolves the name with ngx_conf_full_name(cycle,
//     name, 1): a relative name is taken against cycle->conf_prefix, the
//     directory of the main configuration file (src/core/nginx.c,
//     ngx_process_options: the part of -c FILE up to its last '/'), not
//     against the including file's directory. An absolute name is read as
//     it is.
//   - A name with any of * ? [ is a pattern: ngx_open_glob
//     (src/os/unix/ngx_files.c) calls glob(3) with no flags, so the matches
//     come sorted (nginx sets no locale: byte order) and a wildcard does
//     not match a leading '.'; with gl.test set, a pattern that matches
//     nothing (GLOB_NOMATCH) is accepted and reads nothing. A name without
//     a wildcard that cannot be opened fails the configuration.
//   - ngx_conf_handler refuses a directive outside the contexts its
//     command allows with `"NAME" directive is not allowed here in
//     FILE:LINE`: limit_req, limit_conn and their _status, _dry_run and
//     _log_level are NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF
//     (not NGX_HTTP_LIF_CONF or NGX_HTTP_SIF_CONF: not inside if; not
//     NGX_HTTP_LMT_CONF: not inside limit_except), limit_req_zone and
//     limit_conn_zone NGX_HTTP_MAIN_CONF (ngx_http_limit_req_module.c,
//     ngx_http_limit_conn_module.c); the stream module has its own
//     limit_conn and limit_conn_zone (ngx_stream_limit_conn_module.c).
//
// The lab reads copies of the files, so where it looks for an include is
// its own rule (docs/rules.md, "nginx"): see nginxLoader.candidates.

// Options are the settings of LoadFiles.
type Options struct {
	// NginxPrefix is --nginx-prefix: the directory that holds a copy of
	// nginx's configuration directory (/etc/nginx on the server). Relative
	// includes are read there first, and an absolute include under a
	// known configuration root (/etc/nginx, ...) is read there, the root
	// replaced by this directory.
	NginxPrefix string
}

// confRoots are the configuration directories nginx's packages and
// builds use (Debian, Ubuntu, Alpine, the official image and RHEL:
// /etc/nginx; a source build: /usr/local/nginx/conf; FreeBSD and Homebrew:
// /usr/local/etc/nginx, /opt/homebrew/etc/nginx; OpenResty). An absolute
// include under one of them is read under --nginx-prefix, or beside the
// main file.
var confRoots = []string{
	"/etc/nginx", "/usr/local/nginx/conf", "/usr/local/etc/nginx",
	"/opt/homebrew/etc/nginx", "/usr/local/openresty/nginx/conf",
}

// stockIncludes are files nginx's packages ship (conf/ of nginx's source,
// Debian's proxy_params and snippets, certbot's options file) that set
// MIME types, FastCGI/uwsgi/SCGI/proxy parameters, charsets or TLS, never a
// rate limit: a missing one is a note, as its directives would not change
// a decision.
var stockIncludes = []string{
	"mime.types", "fastcgi_params", "fastcgi.conf", "scgi_params", "uwsgi_params",
	"proxy_params", "koi-utf", "koi-win", "win-utf", "fastcgi-php.conf",
	"snakeoil.conf", "options-ssl-nginx.conf", "ssl-params.conf",
}

const maxIncludeDepth = 16

// nginxInput is one file given to the loader.
type nginxInput struct {
	name string
	data []byte
}

// nginxConfig is one configuration: a main file with what it includes,
// and the files given beside it that it does not include.
type nginxConfig struct {
	name  string   // the main file (or the first file, when none has an http block)
	files []string // the files given for it
	top   []*directive
	main  bool     // top is nginx's main context; else the content of an http block
	notes []string // includes that read nothing, files given twice
}

// https returns the lists in http context: each http block's content, or
// the whole top of a configuration that is an http block's content.
func (c *nginxConfig) https() [][]*directive {
	if !c.main {
		return [][]*directive{c.top}
	}
	var out [][]*directive
	for _, d := range c.top {
		if d.name == "http" && d.isBlk {
			out = append(out, d.block)
		}
	}
	return out
}

// httpDirectives lists every directive inside the http context.
func (c *nginxConfig) httpDirectives() []*directive {
	var out []*directive
	for _, h := range c.https() {
		out = append(out, allDirectives(h)...)
	}
	return out
}

type nginxLoader struct {
	opts    Options
	confDir string            // the main file's directory (nginx's conf_prefix)
	read    map[string]string // each file an include read (absolute) -> the include's FILE:LINE
	stack   []string          // files being expanded, outermost first
	notes   []string
}

func newNginxLoader(o Options) *nginxLoader { return &nginxLoader{opts: o} }

// isMain is true for a file whose top level is nginx's main context: it
// has an http, events, stream or mail block.
func isMain(top []*directive) bool {
	for _, d := range top {
		if d.isBlk && (d.name == "http" || d.name == "events" || d.name == "stream" || d.name == "mail") {
			return true
		}
	}
	return false
}

// load parses the given files and groups them into configurations: a file
// with an http (or events, stream, mail) block is a main file and starts
// one; a file without (a server block, conf.d/*.conf, zones) joins the
// main file given before it (or the first main file, when given before
// any), read as if its main file included it at the end of its http
// block; with no main file, all of them are one http block's content, in
// the order given. A file that a main file already includes is read once.
func (l *nginxLoader) load(in []nginxInput) ([]*nginxConfig, error) {
	tops := make([][]*directive, len(in))
	mains := make([]bool, len(in))
	firstMain := -1
	for i, f := range in {
		t, err := parseNginxText(f.name, f.data)
		if err != nil {
			return nil, err
		}
		tops[i], mains[i] = t, isMain(t)
		if mains[i] && firstMain < 0 {
			firstMain = i
		}
	}
	owner := make([]int, len(in)) // the main file each file joins
	cur := firstMain
	for i := range in {
		if mains[i] {
			cur = i
		}
		owner[i] = cur
	}
	var out []*nginxConfig
	for m := range in {
		if firstMain >= 0 && !mains[m] || firstMain < 0 && m > 0 {
			continue
		}
		cfg := &nginxConfig{name: in[m].name, main: firstMain >= 0}
		sub := &nginxLoader{opts: l.opts, confDir: filepath.Dir(in[m].name), read: map[string]string{}}
		if abs, err := filepath.Abs(in[m].name); err == nil {
			sub.stack = []string{abs}
		}
		top, err := sub.expand(tops[m], 0)
		if err != nil {
			return nil, err
		}
		cfg.files = append(cfg.files, in[m].name)
		var extra []*directive
		for i := range in {
			if i == m || owner[i] != owner[m] && firstMain >= 0 {
				continue
			}
			cfg.files = append(cfg.files, in[i].name)
			abs, _ := filepath.Abs(in[i].name)
			if at, ok := sub.read[abs]; ok {
				sub.notes = append(sub.notes, fmt.Sprintf("%s is included by %s and given too; it is read once, where it is included", filepath.ToSlash(in[i].name), at))
				continue
			}
			sub.stack = []string{abs}
			list, err := sub.expand(tops[i], 0)
			if err != nil {
				return nil, err
			}
			extra = append(extra, list...)
		}
		if len(extra) > 0 && cfg.main {
			var h *directive
			for _, d := range top {
				if d.name == "http" && d.isBlk {
					h = d
				}
			}
			if h == nil {
				h = &directive{name: "http", isBlk: true, file: in[m].name, line: 1}
				top = append(top, h)
			}
			h.block = append(h.block, extra...)
			them := "it"
			if len(cfg.files) > 2 {
				them = "them"
			}
			sub.notes = append(sub.notes, fmt.Sprintf("%s: read as if %s included %s at the end of its http block", strings.Join(slashAll(cfg.files[1:]), ", "), filepath.ToSlash(in[m].name), them))
		} else {
			top = append(top, extra...)
		}
		cfg.top = top
		if err := checkPlacement(cfg.top, cfg.main); err != nil {
			return nil, err
		}
		cfg.notes = sub.notes
		out = append(out, cfg)
	}
	return out, nil
}

func slashAll(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.ToSlash(f)
	}
	return out
}

// expand replaces every include directive of list (and of its blocks) by
// the directives of the files it names.
func (l *nginxLoader) expand(list []*directive, depth int) ([]*directive, error) {
	var out []*directive
	for _, d := range list {
		if d.name == "include" && !d.isBlk {
			inc, err := l.include(d, depth)
			if err != nil {
				return nil, err
			}
			out = append(out, inc...)
			continue
		}
		if d.isBlk {
			children, err := l.expand(d.block, depth)
			if err != nil {
				return nil, err
			}
			d.block = children
		}
		out = append(out, d)
	}
	return out, nil
}

// include reads the files an include directive names, as
// ngx_conf_include does: one file, or a pattern's matches in byte order.
func (l *nginxLoader) include(d *directive, depth int) ([]*directive, error) {
	if len(d.args) != 1 {
		return nil, d.errf("invalid number of arguments in \"include\" directive: it takes one file name or pattern, got %d", len(d.args))
	}
	if depth >= maxIncludeDepth {
		return nil, d.errf("includes nest more than %d deep; look for a file that includes itself", maxIncludeDepth)
	}
	name := d.args[0]
	glob := strings.ContainsAny(name, "*?[")
	cands := l.candidates(name, d.file)
	var files []string
	found := false
	for _, c := range cands {
		if glob {
			// A malformed bracket ([ without ]) matches nothing in Go's
			// Glob; glob(3) reads it literally, which matches no file
			// either unless one is named so.
			m, _ := nginxGlob(c)
			if len(m) > 0 {
				files, found = m, true
				break
			}
			continue
		}
		if _, err := os.Stat(c); err == nil {
			files, found = []string{c}, true
			break
		}
	}
	looked := strings.Join(slashAll(cands), ", ")
	if !found {
		switch {
		case glob:
			l.notes = append(l.notes, fmt.Sprintf("include %s (%s) matches no file, which nginx accepts (it reads nothing there); the lab looked at %s", name, d.pos(), looked))
			return nil, nil
		case slices.Contains(stockIncludes, filepath.Base(name)):
			l.notes = append(l.notes, fmt.Sprintf("include %s (%s) is not there (looked at %s); it is a file nginx's packages ship, with no rate-limit directive, so the lab reads on without it", name, d.pos(), looked))
			return nil, nil
		}
		return nil, d.errf("include %q cannot be read: no such file (looked at %s); copy it there, or give --nginx-prefix DIR, the copy of the server's nginx directory (/etc/nginx)", name, looked)
	}
	var out []*directive
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			abs = f
		}
		if slices.Contains(l.stack, abs) {
			return nil, d.errf("include %q reads %s, which is already being read (the file includes itself), so nginx would never finish; remove the include", name, filepath.ToSlash(f))
		}
		data, err := readRulesFile(f)
		if err != nil {
			return nil, d.errf("include %q cannot be read (%s); nginx fails there too, so fix or remove it", name, oneLine(err))
		}
		if _, ok := l.read[abs]; !ok && l.read != nil {
			l.read[abs] = d.pos()
		}
		list, err := parseNginxText(f, data)
		if err != nil {
			return nil, err
		}
		l.stack = append(l.stack, abs)
		list, err = l.expand(list, depth+1)
		l.stack = l.stack[:len(l.stack)-1]
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

// candidates are the paths the lab tries, in order, for an include name:
//   - a relative name: under --nginx-prefix, then the main file's
//     directory (nginx's conf_prefix with -c MAIN), then the including
//     file's directory;
//   - an absolute name under a known configuration root (confRoots): the
//     rest under --nginx-prefix; without it, under the main file's
//     directory, the including file's directory, then the name itself on
//     this machine;
//   - any other absolute name: the name itself.
func (l *nginxLoader) candidates(name, from string) []string {
	var out []string
	add := func(p string) {
		if p = filepath.Clean(p); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slash := filepath.ToSlash(name)
	if !strings.HasPrefix(slash, "/") && !filepath.IsAbs(name) {
		if l.opts.NginxPrefix != "" {
			add(filepath.Join(l.opts.NginxPrefix, name))
		}
		if l.confDir != "" {
			add(filepath.Join(l.confDir, name))
		}
		add(filepath.Join(filepath.Dir(from), name))
		return out
	}
	for _, root := range confRoots {
		rest, ok := strings.CutPrefix(slash, root+"/")
		if !ok {
			continue
		}
		if l.opts.NginxPrefix != "" {
			add(filepath.Join(l.opts.NginxPrefix, filepath.FromSlash(rest)))
			return out
		}
		if l.confDir != "" {
			add(filepath.Join(l.confDir, filepath.FromSlash(rest)))
		}
		add(filepath.Join(filepath.Dir(from), filepath.FromSlash(rest)))
		break
	}
	add(name)
	return out
}

// nginxGlob returns pattern's matches as glob(3) without flags does:
// sorted in byte order over the whole path (nginx runs in the C locale),
// and no wildcard matching a leading '.'.
func nginxGlob(pattern string) ([]string, error) {
	m, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	pc := strings.Split(filepath.ToSlash(pattern), "/")
	var out []string
	for _, f := range m {
		fc := strings.Split(filepath.ToSlash(f), "/")
		hidden := false
		for i := range fc {
			if i < len(pc) && strings.HasPrefix(fc[i], ".") && !strings.HasPrefix(pc[i], ".") {
				hidden = true
			}
		}
		if !hidden {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out, nil
}

// contexts where each rate-limiting directive is allowed (the command
// flags of ngx_http_limit_req_module.c, ngx_http_limit_conn_module.c and
// ngx_stream_limit_conn_module.c).
var allowedIn = map[string][]string{
	"limit_req_zone":       {"http"},
	"limit_req":            {"http", "server", "location"},
	"limit_req_status":     {"http", "server", "location"},
	"limit_req_log_level":  {"http", "server", "location"},
	"limit_req_dry_run":    {"http", "server", "location"},
	"limit_conn_zone":      {"http", "stream"},
	"limit_conn":           {"http", "server", "location", "stream", "stream server"},
	"limit_conn_status":    {"http", "server", "location"},
	"limit_conn_log_level": {"http", "server", "location", "stream", "stream server"},
	"limit_conn_dry_run":   {"http", "server", "location", "stream", "stream server"},
}

// childContext is the context inside a block named name in context ctx;
// "" for a block whose content is not directives (map, geo, types, ...).
func childContext(ctx, name string) string {
	switch name {
	case "map", "geo", "types", "split_clients", "charset_map", "match":
		return ""
	}
	switch ctx {
	case "main":
		switch name {
		case "http", "stream":
			return name
		}
	case "http":
		if name == "server" {
			return "server"
		}
	case "server", "location":
		switch name {
		case "location":
			return "location"
		case "if":
			return "if"
		case "limit_except":
			if ctx == "location" {
				return "limit_except"
			}
		}
	case "stream":
		if name == "server" {
			return "stream server"
		}
	}
	return "other"
}

// checkPlacement refuses a rate-limiting directive where nginx refuses it,
// with the line nginx prints, and a second http block.
func checkPlacement(top []*directive, main bool) error {
	ctx := "http"
	if main {
		ctx = "main"
		var first *directive
		for _, d := range top {
			if d.name == "http" && d.isBlk {
				if first != nil {
					return fmt.Errorf("\"http\" directive is duplicate in %s; nginx takes one http block (the first is at %s), so merge them", d.pos(), first.pos())
				}
				first = d
			}
		}
	}
	return placement(top, ctx)
}

func placement(list []*directive, ctx string) error {
	for _, d := range list {
		if allowed, ok := allowedIn[d.name]; ok && !slices.Contains(allowed, ctx) {
			return fmt.Errorf("\"%s\" directive is not allowed here in %s; nginx refuses it inside %s and takes it only in %s blocks, so move it there", d.name, d.pos(), contextName(ctx), andList(allowed))
		}
		if d.isBlk {
			if c := childContext(ctx, d.name); c != "" {
				if err := placement(d.block, c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// andList joins words as "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func contextName(ctx string) string {
	switch ctx {
	case "main":
		return "the main context (outside http)"
	case "other":
		return "this block"
	}
	return ctx
}

// Set is what LoadFiles reads from one configuration: a rules file, or
// the nginx files given together.
type Set struct {
	// Name is the file, or the nginx files joined with " + ".
	Name string
	// Files are the files read (for nginx, those given; includes aside).
	Files []string
	// Format is the format the files were read as.
	Format string
	// Rules are the rules, when Fragment is nil.
	Rules []Rule
	// Fragment is set for an nginx configuration of limit_req_zone lines
	// and no limit_req: it has no rule (see FragmentError).
	Fragment *FragmentError
}

// pathEntry is one file of the --rules arguments; beside marks a file of
// a directory with an nginx.conf other than that file: it is read only
// when it is a rules file of another format.
type pathEntry struct {
	path   string
	beside bool
}

// expandPaths turns the --rules arguments into files: a file stays; a
// directory is its regular files, sorted by name, without subdirectories,
// hidden files and editor or package-manager leftovers (NAME~, *.bak,
// *.old, *.orig, *.swp, *.dpkg-*, *.rpmnew, *.rpmsave). In a directory
// with an nginx.conf, that file comes first and the others are read only
// when their content is rules (LoadFiles): nginx.conf brings in the nginx
// files it includes, as nginx reads them (read once), and the rest of such
// a directory (/etc/nginx's mime.types, fastcgi_params, koi-utf, ...) is
// no rules file. A file given twice is read once.
func expandPaths(paths []string) ([]pathEntry, error) {
	var out []pathEntry
	seen := map[string]bool{}
	add := func(f string, beside bool) {
		abs, err := filepath.Abs(f)
		if err != nil {
			abs = f
		}
		if !seen[abs] { // a file given twice (by name and in its directory) is read once
			seen[abs] = true
			out = append(out, pathEntry{f, beside})
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot read the rules file (%s); check the path", p, oneLine(err))
		}
		if !st.IsDir() {
			add(p, false)
			continue
		}
		main := filepath.Join(p, "nginx.conf")
		hasMain := isRegular(main)
		if hasMain {
			add(main, false)
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot list the directory (%s); check the path", p, oneLine(err))
		}
		n := 0
		for _, e := range ents { // os.ReadDir sorts by name
			f := filepath.Join(p, e.Name())
			if skipInDir(e.Name()) || !isRegular(f) {
				continue
			}
			n++
			if !(hasMain && e.Name() == "nginx.conf") {
				add(f, hasMain)
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: the directory has no rules file; give a directory with an nginx.conf or rule files, or the files themselves", p)
		}
	}
	return out, nil
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func skipInDir(name string) bool {
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") {
		return true
	}
	for _, s := range []string{".bak", ".orig", ".swp", ".rpmnew", ".rpmsave", ".old"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return strings.Contains(name, ".dpkg-")
}

// LoadFiles reads the --rules arguments (files and directories, see
// ExpandPaths). Every nginx file among them (by content, or all with
// format nginx) combines into configurations as nginx would read them
// (see nginxLoader.load); every other file is read alone by its format.
// The sets come in the order of their first file.
func LoadFiles(paths []string, format string, o Options) ([]Set, error) {
	if o.NginxPrefix != "" {
		if st, err := os.Stat(o.NginxPrefix); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--nginx-prefix %s is not a directory; give the directory that holds the copy of the server's nginx configuration (/etc/nginx there)", o.NginxPrefix)
		}
	}
	entries, err := expandPaths(paths)
	if err != nil {
		return nil, err
	}
	format = strings.ToLower(strings.TrimSpace(format))
	var nginx []nginxInput
	nginxAt := -1
	var sets []Set
	auto := format == "" || format == "auto"
	for _, e := range entries {
		f := e.path
		data, err := readRulesFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot read the rules file (%s); check the path", f, oneLine(err))
		}
		isNginx := format == "nginx" && !e.beside
		if !isNginx {
			detected, derr := Detect(f, data)
			if e.beside && derr != nil {
				continue // beside an nginx.conf and no rules file (mime.types, fastcgi_params, ...)
			}
			isNginx = derr == nil && detected == "nginx" && (auto || e.beside || format == "nginx")
		}
		if isNginx {
			nginx = append(nginx, nginxInput{name: f, data: data})
			if nginxAt < 0 {
				nginxAt = len(sets)
				sets = append(sets, Set{})
			}
			continue
		}
		// Any other file is read alone, every document by its own format
		// unless --rules-format names one (Parse).
		rs, err := Parse(f, data, format)
		if err != nil {
			return nil, err
		}
		sets = append(sets, Set{Name: f, Files: []string{f}, Format: rs[0].Format, Rules: rs})
	}
	if nginxAt < 0 {
		return sets, nil
	}
	ns, err := loadNginx(nginx, o)
	if err != nil {
		return nil, err
	}
	return slices.Concat(sets[:nginxAt], ns, sets[nginxAt+1:]), nil
}

// loadNginx reads nginx files together into one Set per configuration.
func loadNginx(in []nginxInput, o Options) ([]Set, error) {
	cfgs, err := newNginxLoader(o).load(in)
	if err != nil {
		return nil, err
	}
	var out []Set
	for _, c := range cfgs {
		s := Set{Name: strings.Join(slashAll(c.files), " + "), Files: c.files, Format: "nginx"}
		if len(c.files) == 1 {
			s.Name = c.files[0]
		}
		rs, err := c.translate()
		var frag *FragmentError
		switch {
		case errors.As(err, &frag):
			s.Fragment = frag
		case err != nil:
			return nil, err
		case len(rs) == 0:
			return nil, fmt.Errorf("%s: no rate-limiting rule found in this nginx configuration, where the lab reads %s; check that it is the right file", s.Name, formatReads["nginx"])
		}
		for i := range rs {
			rs[i].Format = "nginx"
		}
		s.Rules = rs
		out = append(out, s)
	}
	return out, nil
}

package rules

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// directive is one nginx directive with its arguments and, for a block,
// its children.
type directive struct {
	name  string
	args  []string
	file  string
	line  int
	block []*directive
	isBlk bool
}

func (d *directive) pos() string { return fmt.Sprintf("%s:%d", filepath.ToSlash(d.file), d.line) }

func (d *directive) errf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", d.file, d.line, fmt.Sprintf(format, args...))
}

// nginxLexer splits nginx configuration text into tokens as nginx's
// ngx_conf_read_token does: words, quoted strings, ';', '{', '}', with '#'
// comments to the end of the line.
type nginxLexer struct {
	file string
	src  string
	i    int
	line int
}

type token struct {
	text   string
	line   int
	quoted bool
}

func (l *nginxLexer) next() (token, bool, error) {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '\n':
			l.line++
			l.i++
		case c == ' ' || c == '\t' || c == '\r':
			l.i++
		case c == '#':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
		case c == ';' || c == '{' || c == '}':
			l.i++
			return token{text: string(c), line: l.line}, true, nil
		case c == '"' || c == '\'':
			start := l.line
			l.i++
			var b strings.Builder
			for {
				if l.i >= len(l.src) {
					return token{}, false, fmt.Errorf("%s:%d: a quoted string is not closed; add the closing %c", l.file, start, c)
				}
				ch := l.src[l.i]
				if ch == '\\' && l.i+1 < len(l.src) {
					b.WriteByte(l.src[l.i+1])
					l.i += 2
					continue
				}
				if ch == c {
					l.i++
					break
				}
				if ch == '\n' {
					l.line++
				}
				b.WriteByte(ch)
				l.i++
			}
			// ngx_conf_read_token wants a space, ';' or '{' after a
			// closing quote; a ')' there is dropped (if ($a = "b")).
			if l.i < len(l.src) {
				switch ch := l.src[l.i]; ch {
				case ' ', '\t', '\r', '\n', ';', '{':
				case ')':
					l.i++
				default:
					return token{}, false, fmt.Errorf("%s:%d: unexpected %q after a quoted string, as nginx says; put a space or ';' after the closing quote", l.file, l.line, string(ch))
				}
			}
			return token{text: b.String(), line: start, quoted: true}, true, nil
		default:
			// As ngx_conf_read_token: a word ends at a space, ';' or '{',
			// except a '{' right after '$' (${var}); a '}' inside a word
			// is part of it (it closes a block only where a word starts).
			start := l.i
			for l.i < len(l.src) {
				ch := l.src[l.i]
				if ch == '{' && l.i > start && l.src[l.i-1] == '$' {
					l.i++
					continue
				}
				if ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ';' || ch == '{' || ch == '}' && l.i == start {
					break
				}
				if ch == '\\' && l.i+1 < len(l.src) {
					l.i++
				}
				l.i++
			}
			return token{text: l.src[start:l.i], line: l.line}, true, nil
		}
	}
	return token{}, false, nil
}

// parseNginxText parses one file's text into directives; include
// directives stay in the tree, for nginxLoader.expand to resolve.
func parseNginxText(name string, data []byte) ([]*directive, error) {
	l := &nginxLexer{file: name, src: string(data), line: 1}
	list, closed, err := parseBlock(l, 0)
	if err != nil {
		return nil, err
	}
	if closed {
		return nil, fmt.Errorf("%s:%d: unexpected '}'; remove it or open its block", name, l.line)
	}
	return list, nil
}

func parseBlock(l *nginxLexer, level int) (list []*directive, closed bool, err error) {
	var cur *directive
	for {
		t, ok, err := l.next()
		if err != nil {
			return nil, false, err
		}
		if !ok {
			if cur != nil {
				return nil, false, fmt.Errorf("%s:%d: directive %q has no ';' at its end; add one", l.file, cur.line, cur.name)
			}
			if level > 0 {
				return nil, false, fmt.Errorf("%s:%d: a block is not closed; add '}'", l.file, l.line)
			}
			return list, false, nil
		}
		switch {
		case !t.quoted && t.text == ";":
			if cur == nil {
				return nil, false, fmt.Errorf("%s:%d: unexpected ';'", l.file, t.line)
			}
			list = append(list, cur)
			cur = nil
		case !t.quoted && t.text == "{":
			if cur == nil {
				return nil, false, fmt.Errorf("%s:%d: unexpected '{' without a directive", l.file, t.line)
			}
			if level >= maxBlockDepth {
				return nil, false, fmt.Errorf("%s:%d: blocks nest more than %d deep; close the blocks that are open", l.file, t.line, maxBlockDepth)
			}
			if strings.HasSuffix(cur.name, "_by_lua_block") {
				// OpenResty's lua-nginx-module reads these blocks with
				// its own Lua lexer (ngx_http_lua_directive.c): skip the
				// Lua code to its closing brace.
				if err := l.skipLua(cur); err != nil {
					return nil, false, err
				}
				cur.isBlk = true
				list = append(list, cur)
				cur = nil
				continue
			}
			children, closed, err := parseBlock(l, level+1)
			if err != nil {
				return nil, false, err
			}
			if !closed {
				return nil, false, fmt.Errorf("%s:%d: the %s block is not closed; add '}'", l.file, cur.line, cur.name)
			}
			cur.block, cur.isBlk = children, true
			list = append(list, cur)
			cur = nil
		case !t.quoted && t.text == "}":
			if cur != nil {
				return nil, false, fmt.Errorf("%s:%d: directive %q has no ';' at its end; add one", l.file, cur.line, cur.name)
			}
			if level == 0 {
				return nil, false, fmt.Errorf("%s:%d: unexpected '}'; remove it or open its block", l.file, t.line)
			}
			return list, true, nil
		default:
			if cur == nil {
				cur = &directive{name: t.text, file: l.file, line: t.line}
			} else {
				cur.args = append(cur.args, t.text)
			}
		}
	}
}

// skipLua moves past the Lua code of a *_by_lua_block to the brace that
// closes it, counting braces outside Lua strings ('...', "...",
// [[...]], [==[...]==]) and comments (-- to the end of the line, --[[...]]).
func (l *nginxLexer) skipLua(d *directive) error {
	depth := 1
	longClose := func(at int) (string, int, bool) { // [[ or [=*[ at at
		j := at + 1
		for j < len(l.src) && l.src[j] == '=' {
			j++
		}
		if j < len(l.src) && l.src[j] == '[' {
			return "]" + l.src[at+1:j] + "]", j + 1, true
		}
		return "", 0, false
	}
	skipTo := func(end string, from int) bool {
		k := strings.Index(l.src[from:], end)
		if k < 0 {
			return false
		}
		l.line += strings.Count(l.src[from:from+k+len(end)], "\n")
		l.i = from + k + len(end)
		return true
	}
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '\n':
			l.line++
			l.i++
		case c == '{':
			depth++
			l.i++
		case c == '}':
			depth--
			l.i++
			if depth == 0 {
				return nil
			}
		case c == '"' || c == '\'':
			l.i++
			for l.i < len(l.src) && l.src[l.i] != c && l.src[l.i] != '\n' {
				if l.src[l.i] == '\\' {
					l.i++
				}
				l.i++
			}
			l.i++
		case c == '[':
			if end, from, ok := longClose(l.i); ok {
				if !skipTo(end, from) {
					return d.errf("%s: a Lua long string is not closed; close it with %s", d.name, end)
				}
				continue
			}
			l.i++
		case c == '-' && strings.HasPrefix(l.src[l.i:], "--"):
			if l.i+2 < len(l.src) && l.src[l.i+2] == '[' {
				if end, from, ok := longClose(l.i + 2); ok {
					if !skipTo(end, from) {
						return d.errf("%s: a Lua comment is not closed; close it with %s", d.name, end)
					}
					continue
				}
			}
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
		default:
			l.i++
		}
	}
	return d.errf("the %s block is not closed; add '}'", d.name)
}

// maxBlockDepth bounds how deep blocks nest, so a hostile file cannot
// exhaust the stack.
const maxBlockDepth = 64

// zone is a limit_req_zone, or (conn set) a limit_conn_zone.
type zone struct {
	name, size, rate string
	key              string // trace column, or * for a constant key
	keyExpr          string
	notes            []string
	d                *directive
	used             bool
	conn             bool
}

// limitConf is what ngx_http_limit_req_merge_conf and
// ngx_http_limit_conn_merge_conf keep per level: a level with any
// limit_req (limit_conn) directive replaces its parent's list whole; the
// status and dry-run flags are inherited one by one.
type limitConf struct {
	limits     []*directive
	status     string
	dryRun     string
	conns      []*directive
	connStatus string
	connDryRun string
}

func (c limitConf) inherit(block []*directive) limitConf {
	out := c
	var own, ownConn []*directive
	for _, d := range block {
		switch d.name {
		case "limit_req":
			own = append(own, d)
		case "limit_conn":
			ownConn = append(ownConn, d)
		case "limit_req_status", "limit_req_dry_run", "limit_conn_status", "limit_conn_dry_run":
			if len(d.args) != 1 {
				continue
			}
			switch d.name {
			case "limit_req_status":
				out.status = d.args[0]
			case "limit_req_dry_run":
				out.dryRun = strings.ToLower(d.args[0])
			case "limit_conn_status":
				out.connStatus = d.args[0]
			case "limit_conn_dry_run":
				out.connDryRun = strings.ToLower(d.args[0])
			}
		}
	}
	if own != nil {
		out.limits = own
	}
	if ownConn != nil {
		out.conns = ownConn
	}
	return out
}

func (c limitConf) empty() bool { return len(c.limits) == 0 && len(c.conns) == 0 }

// parseNginx reads one nginx file (with its includes, resolved as
// loadNginx does without --nginx-prefix).
func parseNginx(name string, data []byte) ([]Rule, error) {
	cfg, err := newNginxLoader(Options{}).load([]nginxInput{{name: name, data: data}})
	if err != nil {
		return nil, err
	}
	return cfg[0].translate()
}

// translate turns one configuration into rules: each location (or a
// server without locations) whose merged configuration has limit_req or
// limit_conn becomes a row: a chain of nginx-limit-req stages, one per
// limit_req in order, as nginx checks them, then a concurrency stage per
// limit_conn (ngx_http_limit_req_module's preaccess handler runs before
// ngx_http_limit_conn_module's: both push to the same phase and
// ngx_http_init_phase_handlers installs a phase's handlers in reverse,
// and auto/modules adds limit_conn first).
func (c *nginxConfig) translate() ([]Rule, error) {
	top := c.top
	name := c.name
	zones := map[string]*zone{}     // limit_req_zone
	connZones := map[string]*zone{} // limit_conn_zone
	for _, d := range c.httpDirectives() {
		if d.name != "limit_req_zone" && d.name != "limit_conn_zone" {
			continue
		}
		var z *zone
		var err error
		if d.name == "limit_req_zone" {
			z, err = parseZone(d)
		} else {
			z, err = parseConnZone(d)
		}
		if err != nil {
			return nil, err
		}
		own, other := zones, connZones
		if z.conn {
			own, other = connZones, zones
		}
		if old, dup := own[z.name]; dup {
			return nil, d.errf("%s %q is defined twice (first at %s); nginx refuses a duplicate zone, so rename one", d.name, z.name, old.d.pos())
		}
		if old, dup := other[z.name]; dup {
			return nil, d.errf("zone %q is already declared by %s at %s; nginx refuses one shared memory zone for two uses, so rename one", z.name, old.d.name, old.d.pos())
		}
		own[z.name] = z
	}
	for _, d := range allDirectives(top) {
		if err := checkLimitDirective(d); err != nil {
			return nil, err
		}
	}
	type row struct {
		names []string
		rule  Rule
	}
	var rows []*row
	bySpec := map[string]*row{}
	build := func(label string, conf limitConf) error {
		if conf.empty() {
			return nil
		}
		r, err := nginxRow(label, conf, zones, connZones)
		if err != nil {
			return err
		}
		// A dry-run location never shares a row with an enforcing one:
		// nginx lets all of it through. A rule without a row keeps its own.
		k := fmt.Sprintf("%t %s", r.DryRun, r.Spec)
		if !r.Active() {
			k = "\x00" + label
		}
		if prev, ok := bySpec[k]; ok {
			prev.names = append(prev.names, label)
			return nil
		}
		x := &row{names: []string{label}, rule: r}
		bySpec[k] = x
		rows = append(rows, x)
		return nil
	}
	var locs func(server string, conf limitConf, list []*directive) (bool, error)
	locs = func(server string, conf limitConf, list []*directive) (bool, error) {
		found := false
		for _, d := range list {
			if d.name != "location" || !d.isBlk {
				continue
			}
			found = true
			lc := conf.inherit(d.block)
			label := strings.TrimSpace(server + " location " + strings.Join(d.args, " "))
			if err := build(label, lc); err != nil {
				return false, err
			}
			if _, err := locs(server, lc, d.block); err != nil {
				return false, err
			}
		}
		return found, nil
	}
	for _, h := range c.https() {
		hc := limitConf{}.inherit(h)
		servers := 0
		for _, d := range h {
			if d.name != "server" || !d.isBlk {
				continue
			}
			servers++
			sc := hc.inherit(d.block)
			sname := serverName(d, "server")
			found, err := locs(sname, sc, d.block)
			if err != nil {
				return nil, err
			}
			if !found {
				if err := build(sname, sc); err != nil {
					return nil, err
				}
			}
		}
		if servers == 0 {
			found, err := locs("", hc, h)
			if err != nil {
				return nil, err
			}
			if !found {
				if err := build("http", hc); err != nil {
					return nil, err
				}
			}
		}
	}
	var out []Rule
	for _, r := range rows {
		// Name already says where the row applies (http, a server, a
		// location), so Scope stays empty.
		r.rule.Name = strings.Join(r.names, ", ")
		if len(r.names) > 1 {
			r.rule.Notes = append(r.rule.Notes, fmt.Sprintf("%d locations share these limits; one row stands for all of them", len(r.names)))
		}
		out = append(out, r.rule)
	}
	out = append(out, c.streamRules()...)
	for _, zs := range []map[string]*zone{zones, connZones} {
		for _, zn := range sortedKeys(zs) {
			if z := zs[zn]; !z.used && len(out) > 0 {
				out[0].Notes = append(out[0].Notes, fmt.Sprintf("%s %q at %s: no %s uses it, so it limits nothing", z.d.name, zn, z.d.pos(), strings.TrimSuffix(z.d.name, "_zone")))
			}
		}
	}
	if len(out) > 0 {
		out[0].Notes = append(out[0].Notes, c.notes...)
	}
	if len(out) == 0 && len(zones)+len(connZones) > 0 {
		frag := &FragmentError{File: name, IncludedBy: includers(name)}
		var zs []*zone
		for _, z := range zones {
			zs = append(zs, z)
		}
		for _, z := range connZones {
			zs = append(zs, z)
		}
		slices.SortFunc(zs, func(a, b *zone) int {
			if c := strings.Compare(a.d.file, b.d.file); c != 0 {
				return c
			}
			return a.d.line - b.d.line
		})
		for _, z := range zs {
			frag.Zones = append(frag.Zones, Zone{Name: z.name, Source: z.d.pos(), Text: z.d.name + " " + strings.Join(z.d.args, " "), Key: z.key})
		}
		return nil, frag
	}
	return out, nil
}

// serverName labels a server block by its first server_name, else its
// first listen.
func serverName(d *directive, def string) string {
	name := def
	for _, x := range d.block {
		if x.name == "server_name" && len(x.args) > 0 {
			name = x.args[0]
		} else if x.name == "listen" && len(x.args) > 0 && name == def {
			name = def + " :" + x.args[0]
		}
	}
	return name
}

// streamRules are the limit_conn of stream blocks: the stream module
// (ngx_stream_limit_conn_module) counts TCP/UDP connections, which the
// lab does not replay, so each stream server with one is not simulated.
func (c *nginxConfig) streamRules() []Rule {
	var out []Rule
	for _, s := range c.top {
		if s.name != "stream" || !s.isBlk {
			continue
		}
		var main []*directive
		for _, d := range s.block {
			if d.name == "limit_conn" {
				main = append(main, d)
			}
		}
		for _, d := range s.block {
			if d.name != "server" || !d.isBlk {
				continue
			}
			conns := main
			var own []*directive
			for _, x := range d.block {
				if x.name == "limit_conn" {
					own = append(own, x)
				}
			}
			if own != nil {
				conns = own
			}
			if len(conns) == 0 {
				continue
			}
			var what []string
			for _, x := range conns {
				what = append(what, fmt.Sprintf("limit_conn %s (%s)", strings.Join(x.args, " "), x.pos()))
			}
			label := serverName(d, "stream server")
			out = append(out, Rule{Name: label, Source: conns[0].pos(), What: strings.Join(what, " + "),
				Outcome: NotSimulated,
				Why:     "limit_conn in a stream block limits TCP/UDP connections (ngx_stream_limit_conn_module); the lab replays HTTP requests, so this server has no row"})
		}
	}
	return out
}

// Zone is a limit_req_zone of a file that has no limit_req.
type Zone struct {
	Name, Source string
	Text         string // the directive as written
	Key          string // the trace column its key becomes (* for one state)
}

// FragmentError is an nginx file with limit_req_zone lines and no
// limit_req, as a file that nginx.conf includes in its http block: its zones
// limit nothing until a limit_req names them, so it has no row.
type FragmentError struct {
	File       string
	Zones      []Zone
	IncludedBy []string // the files beside it whose include names it
}

func (e *FragmentError) Error() string {
	names := make([]string, len(e.Zones))
	for i, z := range e.Zones {
		names[i] = z.Name
	}
	return fmt.Sprintf("%s: defines %d limit_req_zone (%s) and no limit_req, so no rule: it is an include fragment; %s",
		e.File, len(e.Zones), strings.Join(names, ", "), e.Fix())
}

// Fix says what to give instead: the file that includes this one.
func (e *FragmentError) Fix() string {
	if len(e.IncludedBy) > 0 {
		return "give the file that includes it instead (" + strings.Join(e.IncludedBy, ", ") + ")"
	}
	return "give the nginx.conf that includes it and has the limit_req lines instead"
}

// includeRE is an include directive's argument in a configuration text.
var includeRE = regexp.MustCompile(`(?m)^[^#\n]*\binclude\s+["']?([^"';\s]+)["']?\s*;`)

// includers lists the *.conf files in file's directory whose include
// directive names file (a name or a glob, relative to the including file),
// so a fragment's error can say which file to give instead.
func includers(file string) []string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil
	}
	siblings, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "*.conf"))
	var out []string
	for _, sib := range siblings {
		if sa, err := filepath.Abs(sib); err != nil || sa == abs {
			continue
		}
		data, err := readRulesFile(sib)
		if err != nil {
			continue
		}
		for _, m := range includeRE.FindAllStringSubmatch(string(data), -1) {
			pattern := m[1]
			if !filepath.IsAbs(pattern) {
				pattern = filepath.Join(filepath.Dir(sib), pattern)
			}
			if pa, err := filepath.Abs(pattern); err == nil {
				if ok, _ := filepath.Match(pa, abs); ok {
					out = append(out, filepath.ToSlash(sib))
					break
				}
			}
		}
	}
	return out
}

func allDirectives(list []*directive) []*directive {
	var out []*directive
	for _, d := range list {
		out = append(out, d)
		out = append(out, allDirectives(d.block)...)
	}
	return out
}

// checkLimitDirective validates limit_req_status and limit_req_dry_run
// where they stand.
func checkLimitDirective(d *directive) error {
	switch d.name {
	case "limit_req_status", "limit_conn_status":
		if len(d.args) != 1 {
			return d.errf("%s takes one status code, got %d arguments", d.name, len(d.args))
		}
		n, err := strconv.Atoi(d.args[0])
		if err != nil || n < 400 || n > 599 {
			return d.errf("%s %q must be a code from 400 to 599, as nginx requires", d.name, d.args[0])
		}
	case "limit_req_dry_run", "limit_conn_dry_run":
		// ngx_conf_set_flag_slot compares without case.
		if len(d.args) != 1 || (!strings.EqualFold(d.args[0], "on") && !strings.EqualFold(d.args[0], "off")) {
			return d.errf("%s takes on or off", d.name)
		}
	case "limit_req_log_level", "limit_conn_log_level":
		if len(d.args) != 1 || !slices.Contains([]string{"info", "notice", "warn", "error"}, d.args[0]) {
			return d.errf("%s takes info, notice, warn or error", d.name)
		}
	}
	return nil
}

// parseZone reads limit_req_zone KEY zone=NAME:SIZE rate=RATE [sync].
func parseZone(d *directive) (*zone, error) {
	if len(d.args) < 3 {
		return nil, d.errf("limit_req_zone needs a key, zone=NAME:SIZE and rate=RATE, e.g. limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s")
	}
	z := &zone{d: d, keyExpr: d.args[0]}
	for _, a := range d.args[1:] {
		switch {
		case strings.HasPrefix(a, "zone="):
			n, size, ok := strings.Cut(strings.TrimPrefix(a, "zone="), ":")
			if !ok || n == "" || size == "" {
				return nil, d.errf("limit_req_zone %q: write zone=NAME:SIZE, e.g. zone=one:10m", a)
			}
			if _, err := parseSize(size); err != nil {
				return nil, d.errf("limit_req_zone %s: %v", a, err)
			}
			z.name, z.size = n, size
		case strings.HasPrefix(a, "rate="):
			r := strings.TrimPrefix(a, "rate=")
			if _, err := parseRate(r); err != nil {
				return nil, d.errf("limit_req_zone %s: %v", a, err)
			}
			z.rate = r
		case a == "sync":
			z.notes = append(z.notes, fmt.Sprintf("not simulated: zone %s: sync (NGINX Plus zone synchronisation); the row is one instance", z.name))
		default:
			return nil, d.errf("limit_req_zone: invalid argument %q; nginx takes zone=NAME:SIZE, rate=Nr/s or Nr/m and sync", a)
		}
	}
	if z.name == "" {
		return nil, d.errf("limit_req_zone has no zone=NAME:SIZE; add one, e.g. zone=one:10m")
	}
	if z.rate == "" {
		return nil, d.errf("limit_req_zone %s has no rate; add rate=Nr/s or rate=Nr/m", z.name)
	}
	z.key, z.notes = nginxKey(z.keyExpr, z.notes)
	return z, nil
}

// nginxKey maps a limit_req_zone key to a trace column: the client address
// to ip, a constant (no variable, or $server_name/$host within one server)
// to one shared state, anything else to the key column.
func nginxKey(expr string, notes []string) (string, []string) {
	switch expr {
	case "$binary_remote_addr", "$remote_addr":
		return "ip", notes
	case "$server_name":
		return "*", append(notes, "key $server_name: constant within one server, so every request shares one state (key=*)")
	}
	if !strings.Contains(expr, "$") {
		return "*", append(notes, fmt.Sprintf("key %q: a constant, so every request shares one state (key=*)", expr))
	}
	return "key", append(notes, fmt.Sprintf("key %q: read from the trace's key column; fill it with the value nginx computes", expr))
}

// parseSize reads an nginx size: bytes, or with k/K or m/M.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	t := strings.ToLower(s)
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1024, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1024*1024, strings.TrimSuffix(t, "m")
	case strings.HasSuffix(t, "g"):
		mult, t = 1024*1024*1024, strings.TrimSuffix(t, "g")
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q is not a size such as 10m, 512k or 65536", s)
	}
	return n * mult, nil
}

// parseRate reads Nr/s or Nr/m as nginx does (whole N, at least 1).
func parseRate(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(s, "r/s"), "r/m")
	if t == s || !(strings.HasSuffix(s, "r/s") || strings.HasSuffix(s, "r/m")) {
		return 0, fmt.Errorf("rate %q must be Nr/s or Nr/m, e.g. 10r/s", s)
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("rate %q must be a whole number of at least 1 per s or per m", s)
	}
	return n, nil
}

// nginxRow builds the chain of one location's limit_req directives, then
// its limit_conn directives.
func nginxRow(label string, conf limitConf, zones, connZones map[string]*zone) (Rule, error) {
	var stages, what, notes, keys []string
	delays := false // a stage delays some requests (burst without nodelay)
	for _, d := range conf.limits {
		var zn, burst, delay string
		nodelay := false
		for _, a := range d.args {
			switch {
			case strings.HasPrefix(a, "zone="):
				zn = strings.TrimPrefix(a, "zone=")
			case strings.HasPrefix(a, "burst="):
				burst = strings.TrimPrefix(a, "burst=")
				if n, err := strconv.Atoi(burst); err != nil || n < 0 {
					return Rule{}, d.errf("limit_req: invalid burst value %q; give a whole number ≥ 0", burst)
				}
			case a == "nodelay":
				nodelay = true
			case strings.HasPrefix(a, "delay="):
				delay = strings.TrimPrefix(a, "delay=")
				if n, err := strconv.Atoi(delay); err != nil || n < 0 {
					return Rule{}, d.errf("limit_req: invalid delay value %q; give a whole number ≥ 0", delay)
				}
			default:
				return Rule{}, d.errf("limit_req: invalid parameter %q; nginx takes zone=NAME, burst=N, nodelay and delay=N", a)
			}
		}
		if zn == "" {
			return Rule{}, d.errf("limit_req has no zone=NAME; add the zone a limit_req_zone defines")
		}
		z, ok := zones[zn]
		if !ok {
			return Rule{}, d.errf("limit_req zone=%s: no limit_req_zone defines %q; give the file that defines it too (the nginx.conf with the http block), or define it there, e.g. limit_req_zone $binary_remote_addr zone=%s:10m rate=10r/s", zn, zn, zn)
		}
		if nodelay && delay != "" {
			return Rule{}, d.errf("limit_req: nodelay and delay=%s cannot both be given; keep one", delay)
		}
		z.used = true
		kv := []string{"rate", z.rate}
		if burst != "" && burst != "0" {
			kv = append(kv, "burst", burst)
		}
		if nodelay {
			kv = append(kv, "nodelay", "true")
		}
		if delay != "" && delay != "0" {
			kv = append(kv, "delay", delay)
		}
		if b, _ := strconv.Atoi(burst); b > 0 && !nodelay {
			if dl, _ := strconv.Atoi(delay); dl < b {
				delays = true
			}
		}
		kv = append(kv, "zone", z.size, "key", z.key)
		stages = append(stages, spec("nginx-limit-req", kv...))
		what = append(what, fmt.Sprintf("limit_req zone=%s (%s)", zn, d.pos()))
		for _, n := range z.notes {
			notes = appendNew(notes, n)
		}
		if z.key != "*" {
			keys = appendNew(keys, z.key)
		}
	}
	if conf.status != "" && len(conf.limits) > 0 {
		notes = append(notes, fmt.Sprintf("limit_req_status %s: the status of a rejection; decisions are the same", conf.status))
	}
	reqDry := len(conf.limits) > 0 && conf.dryRun == "on"
	if reqDry {
		n := "limit_req_dry_run on: nginx lets every request through; the row shows what it would reject (the zone is accounted as usual)"
		if delays {
			n += "; a request the row delays passes at once"
		}
		notes = append(notes, n)
	}
	if len(conf.limits) > 1 {
		notes = append(notes, "several limit_req in one location: earlier zones only check, a rejection anywhere charges nothing, the delay is the largest")
	}
	connStages, connWhat, connNotes, connKeys, err := connStages(conf, connZones)
	if err != nil {
		return Rule{}, err
	}
	stages = append(stages, connStages...)
	what = append(what, connWhat...)
	for _, n := range connNotes {
		notes = appendNew(notes, n)
	}
	for _, k := range connKeys {
		keys = appendNew(keys, k)
	}
	connDry := len(conf.conns) > 0 && conf.connDryRun == "on"
	var src string
	switch {
	case len(conf.limits) > 0:
		src = conf.limits[0].pos()
	case len(conf.conns) > 0:
		src = conf.conns[0].pos()
	}
	r := Rule{Name: label, Source: src, What: strings.Join(what, " + "), Spec: strings.Join(stages, "+"), Notes: notes,
		KeyColumns: keys, DryRun: reqDry || connDry, NeedsResponses: len(conf.conns) > 0}
	if len(conf.limits) > 0 && len(conf.conns) > 0 && reqDry != connDry {
		// One row is enforced or dry run as a whole; nginx here enforces
		// one module and only accounts the other.
		on, off := "limit_req_dry_run", "limit_conn_dry_run"
		if connDry {
			on, off = off, on
		}
		r.Outcome, r.Spec, r.DryRun, r.Why = NotSimulated, "", false, fmt.Sprintf("%s on but %s off in one location: nginx enforces one module and only accounts the other, and a lab row is enforced or dry run as a whole; run them apart (one location each) to see both", on, off)
	}
	return r, nil
}

// connStages are the concurrency stages of a location's limit_conn
// directives, in order (ngx_http_limit_conn_handler checks each and, when
// one is full, releases those it took, so they pass or fail together, as
// a chain's stages record only when all pass).
func connStages(conf limitConf, connZones map[string]*zone) (stages, what, notes, keys []string, err error) {
	seen := map[string]*directive{}
	for _, d := range conf.conns {
		if len(d.args) != 2 {
			return nil, nil, nil, nil, d.errf("invalid number of arguments in \"limit_conn\" directive; write limit_conn ZONE N, e.g. limit_conn addr 10")
		}
		zn := d.args[0]
		z, ok := connZones[zn]
		if !ok {
			return nil, nil, nil, nil, d.errf("limit_conn %s: no limit_conn_zone defines %q (nginx: zero size shared memory zone \"%s\"); give the file that defines it too (the nginx.conf with the http block), or define it there, e.g. limit_conn_zone $binary_remote_addr zone=%s:10m", zn, zn, zn, zn)
		}
		if prev, dup := seen[zn]; dup {
			return nil, nil, nil, nil, d.errf("\"limit_conn\" directive is duplicate: zone %s is already limited at %s; keep one", zn, prev.pos())
		}
		seen[zn] = d
		n, err := strconv.Atoi(d.args[1])
		if err != nil || n <= 0 {
			return nil, nil, nil, nil, d.errf("invalid number of connections %q; give a whole number from 1 to 65535", d.args[1])
		}
		if n > 65535 {
			return nil, nil, nil, nil, d.errf("connection limit must be less 65536; give a number from 1 to 65535")
		}
		z.used = true
		kv := []string{"limit", strconv.Itoa(n)}
		if z.key != "*" {
			kv = append(kv, "key", z.key)
			keys = appendNew(keys, z.key)
		}
		stages = append(stages, spec("concurrency", kv...))
		what = append(what, fmt.Sprintf("limit_conn %s %d (%s)", zn, n, d.pos()))
		for _, n := range z.notes {
			notes = appendNew(notes, n)
		}
	}
	if len(stages) == 0 {
		return nil, nil, nil, nil, nil
	}
	notes = append(notes, "limit_conn: requests in progress per key, counted from the pass until the response ends (needs rt_ms in the trace or a downstream); the zone holds only keys with requests in progress, and the lab does not fill it (full, nginx answers a new key with the limit_conn_status)")
	if conf.connStatus != "" {
		notes = append(notes, fmt.Sprintf("limit_conn_status %s: the status of a rejection; decisions are the same", conf.connStatus))
	}
	if conf.connDryRun == "on" {
		notes = append(notes, "limit_conn_dry_run on: nginx lets every request through and, as when enforcing, counts only those it would pass; the row shows what it would reject")
	}
	return stages, what, notes, keys, nil
}

// parseConnZone reads limit_conn_zone KEY zone=NAME:SIZE.
func parseConnZone(d *directive) (*zone, error) {
	if len(d.args) != 2 {
		return nil, d.errf("invalid number of arguments in \"limit_conn_zone\" directive; write limit_conn_zone KEY zone=NAME:SIZE, e.g. limit_conn_zone $binary_remote_addr zone=addr:10m")
	}
	z := &zone{d: d, keyExpr: d.args[0], conn: true}
	a := d.args[1]
	n, size, ok := strings.Cut(strings.TrimPrefix(a, "zone="), ":")
	if !strings.HasPrefix(a, "zone=") || !ok || n == "" || size == "" {
		return nil, d.errf("limit_conn_zone %q: write zone=NAME:SIZE, e.g. zone=addr:10m", a)
	}
	if _, err := parseSize(size); err != nil {
		return nil, d.errf("limit_conn_zone %s: %v", a, err)
	}
	z.name, z.size = n, size
	z.key, z.notes = nginxKey(z.keyExpr, z.notes)
	return z, nil
}

package rules

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	labspec "github.com/ratelimit-lab/ratelimit-lab/spec"
)

// PatchedFile is one file Patch changed: its path and its new bytes.
type PatchedFile struct {
	File string
	Data []byte
}

// Patch returns the bytes of r's source file with only the named product
// fields (TunableFields' names) set to the given values: comments, order,
// spacing and the other rules untouched, a field the file leaves out
// added beside its siblings. updated is the rule read back from the
// patched bytes, so its Spec is the reader's translation of the new
// values. When the fields live in two files (an nginx zone's rate in an
// included file, its burst in the location), use PatchFiles.
func Patch(r Rule, set map[string]string) (file string, patched []byte, updated Rule, err error) {
	files, up, err := PatchFiles(r, set)
	if err != nil {
		return "", nil, Rule{}, err
	}
	if len(files) != 1 {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.File
		}
		return "", nil, Rule{}, fmt.Errorf("%s: the fields are in %d files (%s); patch them with PatchFiles, or one file's fields at a time", r.Name, len(files), strings.Join(names, ", "))
	}
	return files[0].File, files[0].Data, up, nil
}

// PatchFiles is Patch for fields that may live in several files.
func PatchFiles(r Rule, set map[string]string) ([]PatchedFile, Rule, error) {
	return patchFilesOn(r, set, nil)
}

// patchFilesOn is PatchFiles reading a file from pre when pre holds it
// (the bytes an earlier patch left), else from disk.
func patchFilesOn(r Rule, set map[string]string, pre map[string][]byte) ([]PatchedFile, Rule, error) {
	if len(set) == 0 {
		return nil, Rule{}, fmt.Errorf("%s: no field to set; its fields are %s", r.Name, fieldNames(r))
	}
	if !r.Active() {
		return nil, Rule{}, fmt.Errorf("%s: the rule has no row (%s), so it has no field to tune", r.Name, r.Outcome)
	}
	file, line, err := splitSource(r.Source)
	if err != nil {
		return nil, Rule{}, err
	}
	canon, err := CanonicalSpec(r.Spec)
	if err != nil {
		return nil, Rule{}, err
	}
	stages := labspec.Split(canon).Stages
	fields := TunableFields(r)
	names := slices.Sorted(maps.Keys(set))
	for _, k := range names {
		if !slices.ContainsFunc(fields, func(f Field) bool { return f.Name == k }) && !(r.Format == "nginx" && nginxAlt(k, fields)) {
			return nil, Rule{}, fmt.Errorf("%s (%s): no tunable field %q; its fields are %s", r.Name, r.Source, k, fieldNames(r))
		}
		if strings.ContainsAny(set[k], "\n\r") || strings.TrimSpace(set[k]) == "" {
			return nil, Rule{}, fmt.Errorf("%s: field %s: value %q is empty or spans lines; give one value", r.Name, k, set[k])
		}
	}
	if r.Format == "nginx" {
		for _, k := range names {
			if !plainValue.MatchString(set[k]) {
				return nil, Rule{}, fmt.Errorf("%s: field %s: %q is not one nginx argument (a number, Nr/s, true or false)", r.Name, k, set[k])
			}
		}
		return patchNginx(r, set, names, len(stages), pre)
	}
	data, err := readRulesFile(file)
	if b, ok := pre[file]; ok {
		data, err = b, nil
	}
	if err != nil {
		return nil, Rule{}, fmt.Errorf("%s: cannot read the rules file (%s); check the path", file, oneLine(err))
	}
	var out []byte
	if looksTOML(file, data) {
		out, err = patchTOML(r, file, line, data, set, names)
	} else {
		out, err = patchTree(r, file, line, data, set, names, stages)
	}
	if err != nil {
		return nil, Rule{}, err
	}
	rs, err := Parse(file, out, r.Format)
	if err != nil {
		return nil, Rule{}, fmt.Errorf("%s: the patched file does not read back: %v", r.Name, err)
	}
	up, err := sameRule(r, rs)
	if err != nil {
		return nil, Rule{}, err
	}
	return []PatchedFile{{file, out}}, up, nil
}

// PatchRules patches several rules at once, as one edit of their files:
// sets[i] are rs[i]'s fields (an empty set leaves the rule as it is), each
// rule patched on the bytes the ones before it left, found again there
// when a field added a line. It returns the changed files, each once, in
// the order first changed, and every rule read back from them.
func PatchRules(rs []Rule, sets []map[string]string) ([]PatchedFile, []Rule, error) {
	if len(sets) != len(rs) {
		return nil, nil, fmt.Errorf("PatchRules: %d rules and %d sets", len(rs), len(sets))
	}
	files := map[string][]byte{}
	var order []string
	cur := slices.Clone(rs)
	for i := range cur {
		if len(sets[i]) == 0 {
			continue
		}
		pf, _, err := patchFilesOn(cur[i], sets[i], files)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range pf {
			files[f.File] = f.Data
			order = appendNew(order, f.File)
		}
		for j := i + 1; j < len(cur); j++ {
			if cur[j], err = rereadOn(cur[j], files, order); err != nil {
				return nil, nil, err
			}
		}
	}
	ups := make([]Rule, len(cur))
	for i := range cur {
		var err error
		if ups[i], err = rereadOn(cur[i], files, order); err != nil {
			return nil, nil, err
		}
	}
	out := make([]PatchedFile, len(order))
	for i, f := range order {
		out[i] = PatchedFile{f, files[f]}
	}
	return out, ups, nil
}

// rereadOn reads r again from the patched files (its own file's bytes
// when unchanged).
func rereadOn(r Rule, files map[string][]byte, changed []string) (Rule, error) {
	file, _, err := splitSource(r.Source)
	if err != nil {
		return Rule{}, err
	}
	if r.Format == "nginx" {
		if len(changed) == 0 {
			return r, nil
		}
		root := filepath.Dir(file)
		for _, f := range changed {
			for {
				rel, err := filepath.Rel(root, f)
				if err == nil && !strings.HasPrefix(rel, "..") {
					break
				}
				up := filepath.Dir(root)
				if up == root {
					break
				}
				root = up
			}
		}
		return rereadNginx(r, root, files, changed)
	}
	data, ok := files[file]
	if !ok {
		return r, nil
	}
	rs, err := Parse(file, data, r.Format)
	if err != nil {
		return Rule{}, fmt.Errorf("%s: the patched file does not read back: %v", r.Name, err)
	}
	return sameRule(r, rs)
}

// nginxAlt accepts delay for nodelay and back: the two are one choice.
func nginxAlt(k string, fields []Field) bool {
	pre, leaf := "", k
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		pre, leaf = k[:i+1], k[i+1:]
	}
	alt := map[string]string{"delay": "nodelay", "nodelay": "delay", "burst": "burst", "rate": "rate"}[leaf]
	return alt != "" && slices.ContainsFunc(fields, func(f Field) bool { return f.Name == pre+alt || f.Name == pre+"rate" })
}

// sameRule finds r among the re-read rules: same name, scope and format.
func sameRule(r Rule, rs []Rule) (Rule, error) {
	for _, x := range rs {
		if x.Name == r.Name && x.Scope == r.Scope && x.Format == r.Format {
			if !x.Active() {
				return Rule{}, fmt.Errorf("%s: with these values the rule has no row: %s: %s", r.Name, x.Outcome, x.Why)
			}
			return x, nil
		}
	}
	return Rule{}, fmt.Errorf("%s: the patched file no longer holds this rule", r.Name)
}

func splitSource(src string) (string, int, error) {
	i := strings.LastIndexByte(src, ':')
	if i < 0 {
		return "", 0, fmt.Errorf("rule source %q is not FILE:LINE", src)
	}
	n, err := strconv.Atoi(src[i+1:])
	if err != nil {
		return "", 0, fmt.Errorf("rule source %q is not FILE:LINE", src)
	}
	return src[:i], n, nil
}

// --- YAML and JSON -----------------------------------------------------------

type edit struct {
	from, to int
	text     string
}

// patchTree sets the fields in the YAML or JSON tree of data: each value's
// bytes are replaced in place (its quotes kept), a missing field inserted
// after its siblings at their indentation.
func patchTree(r Rule, file string, line int, data []byte, set map[string]string, names []string, stages []labspec.Stage) ([]byte, error) {
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(blankCommentHeader(data)))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: does not parse: %v", file, oneLine(err))
		}
		docs = append(docs, &n)
	}
	lines := lineStarts(data)
	trimmed := bytes.TrimSpace(blankCommentHeader(data))
	isJSON := len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
	var edits []edit
	for _, name := range names {
		anchor, field, err := fieldAnchor(r, docs, line, name, stages)
		if err != nil {
			return nil, err
		}
		val := set[name]
		if k, v := findField(anchor, field, r.Name); v != nil {
			if v.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s:%d: %s is not a single value; set it by hand", file, v.Line, name)
			}
			from, to := scalarSpan(data, lines, v)
			edits = append(edits, edit{from, to, valueText(val, v.Style, isJSON)})
			_ = k
			continue
		}
		parent, key := anchor, field
		if r.Format == "spring" {
			if a := mp(anchor).get("args"); a != nil && a.Kind == yaml.MappingNode {
				parent = a
			}
		} else if i := strings.LastIndexByte(field, '.'); i >= 0 {
			if _, p := findField(anchor, field[:i], r.Name); p != nil && p.Kind == yaml.MappingNode {
				parent, key = p, field[i+1:]
			} else if !strings.Contains(field[:i], ".") && anchor.Style&yaml.FlowStyle == 0 && !isJSON {
				// a block of its own: config:\n  minute: 5
				key = field[:i] + ":\n" + strings.Repeat(" ", 2) + "\x00" + field[i+1:]
			} else {
				return nil, fmt.Errorf("%s: %s has no %s to hold %s; add it by hand", file, r.Name, field[:i], name)
			}
		} else if dk := dottedKeyAt(anchor, line, r.Name); dk != "" {
			key = dk + field
		}
		e, err := insertField(data, lines, parent, key, valueText(val, 0, isJSON), isJSON)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: cannot add %s (%v); add it by hand", file, r.Name, name, err)
		}
		edits = append(edits, e)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	out := append([]byte(nil), data...)
	for i, e := range edits {
		if i > 0 && e.to > edits[i-1].from {
			return nil, fmt.Errorf("%s: two fields overlap; set them one at a time", r.Name)
		}
		out = append(out[:e.from:e.from], append([]byte(e.text), out[e.to:]...)...)
	}
	return out, nil
}

// fieldAnchor is the mapping that holds name's rule (its stage's rule in a
// Sentinel chain) and the field's name within it.
func fieldAnchor(r Rule, docs []*yaml.Node, line int, name string, stages []labspec.Stage) (*yaml.Node, string, error) {
	if (r.Format == "sentinel" || r.Format == "sentinel-go") && len(stages) > 1 {
		kind, field, _ := strings.Cut(name, ".")
		var found *yaml.Node
		walk(docs, func(n *yaml.Node) {
			if found != nil || n.Kind != yaml.MappingNode {
				return
			}
			if res := patchResource(n, r.Format); res == r.Name && sentinelKind(n, r.Format) == kind {
				found = n
			}
		})
		if found == nil {
			return nil, "", fmt.Errorf("%s: no %s of resource %s in the file", r.Source, kind, r.Name)
		}
		return found, field, nil
	}
	var anchor *yaml.Node
	walk(docs, func(n *yaml.Node) {
		if anchor != nil || n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Line == line {
				if v := n.Content[i+1]; v.Kind == yaml.MappingNode && v.Line > line {
					anchor = v
				} else {
					anchor = n
				}
				return
			}
		}
	})
	if anchor == nil {
		walk(docs, func(n *yaml.Node) {
			if anchor == nil && n.Kind == yaml.MappingNode && n.Line == line {
				anchor = n
			}
		})
	}
	if anchor == nil {
		return nil, "", fmt.Errorf("%s: no rule starts at this line any more; read the file again", r.Source)
	}
	return anchor, name, nil
}

func patchResource(n *yaml.Node, format string) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if k == "resource" || (format == "sentinel-go" && strings.EqualFold(k, "resource")) {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// sentinelKind names a rule object's kind as stagePrefixes does.
func sentinelKind(n *yaml.Node, format string) string {
	has := func(k string) bool { return hasFold(mp(n), k) }
	if format == "sentinel" {
		switch {
		case has("paramIdx"):
			return "ParamFlowRule"
		case has("timeWindow") || has("slowRatioThreshold"):
			return "DegradeRule"
		}
		return "FlowRule"
	}
	switch {
	case has("paramIndex") || has("paramKey"):
		return "hotspot"
	case has("retryTimeoutMs"):
		return "circuitbreaker"
	case !has("tokenCalculateStrategy") && !has("controlBehavior") && strings.EqualFold(mp(n).str("metricType"), "Concurrency"):
		return "isolation"
	}
	return "flow"
}

// walk calls f on every node, depth first in document order.
func walk(docs []*yaml.Node, f func(*yaml.Node)) {
	var rec func(n *yaml.Node)
	rec = func(n *yaml.Node) {
		f(n)
		for _, c := range n.Content {
			rec(c)
		}
	}
	for _, d := range docs {
		rec(d)
	}
}

// findField finds the value of dotted field under n: a key path whose
// dotted join ends with field (a flat "a.b" key counts as a.b; names
// compare as Spring Boot's relaxed binding and protobuf's JSON names do,
// without case, '-' or '_'), the shallowest first, so a rule's own field
// wins over a nested rule's; among several, the one whose path names the
// rule (name) wins. A field not found is looked for by its shorter
// suffixes (the anchor may be the inner mapping already).
func findField(n *yaml.Node, field, name string) (*yaml.Node, *yaml.Node) {
	parts := strings.Split(field, ".")
	for i := range parts {
		if k, v := findPath(n, strings.Join(parts[i:], "."), name); v != nil {
			return k, v
		}
	}
	return nil, nil
}

func relaxedName(s string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
}

func findPath(n *yaml.Node, field, name string) (*yaml.Node, *yaml.Node) {
	type at struct {
		n    *yaml.Node
		path string
	}
	want := relaxedName(field)
	level := []at{{n, ""}}
	for len(level) > 0 {
		var next []at
		var hits [][2]*yaml.Node
		var hitPaths []string
		for _, x := range level {
			switch x.n.Kind {
			case yaml.SequenceNode:
				for _, c := range x.n.Content {
					next = append(next, at{c, x.path})
				}
			case yaml.MappingNode:
				for i := 0; i+1 < len(x.n.Content); i += 2 {
					p := relaxedName(x.n.Content[i].Value)
					if x.path != "" {
						p = x.path + "." + p
					}
					if p == want || strings.HasSuffix(p, "."+want) {
						hits = append(hits, [2]*yaml.Node{x.n.Content[i], x.n.Content[i+1]})
						hitPaths = append(hitPaths, p)
					}
					next = append(next, at{x.n.Content[i+1], p})
				}
			}
		}
		if len(hits) > 0 {
			for i, p := range hitPaths {
				if name != "" && strings.Contains("."+p+".", "."+relaxedName(name)+".") {
					return hits[i][0], hits[i][1]
				}
			}
			return hits[0][0], hits[0][1]
		}
		level = next
	}
	return nil, nil
}

// dottedKeyAt is the prefix through ".NAME." of the flat dotted key at
// line in anchor (resilience4j.ratelimiter.instances.NAME.limit-for-period),
// "" when the key there is not such a key.
func dottedKeyAt(anchor *yaml.Node, line int, name string) string {
	for i := 0; i+1 < len(anchor.Content); i += 2 {
		k := anchor.Content[i]
		if k.Line != line {
			continue
		}
		if j := strings.Index(k.Value, "."+name+"."); j >= 0 {
			return k.Value[:j+len(name)+2]
		}
	}
	return ""
}

func lineStarts(data []byte) []int {
	out := []int{0}
	for i, c := range data {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// offset is the byte offset of a node's line and (rune) column.
func offset(data []byte, lines []int, line, col int) int {
	off := lines[line-1]
	for c := 1; c < col && off < len(data); c++ {
		_, n := utf8.DecodeRune(data[off:])
		off += n
	}
	return off
}

// scalarSpan is the byte range of v's text in data, quotes included.
func scalarSpan(data []byte, lines []int, v *yaml.Node) (int, int) {
	from := offset(data, lines, v.Line, v.Column)
	end := len(data)
	if v.Line < len(lines) {
		end = lines[v.Line] - 1
	}
	switch {
	case v.Style&yaml.DoubleQuotedStyle != 0:
		for i := from + 1; i < len(data); i++ {
			if data[i] == '\\' {
				i++
				continue
			}
			if data[i] == '"' {
				return from, i + 1
			}
		}
	case v.Style&yaml.SingleQuotedStyle != 0:
		for i := from + 1; i < len(data); i++ {
			if data[i] == '\'' {
				if i+1 < len(data) && data[i+1] == '\'' {
					i++
					continue
				}
				return from, i + 1
			}
		}
	}
	to := from
	for to < end && !(data[to] == ',' || data[to] == '}' || data[to] == ']' || (data[to] == '#' && to > from && data[to-1] == ' ')) {
		to++
	}
	for to > from && (data[to-1] == ' ' || data[to-1] == '\t' || data[to-1] == '\r') {
		to--
	}
	return from, to
}

// valueText writes v as the file wrote the old value: in the same quotes,
// or bare; a JSON string where a bare word would not be JSON.
func valueText(v string, style yaml.Style, isJSON bool) string {
	if style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 && !plainValue.MatchString(v) {
		style = yaml.DoubleQuotedStyle // never a bare value that YAML or JSON would read as more than one scalar
	}
	switch {
	case style&yaml.DoubleQuotedStyle != 0:
		return strconv.Quote(v)
	case style&yaml.SingleQuotedStyle != 0:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	if isJSON {
		if _, err := strconv.ParseFloat(v, 64); err != nil && v != "true" && v != "false" {
			return strconv.Quote(v)
		}
	}
	return v
}

// plainValue is a value written bare: a number, a word, a duration.
var plainValue = regexp.MustCompile(`^[A-Za-z0-9._/+-]+$`)

// insertField adds key: value to the mapping parent, after its last entry.
func insertField(data []byte, lines []int, parent *yaml.Node, key, value string, isJSON bool) (edit, error) {
	if parent.Kind != yaml.MappingNode || len(parent.Content) < 2 {
		return edit{}, fmt.Errorf("its mapping is empty")
	}
	lastK, lastV := parent.Content[len(parent.Content)-2], parent.Content[len(parent.Content)-1]
	if parent.Style&yaml.FlowStyle != 0 {
		if lastV.Kind != yaml.ScalarNode {
			return edit{}, fmt.Errorf("the mapping's last value is not a single value")
		}
		_, to := scalarSpan(data, lines, lastV)
		k := key
		if isJSON {
			k = strconv.Quote(key)
		}
		sep := " "
		if lastK.Line != parent.Line {
			sep = "\n" + strings.Repeat(" ", lastK.Column-1)
		}
		return edit{to, to, "," + sep + k + ": " + value}, nil
	}
	maxLine := 0
	walk([]*yaml.Node{lastV}, func(n *yaml.Node) { maxLine = max(maxLine, n.Line) })
	maxLine = max(maxLine, lastK.Line)
	at := len(data)
	if maxLine < len(lines) {
		at = lines[maxLine]
	}
	indent := strings.Repeat(" ", lastK.Column-1)
	key = strings.Replace(key, "\n  \x00", "\n"+indent+"  ", 1)
	text := indent + key + ": " + value + "\n"
	if at == len(data) && len(data) > 0 && data[len(data)-1] != '\n' {
		text = "\n" + text
	}
	return edit{at, at, text}, nil
}

// --- TOML (Traefik) ---------------------------------------------------------

var (
	tomlTableRe = regexp.MustCompile(`^\s*\[`)
	tomlKeyRe   = regexp.MustCompile(`^(\s*)([A-Za-z0-9_-]+)(\s*=\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#]+)(.*)$`)
)

// patchTOML sets the fields in the table whose header is at line (a
// Traefik [http.middlewares.NAME.rateLimit]): a key's value replaced in
// its line, quotes kept; a missing key added after the table's last key.
func patchTOML(r Rule, file string, line int, data []byte, set map[string]string, names []string) ([]byte, error) {
	lines := strings.SplitAfter(string(data), "\n")
	if line < 1 || line > len(lines) || !tomlTableRe.MatchString(lines[line-1]) {
		return nil, fmt.Errorf("%s: no table starts at this line any more; read the file again", r.Source)
	}
	end, last := line, line
	for end < len(lines) && !tomlTableRe.MatchString(lines[end]) {
		if tomlKeyRe.MatchString(strings.TrimRight(lines[end], "\r\n")) {
			last = end + 1
		}
		end++
	}
	var inserts []string
	for _, name := range names {
		if strings.Contains(name, ".") {
			return nil, fmt.Errorf("%s: %s is a nested key; set it in the TOML by hand", file, name)
		}
		v := set[name]
		found := false
		for i := line; i < end; i++ {
			m := tomlKeyRe.FindStringSubmatch(strings.TrimRight(lines[i], "\r\n"))
			if m == nil || m[2] != name {
				continue
			}
			nv := v
			if strings.HasPrefix(m[4], `"`) || strings.HasPrefix(m[4], "'") || !regexp.MustCompile(`^[0-9.]+$`).MatchString(v) {
				nv = strconv.Quote(v)
			}
			lines[i] = m[1] + m[2] + m[3] + nv + m[5] + lines[i][len(strings.TrimRight(lines[i], "\r\n")):]
			found = true
		}
		if !found {
			indent := "    "
			if m := tomlKeyRe.FindStringSubmatch(strings.TrimRight(lines[last-1], "\r\n")); m != nil && last > line {
				indent = m[1]
			}
			nv := v
			if !regexp.MustCompile(`^[0-9.]+$`).MatchString(v) {
				nv = strconv.Quote(v)
			}
			inserts = append(inserts, indent+name+" = "+nv+"\n")
		}
	}
	out := append(append(append([]string(nil), lines[:last]...), inserts...), lines[last:]...)
	return []byte(strings.Join(out, "")), nil
}

// --- nginx -------------------------------------------------------------------

// patchNginx sets rate in the zone's limit_req_zone and burst, delay and
// nodelay in the location's limit_req, then reads the configuration
// again from a copy of its directory.
func patchNginx(r Rule, set map[string]string, names []string, nStages int, pre map[string][]byte) ([]PatchedFile, Rule, error) {
	m := limitReqRe.FindAllStringSubmatch(r.What, -1)
	if len(m) == 0 {
		return nil, Rule{}, fmt.Errorf("%s: the rule names no limit_req; only limit_req zones are tuned", r.Name)
	}
	files := maps.Clone(pre)
	if files == nil {
		files = map[string][]byte{}
	}
	read := func(f string) ([]byte, error) {
		if b, ok := files[f]; ok {
			return b, nil
		}
		b, err := readRulesFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot read (%s)", f, oneLine(err))
		}
		files[f] = b
		return b, nil
	}
	var order []string
	root := filepath.Dir(m[0][2])
	for _, name := range names {
		stage, leaf := 0, name
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			stage = slices.IndexFunc(m, func(x []string) bool { return x[1] == name[:i] })
			leaf = name[i+1:]
		}
		if stage < 0 || stage >= len(m) || (nStages > 1 && !strings.Contains(name, ".")) {
			return nil, Rule{}, fmt.Errorf("%s: field %s names no zone of the location; its fields are %s", r.Name, name, fieldNames(r))
		}
		zone, lrFile := m[stage][1], m[stage][2]
		lrLine, _ := strconv.Atoi(m[stage][3])
		val := set[name]
		if leaf == "rate" {
			f, at, end, err := findZone(zone, lrFile, read)
			if err != nil {
				return nil, Rule{}, err
			}
			if d := filepath.Dir(f); len(d) < len(root) {
				root = d
			}
			dir := string(files[f][at:end])
			re := regexp.MustCompile(`\brate=[^\s;]*`)
			if !re.MatchString(dir) {
				return nil, Rule{}, fmt.Errorf("%s: limit_req_zone %s has no rate=", f, zone)
			}
			dir = re.ReplaceAllLiteralString(dir, "rate="+val)
			files[f] = append(append(append([]byte(nil), files[f][:at]...), dir...), files[f][end:]...)
			order = appendNew(order, f)
			continue
		}
		b, err := read(lrFile)
		if err != nil {
			return nil, Rule{}, err
		}
		lines := lineStarts(b)
		if lrLine < 1 || lrLine > len(lines) {
			return nil, Rule{}, fmt.Errorf("%s:%d: no such line; read the configuration again", lrFile, lrLine)
		}
		at := lines[lrLine-1] + bytes.Index(b[lines[lrLine-1]:], []byte("limit_req"))
		end := at + bytes.IndexByte(b[at:], ';')
		if at < lines[lrLine-1] || end < at {
			return nil, Rule{}, fmt.Errorf("%s:%d: no limit_req here any more; read the configuration again", lrFile, lrLine)
		}
		dir := string(b[at:end])
		set1 := func(key, v string) {
			re := regexp.MustCompile(`\s` + key + `=\S*`)
			if v == "0" && !re.MatchString(dir) {
				return // nginx's default: the directive stays as written
			}
			if re.MatchString(dir) {
				dir = re.ReplaceAllLiteralString(dir, " "+key+"="+v)
			} else {
				dir += " " + key + "=" + v
			}
		}
		drop := regexp.MustCompile(`\s+nodelay\b`)
		switch leaf {
		case "burst":
			set1("burst", val)
		case "delay":
			dir = drop.ReplaceAllLiteralString(dir, "")
			set1("delay", val)
		case "nodelay":
			switch val {
			case "true", "on":
				dir = regexp.MustCompile(`\s+delay=\S*`).ReplaceAllLiteralString(dir, "")
				if !drop.MatchString(dir) {
					dir += " nodelay"
				}
			case "false", "off":
				dir = drop.ReplaceAllLiteralString(dir, "")
			default:
				return nil, Rule{}, fmt.Errorf("%s: nodelay is true or false, not %q", r.Name, val)
			}
		}
		files[lrFile] = append(append(append([]byte(nil), b[:at]...), dir...), b[end:]...)
		order = appendNew(order, lrFile)
	}
	up, err := rereadNginx(r, root, files, order)
	if err != nil {
		return nil, Rule{}, err
	}
	out := make([]PatchedFile, len(order))
	for i, f := range order {
		out[i] = PatchedFile{f, files[f]}
	}
	return out, up, nil
}

var zoneDirRe = regexp.MustCompile(`(?m)^[ \t]*limit_req_zone\s[^;]*;`)

// findZone finds the limit_req_zone that defines zone: in the limit_req's
// file, then the files of its directory and of the one above it.
func findZone(zone, from string, read func(string) ([]byte, error)) (string, int, int, error) {
	cands := []string{from}
	for _, dir := range []string{filepath.Dir(from), filepath.Dir(filepath.Dir(from))} {
		n := 0
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || n > 500 {
				return filepath.SkipDir
			}
			if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && !skipInDir(d.Name()) {
				n++
				cands = appendNew(cands, p)
			}
			return nil
		})
	}
	want := regexp.MustCompile(`\bzone=` + regexp.QuoteMeta(zone) + `:`)
	for _, f := range cands {
		b, err := read(f)
		if err != nil {
			continue
		}
		for _, loc := range zoneDirRe.FindAllIndex(b, -1) {
			if want.Match(b[loc[0]:loc[1]]) {
				return f, loc[0], loc[1] - 1, nil
			}
		}
	}
	return "", 0, 0, fmt.Errorf("no limit_req_zone defines zone %s beside %s; give its rate by hand", zone, from)
}

// rereadNginx copies root (the directory of the changed files) with the
// patched files and reads its configuration again, returning r's row.
func rereadNginx(r Rule, root string, files map[string][]byte, changed []string) (Rule, error) {
	tmp, err := os.MkdirTemp("", "ratelimit-lab-patch-")
	if err != nil {
		return Rule{}, err
	}
	defer os.RemoveAll(tmp)
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		dst := filepath.Join(tmp, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, ok := files[p]
		if !ok {
			if b, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return Rule{}, fmt.Errorf("%s: cannot copy the configuration to read it again (%v)", root, err)
	}
	first, _, _ := splitSource(r.Source)
	rel, err := filepath.Rel(root, first)
	if err != nil || strings.HasPrefix(rel, "..") {
		return Rule{}, fmt.Errorf("%s is outside %s", first, root)
	}
	sets, err := LoadFiles([]string{filepath.Join(tmp, rel)}, "nginx", Options{NginxPrefix: tmp})
	if err != nil || (len(sets) == 1 && sets[0].Fragment != nil) {
		sets, err = LoadFiles([]string{tmp}, "", Options{NginxPrefix: tmp})
	}
	if err != nil {
		return Rule{}, fmt.Errorf("%s: the patched configuration does not read back: %s", r.Name, strings.ReplaceAll(err.Error(), tmp, root))
	}
	var all []Rule
	for _, s := range sets {
		for _, x := range s.Rules {
			x.Source = strings.ReplaceAll(x.Source, tmp, root)
			x.What = strings.ReplaceAll(x.What, tmp, root)
			for i := range x.Notes {
				x.Notes[i] = strings.ReplaceAll(x.Notes[i], tmp, root)
			}
			all = append(all, x)
		}
	}
	return sameRule(r, all)
}

package rules

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// parseTOML reads a TOML document (Traefik's dynamic configuration, as
// traefik/paerser reads it with BurntSushi/toml) into the yaml.Node tree
// the translators read: tables become mappings in the order the file
// defines them, arrays sequences, values scalars, each at the line of its
// key where the file's lines say it (a scan of its headers and keys).
func parseTOML(name string, data []byte) (*yaml.Node, error) {
	var v map[string]any
	md, err := toml.Decode(string(data), &v)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: the TOML does not parse (%s); fix the syntax there", name, pe.Position.Line, oneLine(errors.New(pe.Message)))
		}
		return nil, fmt.Errorf("%s: the TOML does not parse (%s); fix the syntax", name, oneLine(err))
	}
	order := map[string]int{}
	// Keys lists the keys in the order the file defines them; a table
	// defined only through a longer header ([a.b.c] defines a.b) takes the
	// place of its first descendant.
	for i, k := range md.Keys() {
		for j := 1; j <= len(k); j++ {
			if _, ok := order[k[:j].String()]; !ok {
				order[k[:j].String()] = i
			}
		}
	}
	lines := tomlKeyLines(string(data))
	root := tomlNode(v, nil, order, lines, 1)
	return root, nil
}

// tomlNode converts a decoded TOML value at path into a node.
func tomlNode(v any, path []string, order map[string]int, lines map[string]int, line int) *yaml.Node {
	if l, ok := lines[strings.Join(path, "\x00")]; ok {
		line = l
	}
	switch x := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line, Column: 1}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		pos := func(k string) int {
			if i, ok := order[toml.Key(append(append([]string{}, path...), k)).String()]; ok {
				return i
			}
			return math.MaxInt
		}
		sort.SliceStable(keys, func(i, j int) bool {
			pi, pj := pos(keys[i]), pos(keys[j])
			if pi != pj {
				return pi < pj
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			child := append(append([]string{}, path...), k)
			kl := line
			if l, ok := lines[strings.Join(child, "\x00")]; ok {
				kl = l
			}
			n.Content = append(n.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: kl, Column: 1},
				tomlNode(x[k], child, order, lines, kl))
		}
		return n
	case []map[string]any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line, Column: 1}
		for _, it := range x {
			n.Content = append(n.Content, tomlNode(it, path, order, lines, line))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line, Column: 1}
		for _, it := range x {
			n.Content = append(n.Content, tomlNode(it, path, order, lines, line))
		}
		return n
	}
	s := &yaml.Node{Kind: yaml.ScalarNode, Line: line, Column: 1}
	switch x := v.(type) {
	case string:
		s.Tag, s.Value = "!!str", x
	case int64:
		s.Tag, s.Value = "!!int", strconv.FormatInt(x, 10)
	case float64:
		s.Tag, s.Value = "!!float", strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		s.Tag, s.Value = "!!bool", strconv.FormatBool(x)
	case time.Time:
		s.Tag, s.Value = "!!str", x.Format(time.RFC3339Nano)
	default:
		s.Tag, s.Value = "!!str", fmt.Sprint(x)
	}
	return s
}

// tomlKeyLines maps each key path (joined by NUL) to the line that first
// defines it: a table header [a.b] defines a and a.b; a pair k = v (or
// a dotted k.j = v) under it defines a.b.k. Inline tables and arrays of
// tables take the line of their key.
func tomlKeyLines(text string) map[string]int {
	out := map[string]int{}
	set := func(path []string, line int) {
		for i := 1; i <= len(path); i++ {
			k := strings.Join(path[:i], "\x00")
			if _, ok := out[k]; !ok {
				out[k] = line
			}
		}
	}
	var table []string
	for i, raw := range strings.Split(text, "\n") {
		t := strings.TrimSpace(raw)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasPrefix(t, "[") {
			h := strings.TrimSpace(strings.Trim(strings.SplitN(t, "#", 2)[0], " \t"))
			h = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), "["), "]")
			table = splitTOMLKey(h)
			set(table, i+1)
			continue
		}
		k, _, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		set(append(append([]string{}, table...), splitTOMLKey(k)...), i+1)
	}
	return out
}

// splitTOMLKey splits a dotted key, keeping quoted parts whole.
func splitTOMLKey(k string) []string {
	var parts []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, strings.TrimSpace(cur.String()))
}

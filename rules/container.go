package rules

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Containers hold rules files inside other documents: a Kubernetes
// ConfigMap's data values (envoyproxy/ratelimit's config.yaml, as istio's
// samples/ratelimit/rate-limit-service.yaml deploys it, or any other
// format; each data key is a file of its own) and a Kubernetes List's
// items. expandContainers replaces each container by the documents it
// holds, their lines counted in the outer file, and returns a note for
// each data value that holds no rules.
func expandContainers(name string, docs []*yaml.Node) ([]*yaml.Node, []string, error) {
	var out []*yaml.Node
	var notes []string
	for _, root := range docs {
		m := mp(root)
		switch {
		case root.Kind == yaml.MappingNode && m.str("kind") == "ConfigMap" && m.has("apiVersion"):
			data := m.get("data")
			if data == nil || data.Kind != yaml.MappingNode || len(data.Content) == 0 {
				notes = append(notes, fmt.Sprintf("%s:%d: skipped, a ConfigMap with no data", filepath.ToSlash(name), root.Line))
				continue
			}
			var skipped, keys []string
			found := false
			for i := 0; i+1 < len(data.Content); i += 2 {
				key, val := data.Content[i], data.Content[i+1]
				inner, why, err := configMapValue(name, key, val)
				if err != nil {
					return nil, nil, err
				}
				if why != "" {
					skipped = append(skipped, fmt.Sprintf("%s:%d: ConfigMap data key %q skipped, %s", filepath.ToSlash(name), key.Line, clip(key.Value), why))
					keys = append(keys, clip(key.Value))
					continue
				}
				found = true
				out = append(out, inner...)
			}
			switch {
			case found:
				notes = append(notes, skipped...)
			case len(keys) > 0:
				// A ConfigMap of settings (an ingress-nginx controller's
				// limit-req-status-code, an app's environment): one note.
				if len(keys) > 4 {
					keys = append(keys[:4], "…")
				}
				notes = append(notes, fmt.Sprintf("%s:%d: skipped, a ConfigMap none of whose %d data key(s) is a rules file (%s)", filepath.ToSlash(name), root.Line, len(data.Content)/2, strings.Join(keys, ", ")))
			}
		case root.Kind == yaml.MappingNode && m.str("kind") == "List" && m.has("apiVersion"):
			list := items(m.get("items"))
			if len(list) == 0 {
				notes = append(notes, fmt.Sprintf("%s:%d: skipped, an empty Kubernetes List", filepath.ToSlash(name), root.Line))
				continue
			}
			inner, more, err := expandContainers(name, list)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, inner...)
			notes = append(notes, more...)
		default:
			out = append(out, root)
		}
	}
	return out, notes, nil
}

// configMapValue parses one data value as a file: its documents, their
// lines shifted to the outer file's, or why it is skipped.
func configMapValue(name string, key, val *yaml.Node) ([]*yaml.Node, string, error) {
	if val.Kind != yaml.ScalarNode {
		return nil, fmt.Sprintf("its value is %s, not a file's text", kindName(val)), nil
	}
	// A block scalar's text starts on the line after its | or >; a quoted
	// or plain one on its own line.
	shift := val.Line - 1
	if val.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		shift = val.Line
	}
	if len(val.Value) == 0 {
		return nil, "it is empty", nil
	}
	docs, err := parseDocs(name, []byte(val.Value))
	if err != nil || !isStructured(docs) {
		if looksNginx([]byte(val.Value)) {
			return nil, "an nginx configuration; give it as a file of its own (its includes are read from the disk)", nil
		}
		if err != nil {
			switch strings.ToLower(filepath.Ext(key.Value)) {
			case ".yaml", ".yml", ".json", ".toml":
				return nil, "", shiftErr(name, err, shift, key.Value)
			}
			return nil, "its text does not parse as a YAML, JSON or TOML document", nil
		}
		return nil, "its text is not a YAML, JSON or TOML document", nil
	}
	for _, d := range docs {
		shiftLines(d, shift)
	}
	docs, inner, err := expandContainers(name, docs)
	if err != nil {
		return nil, "", err
	}
	var keep []*yaml.Node
	var why string
	for _, d := range docs {
		if f, skip := detectDoc(d); f != "" {
			keep = append(keep, d)
		} else if why == "" {
			why = skip
			if why == "" {
				why = "no rules the lab reads"
			}
		}
	}
	if len(keep) == 0 {
		if why == "" && len(inner) > 0 {
			why = inner[0]
		}
		return nil, why, nil
	}
	return keep, "", nil
}

// shiftLines adds shift to the line of n and every node under it.
func shiftLines(n *yaml.Node, shift int) {
	if n == nil {
		return
	}
	n.Line += shift
	for _, c := range n.Content {
		shiftLines(c, shift)
	}
}

var errLine = regexp.MustCompile(`^(.*?):(\d+): `)

// shiftErr rewrites a parse error of a data value to name the outer
// file's line and the data key.
func shiftErr(name string, err error, shift int, key string) error {
	msg := err.Error()
	if m := errLine.FindStringSubmatch(msg); m != nil && m[1] == name {
		n, _ := strconv.Atoi(m[2])
		return fmt.Errorf("%s:%d: (ConfigMap data key %q) %s", name, n+shift, clip(key), msg[len(m[0]):])
	}
	return fmt.Errorf("%s (ConfigMap data key %q)", msg, clip(key))
}

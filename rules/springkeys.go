package rules

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Spring Boot binds application.yml with relaxed names: a key may hold
// several levels at once (`resilience4j.ratelimiter:` or the fully dotted
// `resilience4j.ratelimiter.instances.a.limit-for-period: 10`), a bracketed
// segment (`[a.b]`) is one name, and a property's name may be camelCase,
// kebab-case or snake_case in any case. springView turns such a document
// into the nested tree the translators read.

// springView returns root with every dotted key of its mappings (outside
// sequences, whose items keep their keys: Spring Cloud Gateway's args use
// dotted names of their own) split into nested mappings, merged with the
// keys that already hold those levels, and the resilience4j ratelimiter's
// property names in the camelCase the translator reads. root is not
// changed.
func springView(root *yaml.Node) *yaml.Node {
	v := expandDotted(root)
	canonR4j(v)
	return v
}

// expandDotted returns a copy of the mapping n with its dotted keys split.
func expandDotted(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return n
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		insertPath(out, splitSpringKey(k.Value), k, expandDotted(v))
	}
	return out
}

// insertPath sets m[segs[0]]…[segs[n-1]] = v, creating the mappings on the
// way (each key at the line of key) and merging v into a mapping that is
// already there.
func insertPath(m *yaml.Node, segs []string, key, v *yaml.Node) {
	for i, s := range segs {
		var cur *yaml.Node
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j].Value == s {
				cur = m.Content[j+1]
				if i == len(segs)-1 {
					if cur.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode {
						for x := 0; x+1 < len(v.Content); x += 2 {
							insertPath(cur, []string{v.Content[x].Value}, v.Content[x], v.Content[x+1])
						}
					} else {
						m.Content[j+1] = v // a later value wins, as in Spring
					}
					return
				}
				if cur.Kind != yaml.MappingNode {
					cur = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: key.Line, Column: key.Column}
					m.Content[j+1] = cur
				}
				break
			}
		}
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Line: key.Line, Column: key.Column}
		if cur == nil {
			if i == len(segs)-1 {
				m.Content = append(m.Content, k, v)
				return
			}
			cur = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: key.Line, Column: key.Column}
			m.Content = append(m.Content, k, cur)
		}
		m = cur
	}
}

// splitSpringKey splits a.b.[c.d] into a, b, c.d.
func splitSpringKey(k string) []string {
	var segs []string
	var b strings.Builder
	depth := 0
	for _, r := range k {
		switch {
		case r == '[':
			if b.Len() > 0 && depth == 0 {
				segs = append(segs, b.String())
				b.Reset()
			}
			depth++
		case r == ']' && depth > 0:
			depth--
		case r == '.' && depth == 0:
			if b.Len() > 0 {
				segs = append(segs, b.String())
			}
			b.Reset()
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() > 0 || len(segs) == 0 {
		segs = append(segs, b.String())
	}
	return segs
}

// relaxed is a property name as Spring compares them: lower case, without
// dashes and underscores.
func relaxed(k string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(k))
}

// r4jProps are the names the resilience4j translator reads, by relaxed
// name.
var r4jProps = map[string]string{}

func init() {
	for _, k := range []string{"baseConfig", "limitForPeriod", "limitRefreshPeriod", "timeoutDuration"} {
		r4jProps[relaxed(k)] = k
	}
}

// canonR4j renames, in the expanded tree, resilience4j, ratelimiter,
// configs, instances and each instance's or config's properties to the
// names the translator reads; instance and config names are kept as
// written (Spring keeps a map key's case and dashes).
func canonR4j(root *yaml.Node) {
	rename := func(m *yaml.Node, want func(string) string) {
		if m == nil || m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if w := want(relaxed(m.Content[i].Value)); w != "" {
				m.Content[i].Value = w
			}
		}
	}
	named := func(names ...string) func(string) string {
		return func(k string) string {
			for _, n := range names {
				if k == n {
					return n
				}
			}
			return ""
		}
	}
	rename(root, named("resilience4j"))
	r4j := mp(root).get("resilience4j")
	rename(r4j, named("ratelimiter"))
	rl := mp(r4j).get("ratelimiter")
	rename(rl, named("configs", "instances", "limiters"))
	mergeLimiters(rl)
	for _, group := range []string{"configs", "instances"} {
		g := mp(rl).get(group)
		for _, name := range mp(g).keys() {
			rename(mp(g).get(name), func(k string) string { return r4jProps[k] })
		}
	}
}

// hasTopKey is true when a key of the mapping m is name or starts a dotted
// key with it (name.…), in Spring's relaxed form.
func hasTopKey(m mapping, name string) bool {
	for _, k := range m.keys() {
		if relaxed(splitSpringKey(k)[0]) == name {
			return true
		}
	}
	return false
}

// mergeLimiters moves the entries of ratelimiter.limiters into
// ratelimiter.instances: resilience4j's CommonRateLimiterConfigurationProperties
// keeps "limiters" for backwards compatibility, its getLimiters() returning
// the instances map itself, so Spring binds both keys into one map.
func mergeLimiters(rl *yaml.Node) {
	if rl == nil || rl.Kind != yaml.MappingNode {
		return
	}
	li := -1
	for i := 0; i+1 < len(rl.Content); i += 2 {
		if rl.Content[i].Value == "limiters" {
			li = i
		}
	}
	if li < 0 {
		return
	}
	lim := rl.Content[li+1]
	inst := mp(rl).get("instances")
	if inst == nil || inst.Kind != yaml.MappingNode {
		rl.Content[li].Value = "instances"
		return
	}
	if lim.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(lim.Content); i += 2 {
			insertPath(inst, []string{lim.Content[i].Value}, lim.Content[i], lim.Content[i+1])
		}
	}
	rl.Content = append(rl.Content[:li], rl.Content[li+2:]...)
}

package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
)

// walkMaps calls fn on every mapping in the tree, depth first, with the
// keys that lead to it.
func walkMaps(n *yaml.Node, path []string, fn func(m *yaml.Node, path []string)) {
	switch n.Kind {
	case yaml.MappingNode:
		fn(n, path)
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkMaps(n.Content[i+1], append(path[:len(path):len(path)], n.Content[i].Value), fn)
		}
	case yaml.SequenceNode:
		for i, it := range n.Content {
			walkMaps(it, append(path[:len(path):len(path)], strconv.Itoa(i)), fn)
		}
	case yaml.DocumentNode:
		for _, it := range n.Content {
			walkMaps(it, path, fn)
		}
	}
}

// --- ingress-nginx ---------------------------------------------------------

const ingressPrefix = "nginx.ingress.kubernetes.io/"

// ingress reads ingress-nginx's rate-limit annotations on Ingress objects
// (one document, several, or a List) and expands them as the controller's
// template does (internal/ingress/annotations/ratelimit, buildRateLimit):
// limit-rps and limit-rpm each become a 5m zone keyed on the client
// address with burst = limit × limit-burst-multiplier (default 5) and
// nodelay; limit-connections a limit_conn.
func (d *doc) ingress(root *yaml.Node) ([]Rule, error) {
	var out []Rule
	var visit func(n *yaml.Node) error
	visit = func(n *yaml.Node) error {
		m := mp(n)
		if m.str("kind") == "List" {
			for _, it := range items(m.get("items")) {
				if err := visit(it); err != nil {
					return err
				}
			}
			return nil
		}
		if m.str("kind") != "Ingress" {
			return nil
		}
		r, ok, err := d.ingressRule(n)
		if err != nil {
			return err
		}
		if ok {
			out = append(out, r)
		}
		return nil
	}
	for _, n := range d.docs(root) {
		if err := visit(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// docs returns every document of the file when it holds several (---).
func (d *doc) docs(root *yaml.Node) []*yaml.Node {
	if d.all != nil {
		return d.all
	}
	return []*yaml.Node{root}
}

func (d *doc) ingressRule(n *yaml.Node) (Rule, bool, error) {
	m := mp(n)
	name := m.path("metadata", "name")
	ns := m.path("metadata", "namespace")
	label := "ingress"
	if name != nil {
		label = name.Value
		if ns != nil {
			label = ns.Value + "/" + label
		}
	}
	ann := m.path("metadata", "annotations")
	if ann == nil {
		return Rule{}, false, nil
	}
	f, err := d.fields(ann, "annotation")
	if err != nil {
		return Rule{}, false, err
	}
	read := func(key string) (int64, error) {
		v, err := f.whole(ingressPrefix+key, 0)
		if err == nil && v < 0 {
			err = f.errf(ingressPrefix+key, "is negative; give 0 or more")
		}
		return v, err
	}
	rps, e1 := read("limit-rps")
	rpm, e2 := read("limit-rpm")
	conn, e3 := read("limit-connections")
	mult, e4 := f.whole(ingressPrefix+"limit-burst-multiplier", 5)
	if err := first(e1, e2, e3, e4); err != nil {
		return Rule{}, false, err
	}
	if rps == 0 && rpm == 0 && conn == 0 {
		return Rule{}, false, nil
	}
	var stages, what, notes []string
	if rps > 0 {
		stages = append(stages, spec("nginx-limit-req", "rate", fmt.Sprintf("%dr/s", rps), "burst", strconv.FormatInt(rps*mult, 10), "nodelay", "true", "zone", "5m", "key", "ip"))
		what = append(what, fmt.Sprintf("limit-rps=%d", rps))
	}
	if rpm > 0 {
		stages = append(stages, spec("nginx-limit-req", "rate", fmt.Sprintf("%dr/m", rpm), "burst", strconv.FormatInt(rpm*mult, 10), "nodelay", "true", "zone", "5m", "key", "ip"))
		what = append(what, fmt.Sprintf("limit-rpm=%d", rpm))
	}
	if conn > 0 {
		stages = append(stages, spec("concurrency", "limit", strconv.FormatInt(conn, 10), "key", "ip"))
		what = append(what, fmt.Sprintf("limit-connections=%d", conn))
		notes = append(notes, "limit-connections: a limit_conn per client address, simulated as a per-key concurrency limit whose count ends at each response (needs rt_ms in the trace or a downstream); nginx runs limit_req before limit_conn in the preaccess phase, so it is the chain's last stage")
	}
	what = append(what, fmt.Sprintf("limit-burst-multiplier=%d", mult))
	for _, k := range []string{"limit-allowlist", "limit-whitelist"} {
		if v, _ := f.str(ingressPrefix+k, ""); v != "" {
			notes = append(notes, fmt.Sprintf("%s %q: not simulated; addresses in it are not limited by nginx", k, v))
		}
	}
	for _, k := range []string{"limit-rate", "limit-rate-after"} {
		if v, _ := f.str(ingressPrefix+k, ""); v != "" {
			notes = append(notes, fmt.Sprintf("%s: limits response bandwidth, not requests; ignored", k))
		}
	}
	return Rule{Name: label, Source: d.pos(n), What: strings.Join(what, " "), Spec: strings.Join(stages, "+"),
		Notes: notes, KeyColumns: []string{"ip"}, NeedsResponses: conn > 0}, true, nil
}

// --- Envoy local_ratelimit ------------------------------------------------

// envoyLocal reads every LocalRateLimit config in the file (a bare
// config, an http_filters entry, or a route's typed_per_filter_config):
// its token_bucket becomes envoy-local, and each descriptor's bucket a row
// of its own.
func (d *doc) envoyLocal(root *yaml.Node) ([]Rule, error) {
	var out []Rule
	var err error
	walkMaps(root, nil, func(n *yaml.Node, path []string) {
		if err != nil {
			return
		}
		m := mp(n)
		tb := m.get("token_bucket")
		if tb == nil || m.has("max_tokens") {
			return
		}
		if len(path) >= 2 && path[len(path)-2] == "descriptors" {
			return // a descriptor of the filter read below, not a LocalRateLimit
		}
		name := m.str("stat_prefix")
		if name == "" {
			name = "local_ratelimit"
		}
		var r Rule
		r, err = d.envoyBucket(tb, name)
		if err != nil {
			return
		}
		r.Source = d.pos(n)
		// The filter's switches hold for its descriptors' buckets too.
		// Filter::decodeHeaders: a request the filter is not enabled for
		// passes untouched; a refusal not enforced passes. Each is a
		// RuntimeFractionalPercent drawn per request (featureEnabled);
		// unset is never (FilterConfig::enabled() and enforced() are
		// false without the field).
		var enabled []string
		var gate string // the spec parameters of fractions below 100%
		en, e1 := d.envoyFraction(m.get("filter_enabled"), "filter_enabled")
		enf, e2 := d.envoyFraction(m.get("filter_enforced"), "filter_enforced")
		if err = first(e1, e2); err != nil {
			return
		}
		switch {
		case en.Den == 100 && en.Num == 0:
			enabled = append(enabled, "filter_enabled is unset or 0%: Envoy does not even check this bucket (it defaults to 0% for safety); the row shows what it would do when enabled")
		case enf.Den == 100 && enf.Num == 0:
			enabled = append(enabled, "filter_enforced is unset or 0%: Envoy counts but lets every request through (shadow); the row shows what it would reject")
		}
		if len(enabled) == 0 {
			for _, f := range []struct {
				key, param string
				v          algorithms.EnvoyFraction
			}{{"filter_enabled", "enabled", en}, {"filter_enforced", "enforced", enf}} {
				if f.v.Num < f.v.Den {
					gate += "," + f.param + "=" + f.v.String()
					r.Notes = append(r.Notes, fmt.Sprintf("%s %d/%d: drawn per request from the run's seed, as Envoy's runtime featureEnabled draws (random %% %d < %d)", f.key, f.v.Num, f.v.Den, f.v.Den, f.v.Num))
				}
			}
		}
		for _, k := range []string{"filter_enabled", "filter_enforced"} {
			if key := mp(m.get(k)).str("runtime_key"); key != "" {
				r.Notes = append(r.Notes, fmt.Sprintf("%s.runtime_key %s: the lab reads default_value; a runtime override of the key is not read", k, key))
			}
		}
		r.Spec += gate
		r.Notes = append(r.Notes, enabled...)
		r.DryRun = len(enabled) > 0
		if on, _ := strconv.ParseBool(m.str("local_rate_limit_per_downstream_connection")); on {
			r.Notes = append(r.Notes, NotSimulatedNote+"local_rate_limit_per_downstream_connection: Envoy keeps a bucket per downstream connection; the lab has no connections, so the row is one bucket for every request")
		}
		for _, k := range []string{"always_consume_default_token_bucket", "rate_limited_as_resource_exhausted", "response_headers_to_add", "request_headers_to_add_when_not_enforced", "enable_x_ratelimit_headers", "status", "stage", "vh_rate_limits"} {
			if m.has(k) {
				r.Notes = append(r.Notes, fmt.Sprintf("%s: does not change which requests the bucket admits; ignored", k))
			}
		}
		out = append(out, r)
		for i, desc := range items(m.get("descriptors")) {
			dm := mp(desc)
			var parts []string
			keyCol := ""
			for _, e := range items(dm.get("entries")) {
				em := mp(e)
				if em.str("value") == "" {
					keyCol = em.str("key")
					parts = append(parts, em.str("key")+"=*")
				} else {
					parts = append(parts, em.str("key")+"="+em.str("value"))
				}
			}
			dtb := dm.get("token_bucket")
			if dtb == nil {
				err = d.errAt(desc, "descriptor %d of %s has no token_bucket; add one", i, name)
				return
			}
			var dr Rule
			dr, err = d.envoyBucket(dtb, name+" ["+strings.Join(parts, ",")+"]")
			if err != nil {
				return
			}
			dr.Source = d.pos(desc)
			if keyCol != "" {
				dr.Spec = dr.Spec + ",key=" + keyCol
				dr.KeyColumns = []string{keyCol}
				dr.Notes = append(dr.Notes, fmt.Sprintf("entry %s has no value: one bucket per distinct value of the trace column %q (Envoy ≥ 1.34, at most max-descriptors)", keyCol, keyCol))
			}
			dr.Notes = append(dr.Notes, "descriptor bucket: the row assumes every request carries this descriptor (the route's rate_limits actions decide that in Envoy)")
			dr.Spec += gate
			dr.Notes = append(dr.Notes, enabled...)
			dr.DryRun = len(enabled) > 0
			out = append(out, dr)
		}
	})
	return out, err
}

// envoyFraction reads a RuntimeFractionalPercent's default_value
// (numerator, denominator HUNDRED, TEN_THOUSAND or MILLION; HUNDRED when
// left out). An absent field or default_value is 0/100: Envoy treats a
// missing filter_enabled or filter_enforced as never.
func (d *doc) envoyFraction(n *yaml.Node, what string) (algorithms.EnvoyFraction, error) {
	dv := mp(n).get("default_value")
	if dv == nil {
		return algorithms.EnvoyFraction{Num: 0, Den: 100}, nil
	}
	num := uint64(0)
	if v := mp(dv).get("numerator"); v != nil {
		x, err := strconv.ParseUint(strings.TrimSpace(v.Value), 10, 32)
		if err != nil {
			return algorithms.EnvoyFraction{}, d.errAt(v, "%s.default_value.numerator %q is not a whole number from 0 to %d (a uint32)", what, clip(v.Value), uint32(math.MaxUint32))
		}
		num = x
	}
	den := uint64(100)
	switch v := mp(dv).str("denominator"); v {
	case "", "HUNDRED", "0":
	case "TEN_THOUSAND", "1":
		den = 10000
	case "MILLION", "2":
		den = 1000000
	default:
		return algorithms.EnvoyFraction{}, d.errAt(mp(dv).get("denominator"), "%s.default_value.denominator %q is not HUNDRED, TEN_THOUSAND or MILLION", what, clip(v))
	}
	return algorithms.EnvoyFraction{Num: num, Den: den}, nil
}

func (d *doc) envoyBucket(tb *yaml.Node, name string) (Rule, error) {
	f, err := d.fields(tb, "token_bucket")
	if err != nil {
		return Rule{}, err
	}
	maxT, e1 := f.whole("max_tokens", 0)
	perFill, e2 := f.whole("tokens_per_fill", 1)
	fill, e3 := f.duration("fill_interval", 0, time.Second)
	if err := first(e1, e2, e3); err != nil {
		return Rule{}, err
	}
	switch {
	case maxT < 1:
		return Rule{}, f.errf("max_tokens", "is %d; Envoy requires at least 1", maxT)
	case perFill < 1:
		return Rule{}, f.errf("tokens_per_fill", "is %d; Envoy requires at least 1", perFill)
	case fill <= 0:
		return Rule{}, f.errf("fill_interval", "is missing or 0; give a duration such as 1s")
	}
	var notes []string
	for _, k := range f.unread() {
		notes = append(notes, k+": ignored")
	}
	return Rule{
		Name: name, What: fmt.Sprintf("token_bucket max_tokens=%d tokens_per_fill=%d fill_interval=%v", maxT, perFill, fill),
		Spec:  spec("envoy-local", "max-tokens", strconv.FormatInt(maxT, 10), "tokens-per-fill", strconv.FormatInt(perFill, 10), "fill-interval", fmtDur(fill)),
		Notes: notes,
	}, nil
}

// --- envoyproxy/ratelimit ---------------------------------------------------

var envoyUnits = []string{"second", "minute", "hour", "day", "week", "month", "year"}

// envoyRLKeys are the keys envoyproxy/ratelimit accepts anywhere in its
// configuration (src/config/config_impl.go, validKeys); any other key
// makes the service refuse the file.
var envoyRLKeys = map[string]bool{
	"domain": true, "key": true, "value": true, "descriptors": true, "rate_limit": true,
	"unit": true, "requests_per_unit": true, "unlimited": true, "shadow_mode": true,
	"quota_mode": true, "name": true, "replaces": true, "detailed_metric": true,
	"value_to_metric": true, "share_threshold": true, "metadata": true,
}

// envoyRLValidate refuses the file where validateYamlKeys refuses it: a
// key that is not a string, a key outside validKeys, a list item that is
// not a map, a leaf that is not a string, a whole number, a bool or null
// (metadata's content is not checked).
func (d *doc) envoyRLValidate(n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
				return d.errAt(k, "the key %s is not a string; envoyproxy/ratelimit refuses the file (\"config error, key is not of type string\"), so quote it or fix it", clip(k.Value))
			}
			if !envoyRLKeys[k.Value] {
				return d.errAt(k, "unknown key %q; envoyproxy/ratelimit refuses the file (\"config error, unknown key\"); its keys are %s", clip(k.Value), strings.Join(sortedKeys(envoyRLKeys), ", "))
			}
			if k.Value == "metadata" {
				continue
			}
			if err := d.envoyRLValidate(v); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for _, it := range n.Content {
			if it.Kind != yaml.MappingNode {
				return d.errAt(it, "a list item is %s, not a map; envoyproxy/ratelimit refuses the file (\"config error, yaml file contains list of type other than map\")", kindName(it))
			}
			if err := d.envoyRLValidate(it); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str", "!!int", "!!bool", "!!null":
		default:
			return d.errAt(n, "the value %s is neither a string, a whole number nor a bool; envoyproxy/ratelimit refuses the file (\"error checking config\")", clip(n.Value))
		}
	case yaml.AliasNode:
		return d.envoyRLValidate(n.Alias)
	}
	return nil
}

// lastKeyWins returns n with each mapping's repeated keys reduced to their
// last occurrence, as the service reads YAML: gopkg.in/yaml.v2's
// Unmarshal (not UnmarshalStrict) sets a repeated key again, so the last
// value is the one loaded. n is not changed.
func lastKeyWins(n *yaml.Node) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		c := *n
		c.Content = nil
		last := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			last[n.Content[i].Value] = i
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if last[n.Content[i].Value] == i {
				c.Content = append(c.Content, n.Content[i], lastKeyWins(n.Content[i+1]))
			}
		}
		return &c
	case yaml.SequenceNode:
		c := *n
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, it := range n.Content {
			c.Content[i] = lastKeyWins(it)
		}
		return &c
	}
	return n
}

// envoyLevel is one descriptor entry on the path to a rate limit.
type envoyLevel struct {
	key, value string
	share      bool
}

// envoyRatelimit reads envoyproxy/ratelimit's configuration as the
// service loads it (src/config/config_impl.go, loadConfig and
// loadDescriptors): what the service refuses refuses the file, each
// descriptor with a rate_limit becomes a redis-envoy-ratelimit row. The
// row's counter is the service's cache key (src/limiter/cache_key.go
// GenerateCacheKey): the domain and every entry's key and value on the
// descriptor's path, so a level without a value, or with a wildcard value
// (foo*) and no share_threshold, varies with the request (key=COLUMN,
// remote_address reads ip), and a fixed value or a share_threshold
// wildcard does not.
func (d *doc) envoyRatelimit(root *yaml.Node) ([]Rule, error) {
	if root.Kind != yaml.MappingNode {
		return nil, d.errAt(root, "the configuration must be a map with domain and descriptors, got %s", kindName(root))
	}
	root = lastKeyWins(root)
	if err := d.envoyRLValidate(root); err != nil {
		return nil, err
	}
	m := mp(root)
	domain := m.str("domain")
	if domain == "" {
		return nil, d.errAt(root, "the configuration has no domain; the service refuses it (\"config file cannot have empty domain\"), so add domain: NAME")
	}
	var out []Rule
	names := map[string]int{}           // rate_limit name → its rule in out
	replacedBy := map[string][]string{} // name → the rules that replace it
	var walk func(list *yaml.Node, prefix string, path []envoyLevel) error
	walk = func(list *yaml.Node, prefix string, path []envoyLevel) error {
		if list == nil {
			return nil
		}
		if list.Kind != yaml.SequenceNode {
			return d.errAt(list, "descriptors must be a list, got %s", kindName(list))
		}
		seen := map[string]*yaml.Node{}
		explicit := map[string][]string{} // key → the plain values its siblings give
		for _, it := range list.Content {
			k, v := mp(it).str("key"), mp(it).str("value")
			if v != "" && !strings.Contains(v, "*") {
				explicit[k] = append(explicit[k], v)
			}
		}
		for _, it := range list.Content {
			f, err := d.fields(it, "descriptor")
			if err != nil {
				return err
			}
			key, e1 := f.str("key", "")
			val, e2 := f.str("value", "")
			shadow, e3 := f.boolean("shadow_mode", false)
			quota, e4 := f.boolean("quota_mode", false)
			detailed, e5 := f.boolean("detailed_metric", false)
			share, e6 := f.boolean("share_threshold", false)
			toMetric, e7 := f.boolean("value_to_metric", false)
			if err := first(e1, e2, e3, e4, e5, e6, e7); err != nil {
				return err
			}
			if key == "" {
				return d.errAt(it, "a descriptor has no key; the service refuses the file (\"descriptor has empty key\"), so add key: NAME")
			}
			finalKey := key
			if val != "" {
				finalKey += "_" + val
			}
			label := prefix + "." + finalKey
			if prev, dup := seen[finalKey]; dup {
				return d.errAt(it, "descriptor %s repeats the one at line %d; the service refuses the file (\"duplicate descriptor composite key\"), so merge them", label, prev.Line)
			}
			seen[finalKey] = it
			if share && !strings.Contains(finalKey, "*") {
				return d.errAt(f.at("share_threshold"), "share_threshold on %s, whose value has no '*'; the service refuses the file (\"share_threshold can only be used with wildcard values\")", label)
			}
			here := append(path[:len(path):len(path)], envoyLevel{key, val, share})
			if rl := f.node("rate_limit"); rl != nil {
				r, rlName, replaces, err := d.envoyRateLimit(rl, label, here, shadow)
				if err != nil {
					return err
				}
				if quota {
					r.Notes = append(r.Notes, "quota_mode: a quota descriptor fails a request only when every quota descriptor of the request is over its limit (ratelimit.go shouldRateLimitWorker); alone in a request, as the row has it, that is this one, so it decides as without quota_mode")
				}
				if detailed || toMetric {
					r.Notes = append(r.Notes, "detailed_metric, value_to_metric: change the names of the service's stats only, not which requests pass")
				}
				if mp(it).has("metadata") {
					f.node("metadata")
					r.Notes = append(r.Notes, "metadata: returned in the response's dynamic metadata; does not change which requests pass")
				}
				if last := here[len(here)-1]; r.Active() && (last.value == "" || strings.Contains(last.value, "*")) && len(explicit[key]) > 0 {
					r.Notes = append(r.Notes, fmt.Sprintf("the requests whose %s is %s match their own descriptor first (GetLimit looks up key_value before a wildcard and before the key alone), not this row's", key, strings.Join(explicit[key], ", ")))
				}
				if rlName != "" {
					names[rlName] = len(out)
				}
				for _, rep := range replaces {
					replacedBy[rep] = append(replacedBy[rep], label)
				}
				out = append(out, r)
			}
			// shadow_mode is the descriptor's own: NewRateLimit takes
			// descriptorConfig.ShadowMode, and children are loaded with
			// theirs, so it is not inherited.
			if err := walk(f.node("descriptors"), label, here); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(m.get("descriptors"), domain, nil); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(replacedBy) {
		if i, ok := names[name]; ok {
			out[i].Notes = append(out[i].Notes, fmt.Sprintf("%sthe limit named %q is replaced by %s: in the service a request that also carries the replacing descriptor is not counted against this limit (ratelimit.go constructLimitsToCheck); the lab runs each descriptor on its own row, so this row counts every request", NotSimulatedNote, name, strings.Join(replacedBy[name], ", ")))
		}
	}
	return out, nil
}

// envoyRateLimit reads one rate_limit at the end of path (path's last
// level is its descriptor), as loadDescriptors does, with shadow the
// descriptor's own shadow_mode. It returns the rule, the limit's name and
// the names it replaces.
func (d *doc) envoyRateLimit(rl *yaml.Node, label string, path []envoyLevel, shadow bool) (Rule, string, []string, error) {
	f, err := d.fields(rl, "rate_limit")
	if err != nil {
		return Rule{}, "", nil, err
	}
	unl, e1 := f.boolean("unlimited", false)
	unitName, e2 := f.str("unit", "")
	name, e3 := f.str("name", "")
	if err := first(e1, e2, e3); err != nil {
		return Rule{}, "", nil, err
	}
	n := int64(0) // requests_per_unit absent: the uint32's zero, a ban
	if v := f.node("requests_per_unit"); v != nil {
		x, err := strconv.ParseInt(strings.TrimSpace(v.Value), 10, 64)
		if err != nil || x < 0 || x > math.MaxUint32 || v.Tag != "!!int" {
			return Rule{}, "", nil, f.errf("requests_per_unit", "%q is not a whole number from 0 to %d (a uint32); the service cannot load the file", clip(v.Value), uint32(math.MaxUint32))
		}
		n = x
	}
	unit := -1
	for i, u := range envoyUnits {
		if strings.EqualFold(u, unitName) {
			unit = i
		}
	}
	// loadDescriptors: a unit is valid when it names a unit other than
	// UNKNOWN; unlimited must not have one, a limit must.
	switch {
	case unl && unit >= 0:
		return Rule{}, "", nil, f.errf("unit", "is %s although unlimited is true; the service refuses the file (\"should not specify rate limit unit when unlimited\"), so remove unit", unitName)
	case !unl && unit < 0 && unitName == "":
		return Rule{}, "", nil, f.errf("unit", "is missing; the service refuses the file (\"invalid rate limit unit ''\"), so give one of %s", strings.Join(envoyUnits, ", "))
	case !unl && unit < 0:
		return Rule{}, "", nil, f.errf("unit", "%q is not one of %s; the service refuses the file (\"invalid rate limit unit\")", clip(unitName), strings.Join(envoyUnits, ", "))
	}
	var replaces []string
	if rep := f.node("replaces"); rep != nil {
		if rep.Kind != yaml.SequenceNode {
			return Rule{}, "", nil, d.errAt(rep, "replaces must be a list of {name: NAME}, got %s", kindName(rep))
		}
		for _, it := range rep.Content {
			rn := mp(it).str("name")
			switch {
			case rn == "":
				return Rule{}, "", nil, d.errAt(it, "a replaces entry has no name; the service refuses the file (\"should not have an empty replaces entry\")")
			case rn == name:
				return Rule{}, "", nil, d.errAt(it, "replaces names %q, this rate_limit's own name; the service refuses the file (\"replaces should not contain name of same descriptor\")", rn)
			}
			replaces = append(replaces, rn)
		}
	}
	r := Rule{Name: label, Source: d.pos(rl)}
	if unl {
		r.What = "rate_limit unlimited"
		r.Outcome = Inactive
		r.Why = "unlimited: true: the service answers OK for this descriptor without counting it (ratelimit.go constructLimitsToCheck sets isUnlimited and passes no limit to the cache)"
		return r, name, replaces, nil
	}
	kv := []string{"limit", strconv.FormatInt(n, 10), "unit", envoyUnits[unit]}
	r.What = fmt.Sprintf("rate_limit %d per %s", n, envoyUnits[unit])
	if name != "" {
		r.What += " name=" + name
	}
	// The counter: GenerateCacheKey writes every entry's key and value
	// (a share_threshold wildcard writes its pattern instead).
	var cols, fixed []string
	for _, l := range path {
		col := l.key
		if col == "remote_address" {
			col = "ip"
		}
		switch {
		case l.value == "":
			cols = append(cols, col)
		case strings.Contains(l.value, "*") && !l.share:
			cols = append(cols, col)
			r.Notes = append(r.Notes, fmt.Sprintf("value %q: a wildcard; the service keeps one counter per matching value (the cache key holds the request's value), so one per value of the trace column %q; the row assumes every request's %s matches %s", l.value, col, l.key, l.value))
		case strings.Contains(l.value, "*"):
			r.Notes = append(r.Notes, fmt.Sprintf("value %q with share_threshold: one counter shared by every matching value (the cache key holds the pattern); the row assumes every request's %s matches %s", l.value, l.key, l.value))
		default:
			fixed = append(fixed, l.key+"="+l.value)
		}
	}
	if len(fixed) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("the row assumes every request carries %s (Envoy's rate_limits actions decide that)", strings.Join(fixed, ", ")))
	}
	switch len(cols) {
	case 0:
	case 1:
		kv = append(kv, "key", cols[0])
		r.KeyColumns = cols
	default:
		r.Outcome = NotSimulated
		r.Why = fmt.Sprintf("the service keeps one counter per combination of %s (the cache key holds every entry's value); the lab keys a row on one trace column: add a column joining them and run --algo 'redis-envoy-ratelimit:%s,key=COLUMN'", strings.Join(cols, ", "), kongKV(kv))
		return r, name, replaces, nil
	}
	if n == 0 {
		r.Notes = append(r.Notes, "requests_per_unit 0: a ban; every request is over the limit (the count after INCRBY is at least 1, above 0)")
	}
	if shadow {
		kv = append(kv, "shadow-mode", "true")
		r.Notes = append(r.Notes, "shadow_mode: the service answers OK to every request and counts as usual (this descriptor's own; not inherited by its children)")
	}
	r.Spec = spec("redis-envoy-ratelimit", kv...)
	return r, name, replaces, nil
}

// --- Spring Cloud Gateway ----------------------------------------------------

// spring reads the RequestRateLimiter filters of a Spring Cloud Gateway
// application.yml (routes and default-filters, under spring.cloud.gateway
// or, since 4.3, spring.cloud.gateway.server.webflux).
func (d *doc) spring(root *yaml.Node) ([]Rule, error) {
	var out []Rule
	for _, base := range [][]string{{"spring", "cloud", "gateway"}, {"spring", "cloud", "gateway", "server", "webflux"}} {
		gw := mp(root).path(base...)
		if gw == nil {
			continue
		}
		g := mp(gw)
		for _, f := range items(g.get("default-filters")) {
			r, ok, err := d.springFilter(f, "default-filters")
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, r)
			}
		}
		for i, route := range items(g.get("routes")) {
			id := mp(route).str("id")
			if id == "" {
				id = fmt.Sprintf("route %d", i)
			}
			for _, f := range items(mp(route).get("filters")) {
				r, ok, err := d.springFilter(f, id)
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, r)
				}
			}
		}
	}
	if r4j := mp(root).get("resilience4j"); r4j != nil {
		more, err := d.resilience4j(root)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

func (d *doc) springFilter(n *yaml.Node, route string) (Rule, bool, error) {
	args := map[string]*yaml.Node{}
	switch n.Kind {
	case yaml.ScalarNode:
		name, rest, _ := strings.Cut(n.Value, "=")
		if strings.TrimSpace(name) != "RequestRateLimiter" {
			return Rule{}, false, nil
		}
		if strings.TrimSpace(rest) != "" {
			return Rule{}, false, d.errAt(n, "RequestRateLimiter=%s: the shortcut form takes no Redis arguments; write the filter with name: and args: (redis-rate-limiter.replenishRate, …)", clip(rest))
		}
	case yaml.MappingNode:
		if mp(n).str("name") != "RequestRateLimiter" {
			return Rule{}, false, nil
		}
		a := mp(n).get("args")
		var flat func(m *yaml.Node, prefix string)
		flat = func(m *yaml.Node, prefix string) {
			for i := 0; i+1 < len(m.Content); i += 2 {
				k, v := prefix+m.Content[i].Value, m.Content[i+1]
				if v.Kind == yaml.MappingNode {
					flat(v, k+".")
				} else {
					args[k] = v
				}
			}
		}
		if a != nil && a.Kind == yaml.MappingNode {
			flat(a, "")
		}
	default:
		return Rule{}, false, nil
	}
	num := func(names ...string) (int64, *yaml.Node, error) {
		for _, k := range names {
			if v, ok := args[k]; ok {
				x, err := strconv.ParseInt(strings.TrimSpace(v.Value), 10, 64)
				if err != nil {
					return 0, v, d.errAt(v, "RequestRateLimiter %s: %q is not a whole number", k, clip(v.Value))
				}
				return x, v, nil
			}
		}
		return -1, nil, nil
	}
	rate, rn, e1 := num("redis-rate-limiter.replenishRate", "redis-rate-limiter.replenish-rate")
	burst, bn, e2 := num("redis-rate-limiter.burstCapacity", "redis-rate-limiter.burst-capacity")
	tokens, tn, e3 := num("redis-rate-limiter.requestedTokens", "redis-rate-limiter.requested-tokens")
	if err := first(e1, e2, e3); err != nil {
		return Rule{}, false, err
	}
	switch {
	case rn == nil:
		return Rule{}, false, d.errAt(n, "RequestRateLimiter on %s has no redis-rate-limiter.replenishRate; add it (tokens per second)", route)
	case rate < 1:
		return Rule{}, false, d.errAt(rn, "redis-rate-limiter.replenishRate is %d; Spring requires at least 1", rate)
	case bn != nil && burst < 0:
		return Rule{}, false, d.errAt(bn, "redis-rate-limiter.burstCapacity is %d; give 0 or more", burst)
	case tn != nil && tokens < 1:
		return Rule{}, false, d.errAt(tn, "redis-rate-limiter.requestedTokens is %d; Spring requires at least 1", tokens)
	}
	if bn == nil {
		burst = 1 // RedisRateLimiter.Config's default
	}
	if tn == nil {
		tokens = 1
	}
	var notes []string
	if burst < rate {
		notes = append(notes, fmt.Sprintf("burstCapacity %d is below replenishRate %d: Spring's configuration refuses it; the row runs the script as given", burst, rate))
	}
	if kr, ok := args["key-resolver"]; ok {
		notes = append(notes, fmt.Sprintf("key-resolver %s: its value is read from the trace's key column", kr.Value))
	} else {
		notes = append(notes, "no key-resolver: Spring's default PrincipalNameKeyResolver keys on the user; the row reads the key column (Spring denies an empty key by default, deny-empty-key)")
	}
	kv := []string{"replenish-rate", strconv.FormatInt(rate, 10), "burst-capacity", strconv.FormatInt(burst, 10)}
	if tokens != 1 {
		kv = append(kv, "requested-tokens", strconv.FormatInt(tokens, 10))
	}
	kv = append(kv, "key", "key")
	return Rule{
		Name: route, Source: d.pos(n), What: fmt.Sprintf("RequestRateLimiter replenishRate=%d burstCapacity=%d requestedTokens=%d", rate, burst, tokens),
		Spec: spec("redis-spring-gateway", kv...), Notes: notes, KeyColumns: []string{"key"},
	}, true, nil
}

// --- Traefik -----------------------------------------------------------------

// traefik reads rateLimit middlewares from Traefik's dynamic configuration
// (http.middlewares.NAME.rateLimit) or a Kubernetes Middleware resource.
func (d *doc) traefik(root *yaml.Node) ([]Rule, error) {
	var out []Rule
	for _, n := range d.docs(root) {
		m := mp(n)
		if m.str("kind") == "Middleware" {
			if rl := m.path("spec", "rateLimit"); rl != nil {
				name := "middleware"
				if nm := m.path("metadata", "name"); nm != nil && nm.Value != "" {
					name = nm.Value
				}
				r, err := d.traefikRule(rl, name, true)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
			continue
		}
		mw := m.path("http", "middlewares")
		if mw == nil {
			continue
		}
		for _, name := range mp(mw).keys() {
			rl := mapping{mp(mw).get(name)}.get("rateLimit")
			if rl == nil {
				continue
			}
			r, err := d.traefikRule(rl, name, false)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// traefikRule reads one rateLimit; crd says it is a Middleware resource's
// spec, whose schema refuses a negative burst. As Traefik's ratelimiter
// (burst := max(config.Burst, 1)), a burst of 0 (or, in the dynamic
// configuration, below 0) runs as 1; an absent burst is 1 (SetDefaults).
// An average of 0 (or below) is no limit in Traefik (New in
// pkg/middlewares/ratelimiter/rate_limiter.go keeps the rate at rate.Inf
// unless config.Average > 0): the rule is Inactive, not an error.
func (d *doc) traefikRule(n *yaml.Node, name string, crd bool) (Rule, error) {
	f, err := d.fields(n, "rateLimit")
	if err != nil {
		return Rule{}, err
	}
	avg, e1 := f.whole("average", 0)
	period, e2 := f.duration("period", time.Second, time.Second)
	burst, e3 := f.whole("burst", 1)
	if err := first(e1, e2, e3); err != nil {
		return Rule{}, err
	}
	var notes []string
	if period < 0 {
		return Rule{}, f.errf("period", "is %v; Traefik refuses a negative period (\"negative value not valid for period\")", period)
	}
	if avg < 0 && crd {
		return Rule{}, f.errf("average", "is %d; the Middleware schema requires 0 or more (0 is no limit)", avg)
	}
	if avg <= 0 {
		f.node("sourceCriterion")
		f.node("redis")
		return Rule{Name: name, Source: d.pos(n), What: fmt.Sprintf("rateLimit average=%d", avg),
			Outcome: Inactive,
			Why:     fmt.Sprintf("average %d: Traefik applies no rate limit (the rate stays rate.Inf unless average > 0, pkg/middlewares/ratelimiter/rate_limiter.go)", avg)}, nil
	}
	given := burst
	if burst < 0 && crd {
		return Rule{}, f.errf("burst", "is %d; the Middleware schema requires 0 or more (Traefik runs 0 as 1)", burst)
	}
	if burst < 1 {
		notes = append(notes, fmt.Sprintf("burst %d: Traefik raises a burst below 1 to 1 (burst := max(burst, 1)), so the row runs burst=1", burst))
		burst = 1
	}
	col := "ip"
	if sc := f.node("sourceCriterion"); sc != nil {
		sm := mp(sc)
		switch {
		case sm.has("requestHeaderName"):
			col = strings.ToLower(sm.str("requestHeaderName"))
			notes = append(notes, fmt.Sprintf("sourceCriterion.requestHeaderName %s: read from the trace column %q", sm.str("requestHeaderName"), col))
		case sm.has("requestHost"):
			col = "host"
		case sm.has("ipStrategy"):
			notes = append(notes, "sourceCriterion.ipStrategy: the trace's ip column should hold the address the strategy picks")
		}
	}
	if f.node("redis") != nil {
		notes = append(notes, NotSimulatedNote+"redis: Traefik (v3.4 and later) keeps the buckets in Redis through a Lua script (redis_limiter.go), shared by every Traefik instance; the row runs Traefik's in-memory limiter of one instance")
	}
	for _, k := range f.unread() {
		notes = append(notes, k+": ignored")
	}
	return Rule{
		Name: name, Source: d.pos(n), What: fmt.Sprintf("rateLimit average=%d period=%v burst=%d", avg, period, given),
		Spec:  spec("traefik", "average", strconv.FormatInt(avg, 10), "period", fmtDur(period), "burst", strconv.FormatInt(burst, 10), "key", col),
		Notes: notes, KeyColumns: []string{col},
	}, nil
}

// --- Kong ----------------------------------------------------------------------

// kongScope is where a Kong plugin applies: the route, service and
// consumer it is attached to (each "" when not), by name or id as the
// file gives it. routeService is the service of the route, when the file
// says it (a route nested under a service, or a route's service: field).
type kongScope struct {
	route, service, consumer, routeService string
}

// rank is the scope's place in Kong's lookup order (kong/runloop/
// plugins_iterator.lua, lookup_cfg): 1 route+service+consumer, 2
// route+consumer, 3 service+consumer, 4 route+service, 5 consumer, 6
// route, 7 service, 8 global. The first configured combination that
// matches a request is the one instance of the plugin that runs.
func (k kongScope) rank() int {
	r, s, c := k.route != "", k.service != "", k.consumer != ""
	switch {
	case r && s && c:
		return 1
	case r && c:
		return 2
	case s && c:
		return 3
	case r && s:
		return 4
	case c:
		return 5
	case r:
		return 6
	case s:
		return 7
	}
	return 8
}

func (k kongScope) String() string {
	var parts []string
	if k.route != "" {
		parts = append(parts, "route "+k.route)
	}
	if k.service != "" {
		parts = append(parts, "service "+k.service)
	}
	if k.consumer != "" {
		parts = append(parts, "consumer "+k.consumer)
	}
	if len(parts) == 0 {
		return "global"
	}
	return strings.Join(parts, " + ")
}

// overlaps is true when some request matches both scopes: no field both
// set differs (a route's known service counts as its service).
func (k kongScope) overlaps(o kongScope) bool {
	same := func(a, b string) bool { return a == "" || b == "" || a == b }
	ks, os := k.service, o.service
	if ks == "" {
		ks = k.routeService
	}
	if os == "" {
		os = o.routeService
	}
	return same(k.route, o.route) && same(ks, os) && same(k.consumer, o.consumer)
}

// kongPlugin is one rate-limiting plugin instance found in the file.
type kongPlugin struct {
	n     *yaml.Node
	scope kongScope
}

// kong reads the rate-limiting plugins of a Kong declarative configuration
// or a decK file: at the top level (with optional service, route and
// consumer fields), under services, their routes, top-level routes and
// consumers, each with its config merged from _plugin_configs when it
// names one (_config). Each becomes a row labelled with its scope; a
// disabled plugin (enabled: false) is Inactive. Kong runs one instance of
// the plugin per request, the most specific (kongScope.rank): each row's
// notes name the more specific instances that take its requests.
func (d *doc) kong(root *yaml.Node) ([]Rule, error) {
	m := mp(root)
	var found []kongPlugin
	ref := func(n *yaml.Node) string { // a foreign key: a name, an id, or {id: …} / {name: …}
		if n == nil {
			return ""
		}
		if n.Kind == yaml.ScalarNode {
			return n.Value
		}
		if v := mp(n).str("name"); v != "" {
			return v
		}
		return mp(n).str("id")
	}
	entityName := func(n *yaml.Node, keys ...string) string {
		for _, k := range keys {
			if v := mp(n).str(k); v != "" {
				return v
			}
		}
		return fmt.Sprintf("at line %d", n.Line)
	}
	add := func(list *yaml.Node, base kongScope) {
		for _, pl := range items(list) {
			pm := mp(pl)
			if pm.str("name") != "rate-limiting" {
				continue
			}
			sc := base
			if v := ref(pm.get("route")); v != "" && sc.route == "" {
				sc.route = v
			}
			if v := ref(pm.get("service")); v != "" && sc.service == "" {
				sc.service = v
			}
			if v := ref(pm.get("consumer")); v != "" && sc.consumer == "" {
				sc.consumer = v
			}
			found = append(found, kongPlugin{pl, sc})
		}
	}
	routeSvc := map[string]string{}
	add(m.get("plugins"), kongScope{})
	for _, svc := range items(m.get("services")) {
		name := entityName(svc, "name", "id")
		add(mp(svc).get("plugins"), kongScope{service: name})
		for _, rt := range items(mp(svc).get("routes")) {
			rn := entityName(rt, "name", "id")
			routeSvc[rn] = name
			add(mp(rt).get("plugins"), kongScope{route: rn, routeService: name})
		}
	}
	for _, rt := range items(m.get("routes")) {
		rn := entityName(rt, "name", "id")
		svc := ref(mp(rt).get("service"))
		if svc != "" {
			routeSvc[rn] = svc
		}
		add(mp(rt).get("plugins"), kongScope{route: rn, routeService: svc})
	}
	for _, c := range items(m.get("consumers")) {
		add(mp(c).get("plugins"), kongScope{consumer: entityName(c, "username", "custom_id", "id")})
	}
	// Plugins scoped to a consumer group (Kong Enterprise): no row.
	var grouped []Rule
	for _, g := range items(m.get("consumer_groups")) {
		name := entityName(g, "name", "id")
		for _, pl := range items(mp(g).get("plugins")) {
			if mp(pl).str("name") != "rate-limiting" {
				continue
			}
			grouped = append(grouped, Rule{Name: "consumer group " + name, Scope: "consumer group " + name, Source: d.pos(pl),
				What: "rate-limiting on a consumer group", Outcome: NotSimulated,
				Why: "a plugin scoped to a consumer group applies to the group's consumers (Kong Enterprise's consumer groups); the lab has no consumers to group: run the group's requests alone with the plugin's limits as --algo 'kong:…,key=*'"})
		}
	}
	var out []Rule
	var scopes []kongScope             // out[i]'s scope
	enabled := map[string]*yaml.Node{} // scope → the enabled instance there
	var live []kongPlugin              // the enabled instances, simulated or not
	for i := range found {
		if found[i].scope.routeService == "" {
			found[i].scope.routeService = routeSvc[found[i].scope.route]
		}
		k := found[i]
		r, err := d.kongRule(k.n, k.scope, mp(m.get("_plugin_configs")))
		if err != nil {
			return nil, err
		}
		if r.Outcome != Inactive {
			key := k.scope.String()
			if prev, dup := enabled[key]; dup {
				return nil, d.errAt(k.n, "a second rate-limiting plugin on %s (the first is at line %d); Kong allows one instance of a plugin per route, service and consumer, so remove one", key, prev.Line)
			}
			enabled[key] = k.n
			live = append(live, k)
		}
		out = append(out, r)
		scopes = append(scopes, k.scope)
	}
	out = append(out, grouped...)
	scopes = append(scopes, make([]kongScope, len(grouped))...)
	// Precedence: the instances that take some of each row's requests.
	for i := range out {
		if !out[i].Active() {
			continue
		}
		me := scopes[i]
		var over []string
		for _, o := range live {
			if o.scope.rank() < me.rank() && o.scope.overlaps(me) {
				over = append(over, fmt.Sprintf("%s (line %d)", o.scope, o.n.Line))
			}
		}
		if len(over) > 0 {
			out[i].Notes = append(out[i].Notes, fmt.Sprintf("Kong runs one rate-limiting instance per request, the most specific (plugins_iterator.lua lookup_cfg: route+service+consumer, route+consumer, service+consumer, route+service, consumer, route, service, global): the requests of %s go to that plugin instead; the row assumes every request reaches this one", strings.Join(over, ", ")))
		}
		if me.rank() < 8 {
			out[i].Notes = append(out[i].Notes, fmt.Sprintf("scoped to %s: the row assumes every request of the trace is one of its requests", me))
		}
	}
	return out, nil
}

// kongPeriods are the rate-limiting plugin's periods, shortest first
// (schema.lua ORDERED_PERIODS).
var kongPeriods = []string{"second", "minute", "hour", "day", "month", "year"}

// kongRule reads one rate-limiting plugin. Kong's schema
// (kong/plugins/rate-limiting/schema.lua) refuses what Kong refuses: no
// period set, a period's limit not above 0, a longer period with a lower
// limit than a shorter one (validate_periods_order), sync_rate without the
// redis policy, limit_by outside its one_of, header without header_name,
// path without path. The key follows handler.lua's get_identifier.
func (d *doc) kongRule(n *yaml.Node, sc kongScope, shared mapping) (Rule, error) {
	label := sc.String()
	pm := mp(n)
	r := Rule{Name: label, Scope: label, Source: d.pos(n)}
	if en := pm.get("enabled"); en != nil && en.Kind == yaml.ScalarNode && en.Tag != "!!null" {
		on, err := strconv.ParseBool(en.Value)
		if err != nil {
			return Rule{}, d.errAt(en, "rate-limiting plugin on %s: enabled %q is not true or false", label, clip(en.Value))
		}
		if !on {
			r.Outcome = Inactive
			r.Why = "enabled: false: Kong does not run a disabled plugin (plugins_iterator.lua builds no configuration for it), so a more general rate-limiting plugin, if any, applies instead"
		}
	}
	cfg := pm.get("config")
	if src := pm.str("_config"); src != "" {
		base := shared.get(src)
		if base == nil {
			return Rule{}, d.errAt(pm.get("_config"), "rate-limiting plugin on %s: _config %q is not under _plugin_configs; decK refuses the file (\"_plugin_config not found\"), so define it", label, src)
		}
		cfg = mergeKongConfig(cfg, base)
	}
	if cfg == nil {
		return Rule{}, d.errAt(n, "rate-limiting plugin on %s has no config; add config: {minute: N}", label)
	}
	f, err := d.fields(cfg, "rate-limiting config")
	if err != nil {
		return Rule{}, err
	}
	var kv, what, notes []string
	lim := map[string]float64{}
	for _, unit := range kongPeriods {
		if f.m.get(unit) == nil || f.m.get(unit).Tag == "!!null" {
			f.node(unit)
			continue
		}
		v, err := f.positive(unit, 0)
		if err != nil {
			return Rule{}, err
		}
		if v == 0 {
			return Rule{}, f.errf(unit, "is 0; Kong's schema requires a limit above 0, so give a positive value or remove %s", unit)
		}
		for _, lower := range kongPeriods {
			if lower == unit {
				break
			}
			if lv, ok := lim[lower]; ok && v < lv {
				return Rule{}, f.errf(unit, "is %s, below %s's %s; Kong refuses it (\"The limit for %s cannot be lower than the limit for %s\", schema.lua validate_periods_order)", fmtNum(v), lower, fmtNum(lv), unit, lower)
			}
		}
		lim[unit] = v
		kv = append(kv, unit, fmtNum(v))
		what = append(what, fmt.Sprintf("%s=%s", unit, fmtNum(v)))
	}
	if len(lim) == 0 {
		return Rule{}, d.errAt(cfg, "rate-limiting plugin on %s sets no limit; give second, minute, hour, day, month or year", label)
	}
	policy, err := f.str("policy", "local")
	if err != nil {
		return Rule{}, err
	}
	switch policy {
	case "local", "redis":
	case "cluster":
		notes = append(notes, NotSimulatedNote+"policy cluster: Kong counts in its database, shared by every node; the row runs policy local (one node, counts only accepted requests)")
		policy = "local"
	default:
		return Rule{}, f.errf("policy", "%q is not local, cluster or redis", clip(policy))
	}
	syncRate := "" // seconds, when sync_rate > 0
	if sr := f.node("sync_rate"); sr != nil {
		v, err := strconv.ParseFloat(strings.TrimSpace(sr.Value), 64)
		switch {
		case err != nil:
			return Rule{}, f.errf("sync_rate", "%q is not a number", clip(sr.Value))
		case v != -1 && policy != "redis":
			return Rule{}, f.errf("sync_rate", "is %s with policy %s; Kong refuses it (\"sync_rate can only be used with the redis policy\"), so remove it or give -1", fmtNum(v), policy)
		case v != -1 && v < 0.02:
			return Rule{}, f.errf("sync_rate", "is %s; Kong requires 0.02 or more, or -1", fmtNum(v))
		case v != -1:
			// algorithms/gateway_kong_sync.go: policies/init.lua's local counters and sync timer.
			syncRate = fmtNum(v)
			notes = append(notes, fmt.Sprintf("sync_rate %s: each Kong node counts locally and pushes its deltas to Redis every %ss (sync-rate=%s); the row is one node: add instances=N for N nodes", syncRate, syncRate, syncRate))
		}
	}
	kv = append(kv, "policy", policy)
	if syncRate != "" {
		kv = append(kv, "sync-rate", syncRate)
	}
	if policy == "redis" {
		notes = append(notes, "policy redis: one Redis shared by every Kong node; the row is one node (kong's policy=redis counts every request)")
	}
	limitBy, err := f.str("limit_by", "consumer")
	if err != nil {
		return Rule{}, err
	}
	col := "key"
	// handler.lua get_identifier: the identifier, or the client address
	// (kong.client.get_forwarded_ip) when there is none.
	const fallback = NotSimulatedNote + "when the request has none, Kong counts it by the client address (handler.lua get_identifier falls back to kong.client.get_forwarded_ip); the lab keys on one column and does not switch: give the trace a key column that holds the address on those lines"
	switch limitBy {
	case "ip":
		col = "ip"
	case "header":
		h, _ := f.str("header_name", "")
		if h == "" {
			return Rule{}, f.errf("header_name", "is missing although limit_by is header; Kong's schema requires it, so name the header")
		}
		col = strings.ToLower(h)
		notes = append(notes, fmt.Sprintf("limit_by header: one counter per value of the header %s, read from the trace column %q", h, col), fallback)
	case "path":
		p, _ := f.str("path", "")
		if p == "" {
			return Rule{}, f.errf("path", "is missing although limit_by is path; Kong's schema requires it, so give the path to count")
		}
		r.What = "rate-limiting " + strings.Join(what, " ") + " limit_by=path path=" + p
		if r.Active() {
			r.Outcome = NotSimulated
			r.Why = fmt.Sprintf("limit_by path: Kong counts the requests whose path is exactly %s in one counter and every other request per client address (handler.lua get_identifier); the lab's key reads one column and cannot switch on a value, so it does not simulate the mix: replay the requests of %s alone with --algo 'kong:%s,key=*', or the others with key=ip", p, p, kongKV(kv))
		}
		return r, nil
	case "service":
		if sc.service != "" || sc.route != "" {
			col = "*"
			notes = append(notes, "limit_by service: the plugin is on one service (or a route of it), so one counter for all its requests (key=*)")
		} else {
			col = "service"
			notes = append(notes, "limit_by service: one counter per service the request goes to, read from the trace column \"service\"")
		}
	case "consumer", "credential":
		if limitBy == "consumer" && sc.consumer != "" {
			col = "*"
			notes = append(notes, fmt.Sprintf("limit_by consumer on consumer %s: every request it sees is that consumer's, so one counter (key=*)", sc.consumer))
			break
		}
		id := "the consumer (else its credential)"
		if limitBy == "credential" {
			id = "the credential"
		}
		notes = append(notes, fmt.Sprintf("limit_by %s: one counter per %s, read from the trace's key column", limitBy, id), fallback)
	default:
		return Rule{}, f.errf("limit_by", "%q is not consumer, credential, ip, service, header or path (Kong's schema one_of)", clip(limitBy))
	}
	kv = append(kv, "key", col)
	for _, k := range f.unread() {
		if k != "header_name" && k != "path" {
			notes = append(notes, k+": ignored (does not change which requests pass)")
		}
	}
	r.What = "rate-limiting " + strings.Join(what, " ")
	r.Spec = spec("kong", kv...)
	r.Notes = notes
	if col != "*" {
		r.KeyColumns = []string{col}
	}
	return r, nil
}

// kongKV renders spec parameters k1,v1,k2,v2 as k1=v1,k2=v2.
func kongKV(kv []string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kv[i] + "=" + kv[i+1])
	}
	return b.String()
}

// mergeKongConfig is decK's mergePluginConfig (go-database-reconciler
// pkg/file/builder.go): the shared _plugin_configs entry's fields fill
// those the plugin's own config lacks, recursively; the plugin's own
// values win. The result is a new node; neither input changes.
func mergeKongConfig(own, shared *yaml.Node) *yaml.Node {
	if own == nil || own.Kind != yaml.MappingNode {
		return shared
	}
	if shared.Kind != yaml.MappingNode {
		return own
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: own.Tag, Line: own.Line, Column: own.Column}
	out.Content = append(out.Content, own.Content...)
	for i := 0; i+1 < len(shared.Content); i += 2 {
		k, v := shared.Content[i], shared.Content[i+1]
		mine := mp(own).get(k.Value)
		switch {
		case mine == nil:
			out.Content = append(out.Content, k, v)
		case mine.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
			merged := mergeKongConfig(mine, v)
			for j := 0; j+1 < len(out.Content); j += 2 {
				if out.Content[j].Value == k.Value {
					out.Content[j+1] = merged
				}
			}
		}
	}
	return out
}

// --- resilience4j ----------------------------------------------------------------

// resilience4j reads resilience4j.ratelimiter.instances (with configs and
// baseConfig) from a Spring Boot application.yml.
func (d *doc) resilience4j(root *yaml.Node) ([]Rule, error) {
	rl := mp(root).path("resilience4j", "ratelimiter")
	if rl == nil {
		return nil, nil
	}
	configs := mp(rl).get("configs")
	inst := mp(rl).get("instances")
	if inst == nil {
		return nil, nil
	}
	var out []Rule
	for _, name := range mp(inst).keys() {
		n := mp(inst).get(name)
		layers := []*yaml.Node{n}
		seen := map[string]bool{}
		for cur := n; cur != nil; {
			base := mp(cur).str("baseConfig")
			if base == "" {
				break
			}
			if seen[base] {
				return nil, d.errAt(cur, "baseConfig %q refers back to itself; break the loop", base)
			}
			seen[base] = true
			cur = mp(configs).get(base)
			if cur == nil {
				return nil, d.errAt(n, "instance %s: baseConfig %q is not under resilience4j.ratelimiter.configs; define it", name, base)
			}
			layers = append(layers, cur)
		}
		if def := mp(configs).get("default"); def != nil && !seen["default"] {
			layers = append(layers, def)
		}
		// Each field from the first layer that sets it.
		pick := func(key string) *yaml.Node {
			for _, l := range layers {
				if v := mp(l).get(key); v != nil {
					return l
				}
			}
			return nil
		}
		limit, refresh, timeout := int64(50), 500*time.Nanosecond, 5*time.Second
		var err error
		if l := pick("limitForPeriod"); l != nil {
			f, _ := d.fields(l, "ratelimiter config")
			if limit, err = f.whole("limitForPeriod", 50); err != nil {
				return nil, err
			}
			if limit < 1 {
				return nil, f.errf("limitForPeriod", "is %d; resilience4j requires at least 1", limit)
			}
		}
		if l := pick("limitRefreshPeriod"); l != nil {
			f, _ := d.fields(l, "ratelimiter config")
			if refresh, err = f.duration("limitRefreshPeriod", refresh, time.Millisecond); err != nil {
				return nil, err
			}
			if refresh < time.Nanosecond {
				return nil, f.errf("limitRefreshPeriod", "is %v; resilience4j requires at least 1ns", refresh)
			}
		}
		if l := pick("timeoutDuration"); l != nil {
			f, _ := d.fields(l, "ratelimiter config")
			if timeout, err = f.duration("timeoutDuration", timeout, time.Millisecond); err != nil {
				return nil, err
			}
		}
		out = append(out, Rule{
			Name: name, Source: d.pos(n),
			What: fmt.Sprintf("ratelimiter limitForPeriod=%d limitRefreshPeriod=%v timeoutDuration=%v", limit, refresh, timeout),
			Spec: spec("resilience4j", "limit-for-period", strconv.FormatInt(limit, 10), "refresh-period", fmtDur(refresh), "timeout", fmtDur(timeout)),
		})
	}
	return out, nil
}

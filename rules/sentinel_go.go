package rules

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// sentinelGoDocs reads sentinel-golang rules, every document of the file
// together: the JSON its ext/datasource parsers json.Unmarshal into its
// rule structs (FlowRuleJsonArrayParser and the others: a list of one
// kind, told apart by fields; field names matched in any case, as
// encoding/json matches them, so "Resource" and "Threshold" read too), a
// map of kinds {flow, isolation, hotspot, circuitbreaker, system}, or the
// Kubernetes CRDs of pkg/datasource/k8s (apiVersion
// datasource.sentinel.io/v1alpha1, kinds FlowRules, IsolationRules,
// SystemRules, HotspotRules, CircuitBreakerRules, rules under
// spec.rules, converted as its controllers' assemble functions do).
// Enums are their numbers or their Go names (Direct, WarmUp, Reject,
// Throttling, …). A rule its IsValidRule refuses is dropped (Inactive)
// and the rest load.
func (d *doc) sentinelGoDocs(roots []*yaml.Node) ([]Rule, error) {
	var groups []ruleGroup
	for _, root := range roots {
		m := mp(root)
		if kind := sentinelGoCRDKinds[m.str("kind")]; kind != "" && root.Kind == yaml.MappingNode {
			rules := m.path("spec", "rules")
			if rules != nil && rules.Kind != yaml.SequenceNode {
				return nil, d.errAt(rules, "spec.rules must be a list of rules, got %s", kindName(rules))
			}
			if d.crd == nil {
				d.crd = map[*yaml.Node]bool{}
			}
			for _, it := range items(rules) {
				foldGoKeys(it)
				d.crd[it] = true
			}
			groups = append(groups, ruleGroup{kind, items(rules)})
			continue
		}
		if root.Kind == yaml.MappingNode && !isGoRule(root) {
			for _, k := range m.keys() {
				v := m.get(k)
				kind := strings.ToLower(k)
				switch kind {
				case "flow", "isolation", "hotspot", "circuitbreaker", "system":
				default:
					return nil, d.errAt(m.keyNode(k), "%q is not a kind of sentinel-golang rule; use flow, isolation, hotspot, circuitbreaker or system", k)
				}
				if v.Kind != yaml.SequenceNode {
					return nil, d.errAt(v, "%s must be a list of rules, got %s", k, kindName(v))
				}
				for _, it := range v.Content {
					foldGoKeys(it)
				}
				groups = append(groups, ruleGroup{kind, v.Content})
			}
			continue
		}
		list := []*yaml.Node{root}
		if root.Kind == yaml.SequenceNode {
			list = root.Content
		}
		for _, it := range list {
			foldGoKeys(it)
			groups = append(groups, ruleGroup{goKind(it), []*yaml.Node{it}})
		}
	}
	return d.translate(groups, "a sentinel-golang rule", "go", "system", d.goSystem, map[string]func(*yaml.Node, *resourceRows) error{
		"flow": d.goFlow, "isolation": d.goIsolation, "hotspot": d.goHotspot, "circuitbreaker": d.goBreaker,
	})
}

// goFields are the json tags of sentinel-golang's rule structs (core/flow,
// core/isolation, core/hotspot, core/circuitbreaker, core/system Rule and
// ext/datasource's HotspotRule and SpecificValue).
var goFields = []string{
	"id", "resource", "tokenCalculateStrategy", "controlBehavior", "threshold", "relationStrategy",
	"refResource", "maxQueueingTimeMs", "warmUpPeriodSec", "warmUpColdFactor", "statIntervalInMs",
	"lowMemUsageThreshold", "highMemUsageThreshold", "memLowWaterMarkBytes", "memHighWaterMarkBytes",
	"regex", "metricType", "paramIndex", "paramKey", "burstCount", "durationInSec", "paramsMaxCapacity",
	"specificItems", "valKind", "valStr", "strategy", "retryTimeoutMs", "minRequestAmount", "statIntervalMs",
	"statSlidingWindowBucketCount", "maxAllowedRtMs", "probeNum", "triggerCount",
}

// foldGoKeys renames, in a rule object and its specificItems, each key
// that matches a field's json tag only in case to the tag, as
// encoding/json's Unmarshal matches it (an exact match first, then any
// case); a key that matches exactly elsewhere in the object wins.
func foldGoKeys(n *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	exact := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		exact[n.Content[i].Value] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		for _, tag := range goFields {
			if k.Value != tag && strings.EqualFold(k.Value, tag) && !exact[tag] {
				k.Value = tag
				exact[tag] = true
				break
			}
		}
		if k.Value == "specificItems" {
			for _, it := range items(n.Content[i+1]) {
				foldGoKeys(it)
			}
		}
	}
}

func isGoRule(n *yaml.Node) bool {
	return hasFold(mp(n), "resource") || hasFold(mp(n), "triggerCount") || hasFold(mp(n), "metricType")
}

func goKind(n *yaml.Node) string {
	m := mp(n)
	switch {
	case m.has("triggerCount"):
		return "system"
	case m.has("paramIndex") || m.has("paramKey") || m.has("specificItems") || m.has("paramsMaxCapacity"):
		return "hotspot"
	case m.has("retryTimeoutMs") || m.has("maxAllowedRtMs") || m.has("probeNum") || m.has("minRequestAmount"):
		return "circuitbreaker"
	case m.has("tokenCalculateStrategy") || m.has("controlBehavior") || m.has("statIntervalInMs") || m.has("warmUpPeriodSec"):
		return "flow"
	case m.has("metricType"):
		return "isolation"
	}
	return "flow"
}

func goCommon(f *fields, notes *[]string) {
	f.node("id")
	if re, _ := f.boolean("regex", false); re {
		*notes = append(*notes, "regex true: the resource name is a pattern; the row stands for one resource that matches it")
	}
}

// goFlow translates a core/flow Rule: TokenCalculateStrategy × ControlBehavior,
// on the statistic generateStatFor picks for StatIntervalInMs.
func (d *doc) goFlow(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "flow.Rule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	crd := d.crd[n]
	if crd {
		// FlowRulesReconciler.assembleFlowRules: an enum string other
		// than "" and the names it knows is logged and the rule skipped.
		for _, e := range []struct {
			key   string
			names []string
		}{{"tokenCalculateStrategy", []string{"", "Direct", "WarmUp"}}, {"controlBehavior", []string{"", "Reject", "Throttling"}}, {"relationStrategy", []string{"", "CurrentResource", "AssociatedResource"}}} {
			if v := f.m.str(e.key); !slices.Contains(e.names, v) {
				return f.drop(res, "%s %q is not one the FlowRules controller knows (%s), so it skips the rule (assembleFlowRules)", e.key, clip(v), strings.Join(e.names[1:], ", "))
			}
		}
	}
	tcs, e1 := f.choice("tokenCalculateStrategy", 0, 0, "Direct", "WarmUp", "MemoryAdaptive")
	cb, e2 := f.choice("controlBehavior", 0, 0, "Reject", "Throttling")
	thr, e3 := f.num("threshold", 0)
	rel, e4 := f.choice("relationStrategy", 0, 0, "CurrentResource", "AssociatedResource")
	ref, e5 := f.str("refResource", "")
	queue, e6 := f.whole("maxQueueingTimeMs", 0)
	warm, e7 := f.whole("warmUpPeriodSec", 0)
	cold, e8 := f.whole("warmUpColdFactor", 0)
	stat, e9 := f.whole("statIntervalInMs", 0)
	if err := first(e1, e2, e3, e4, e5, e6, e7, e8, e9); err != nil {
		return err
	}
	const v = "flow.IsValidRule"
	switch {
	case thr < 0:
		return f.drop(res, "threshold %s is negative, and sentinel-golang drops the rule (%s: negative Threshold)", fmtNum(thr), v)
	case rel == 1 && strings.TrimSpace(ref) == "":
		return f.drop(res, "relationStrategy AssociatedResource without a refResource, and sentinel-golang drops the rule (%s)", v)
	case tcs == 1 && warm <= 0:
		return f.drop(res, "warmUpPeriodSec %d: a WarmUp rule needs a positive period, and sentinel-golang drops it (%s)", warm, v)
	case tcs == 1 && cold == 1:
		return f.drop(res, "warmUpColdFactor 1: it must be greater than 1, and sentinel-golang drops the rule (%s)", v)
	case queue < 0 || warm < 0 || cold < 0 || stat < 0:
		return d.errAt(n, "flow.Rule of %q has a negative value in an unsigned field (maxQueueingTimeMs, warmUpPeriodSec, warmUpColdFactor, statIntervalInMs), which json.Unmarshal refuses; give 0 or more", res)
	case tcs == 2:
		return f.notSim(res, "tokenCalculateStrategy MemoryAdaptive: the threshold follows the process's memory, which the lab does not model")
	case rel == 1:
		return f.notSim(res, "relationStrategy AssociatedResource (refResource %q): sentinel-golang limits this resource on %q's statistic (flow.generateStatFor reads the associated resource's node); the lab replays one traffic, so it does not simulate this rule", clip(ref), clip(ref))
	}
	row := rr.get(res, d.pos(n))
	goCommon(f, &row.notes)
	if crd && stat != 0 {
		row.notes = append(row.notes, fmt.Sprintf("statIntervalInMs %d: ignored, as the FlowRules controller does not copy it into flow.Rule (assembleFlowRules), so the rule reads the default 1 s statistic", stat))
		stat = 0
	}
	if thr == 0 {
		for _, k := range f.unread() {
			row.notes = append(row.notes, fmt.Sprintf("%s: ignored", k))
		}
		row.notes = append(row.notes, "threshold 0: sentinel-golang blocks every request of the resource (the checker admits nothing at a threshold of 0); the row is sentinel-param with count 0 on one shared value (key=*), which blocks every request too")
		row.flow = append(row.flow, spec("sentinel-param", "count", "0", "key", "*", "flavor", "go"))
		row.whatFlow = append(row.whatFlow, "flow.Rule threshold=0")
		return nil
	}

	// generateStatFor: 0 or 1000 ms reads the resource's default metric
	// (2 buckets over 1 s); a multiple of the 500 ms global bucket up to
	// 10 s reads that many buckets; anything else gets a standalone
	// statistic of one bucket.
	sample, interval := int64(2), int64(1000)
	if stat != 0 && stat != 1000 {
		interval = stat
		if stat <= 10000 && stat >= 500 && stat%500 == 0 {
			sample = stat / 500
		} else {
			sample = 1
		}
	}
	kv := []string{"limit", fmtNum(thr)}
	var name string
	switch {
	case tcs == 0 && cb == 0:
		name = "leap-array"
		kv = append(kv, "sample-count", strconv.FormatInt(sample, 10), "interval", msDur(interval))
	case tcs == 0 && cb == 1:
		name = "leaky-bucket"
		kv = append(kv, "interval", msDur(interval), "max-queue", msDur(queue))
	case tcs == 1 && cb == 0:
		name = "warm-up"
		kv = append(kv, "warm-up", fmt.Sprintf("%ds", warm))
		if cold != 0 {
			kv = append(kv, "cold-factor", strconv.FormatInt(cold, 10))
		}
		kv = append(kv, "sample-count", strconv.FormatInt(sample, 10), "interval", msDur(interval))
	default:
		name = "warm-up-rate-limiter"
		kv = append(kv, "warm-up", fmt.Sprintf("%ds", warm))
		if cold != 0 {
			kv = append(kv, "cold-factor", strconv.FormatInt(cold, 10))
		}
		kv = append(kv, "max-queue", msDur(queue), "sample-count", strconv.FormatInt(sample, 10), "interval", msDur(interval))
	}
	kv = append(kv, "flavor", "go")
	for _, k := range f.unread() {
		row.notes = append(row.notes, fmt.Sprintf("%s: ignored (not a flow.Rule field the lab simulates)", k))
	}
	row.flow = append(row.flow, spec(name, kv...))
	row.whatFlow = append(row.whatFlow, fmt.Sprintf("flow.Rule %s+%s threshold=%s", []string{"Direct", "WarmUp"}[tcs], []string{"Reject", "Throttling"}[cb], fmtNum(thr)))
	return nil
}

// goIsolation translates a core/isolation Rule (concurrency).
func (d *doc) goIsolation(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "isolation.Rule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	if _, err := f.choice("metricType", 0, 0, "Concurrency"); err != nil {
		return f.drop(res, "metricType is not Concurrency (0), and sentinel-golang drops the rule (isolation.IsValidRule: unsupported metric type)")
	}
	thr, err := f.whole("threshold", 0)
	if err != nil {
		return err
	}
	switch {
	case thr < 0:
		return d.errAt(n, "isolation.Rule of %q has a negative threshold, which json.Unmarshal refuses for its uint32 field; give 1 or more", res)
	case thr == 0:
		return f.drop(res, "threshold 0, and sentinel-golang drops the rule (isolation.IsValidRule: zero threshold)")
	}
	row := rr.get(res, d.pos(n))
	goCommon(f, &row.notes)
	for _, k := range f.unread() {
		row.notes = append(row.notes, fmt.Sprintf("%s: ignored", k))
	}
	row.flow = append(row.flow, spec("concurrency", "limit", strconv.FormatInt(thr, 10), "flavor", "go"))
	row.whatFlow = append(row.whatFlow, fmt.Sprintf("isolation.Rule threshold=%d", thr))
	row.responses = true
	return nil
}

// goHotspot translates a core/hotspot Rule (QPS metric).
func (d *doc) goHotspot(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "hotspot.Rule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	if d.crd[n] {
		// HotspotRulesReconciler.assembleHotspotRules: metricType must be
		// Concurrency or QPS, controlBehavior "", Reject or Throttling;
		// any other string is logged and the rule skipped.
		if v := f.m.str("metricType"); v != "Concurrency" && v != "QPS" {
			return f.drop(res, "metricType %q is not Concurrency or QPS, so the HotspotRules controller skips the rule (assembleHotspotRules)", clip(v))
		}
		if v := f.m.str("controlBehavior"); v != "" && v != "Reject" && v != "Throttling" {
			return f.drop(res, "controlBehavior %q is not Reject or Throttling, so the HotspotRules controller skips the rule (assembleHotspotRules)", clip(v))
		}
	}
	mt, e1 := f.choice("metricType", 0, 0, "Concurrency", "QPS")
	cb, e2 := f.choice("controlBehavior", 0, 0, "Reject", "Throttling")
	idx, e3 := f.whole("paramIndex", 0)
	pkey, e4 := f.str("paramKey", "")
	thr, e5 := f.whole("threshold", 0)
	queue, e6 := f.whole("maxQueueingTimeMs", 0)
	burst, e7 := f.whole("burstCount", 0)
	dur, e8 := f.whole("durationInSec", 0)
	capacity, e9 := f.whole("paramsMaxCapacity", 0)
	if err := first(e1, e2, e3, e4, e5, e6, e7, e8, e9); err != nil {
		return err
	}
	const v = "hotspot.IsValidRule"
	switch {
	case thr < 0:
		return f.drop(res, "threshold %d is negative, and sentinel-golang drops the rule (%s: negative threshold)", thr, v)
	case mt == 1 && dur <= 0:
		return f.drop(res, "durationInSec %d with metricType QPS, and sentinel-golang drops the rule (%s: invalid duration)", dur, v)
	case idx > 0 && pkey != "":
		return f.drop(res, "paramIndex %d and paramKey %q together, and sentinel-golang drops the rule (%s: mutually exclusive)", idx, clip(pkey), v)
	case burst < 0 || queue < 0 || capacity < 0:
		return f.drop(res, "a negative burstCount, maxQueueingTimeMs or paramsMaxCapacity; sentinel-golang's traffic shaping refuses it (%s: checkControlBehaviorField)", v)
	case mt == 0:
		return f.notSim(res, "metricType Concurrency (0, the default): hot-parameter concurrency limits are not simulated; the lab simulates metricType QPS (1)")
	case idx < 0 && pkey == "":
		return f.notSim(res, "paramIndex %d counts from the end of the arguments; the lab reads argument i from column key, key2, …, so it cannot place this one", idx)
	}
	row := rr.get(res, d.pos(n))
	goCommon(f, &row.notes)
	col := keyColumn(int(idx))
	if pkey != "" {
		col = pkey
		row.notes = append(row.notes, fmt.Sprintf("paramKey %q: read from the trace column %q (sentinel-golang reads it from the entry's attachments)", pkey, pkey))
	}
	kv := []string{"count", strconv.FormatInt(thr, 10), "duration", fmt.Sprintf("%ds", dur)}
	if burst != 0 {
		kv = append(kv, "burst", strconv.FormatInt(burst, 10))
	}
	if cb == 1 {
		kv = append(kv, "behavior", "throttle", "max-queue", msDur(queue))
	}
	items, err := d.goItems(f, &row.notes)
	if err != nil {
		return err
	}
	kv = append(kv, "items", items)
	if capacity > 0 {
		kv = append(kv, "capacity", strconv.FormatInt(capacity, 10))
	}
	kv = append(kv, "key", col, "flavor", "go")
	for _, k := range f.unread() {
		row.notes = append(row.notes, fmt.Sprintf("%s: ignored", k))
	}
	row.param = append(row.param, spec("sentinel-param", kv...))
	row.whatParam = append(row.whatParam, fmt.Sprintf("hotspot.Rule paramIndex=%d threshold=%d", idx, thr))
	row.keys = appendNew(row.keys, col)
	return nil
}

// goItems reads specificItems: a map of value: threshold (core/hotspot's
// Rule), or the list of {valKind, valStr, threshold} that ext/datasource's
// HotspotRule and the HotspotRules CRD carry, each parsed as
// parseSpecificItems does (KindInt: strconv.Atoi; KindString as is;
// KindBool: strconv.ParseBool; KindFloat64: ParseFloat rounded to 5
// decimals; an item that does not parse, or of another kind, is skipped,
// as it logs and skips it). valKind is its number (0 to 3) or its name.
func (d *doc) goItems(f *fields, notes *[]string) (string, error) {
	v := f.node("specificItems")
	if v == nil {
		return "", nil
	}
	m := map[string]string{}
	put := func(at *yaml.Node, k string, n int64) error {
		if strings.ContainsAny(k, ":|,+=") {
			return d.errAt(at, "hotspot.Rule field specificItems: %q holds one of : | , + = which a lab spec cannot carry", clip(k))
		}
		m[k] = strconv.FormatInt(n, 10)
		return nil
	}
	switch v.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, c := v.Content[i].Value, v.Content[i+1]
			n, err := strconv.ParseInt(c.Value, 10, 64)
			if err != nil || n < 0 {
				return "", d.errAt(c, "hotspot.Rule field specificItems: %q for %q is not a whole number ≥ 0", clip(c.Value), clip(k))
			}
			if err := put(v.Content[i], k, n); err != nil {
				return "", err
			}
		}
	case yaml.SequenceNode:
		for _, it := range v.Content {
			foldGoKeys(it)
			g, err := d.fields(it, "specificItems item")
			if err != nil {
				return "", err
			}
			kind, e1 := g.choice("valKind", 0, 0, "KindInt", "KindString", "KindBool", "KindFloat64")
			str, e2 := g.str("valStr", "")
			thr, e3 := g.whole("threshold", 0)
			if e1 != nil {
				*notes = append(*notes, fmt.Sprintf("specificItems item at %s: skipped, its valKind is not KindInt, KindString, KindBool or KindFloat64 (parseSpecificItems logs and skips it)", d.pos(it)))
				continue
			}
			if err := first(e2, e3); err != nil {
				return "", err
			}
			val := str
			switch kind {
			case 0:
				x, err := strconv.Atoi(str)
				if err != nil {
					*notes = append(*notes, fmt.Sprintf("specificItems item at %s: skipped, valStr %q is not an int (parseSpecificItems: strconv.Atoi fails)", d.pos(it), clip(str)))
					continue
				}
				val = strconv.Itoa(x)
			case 2:
				x, err := strconv.ParseBool(str)
				if err != nil {
					*notes = append(*notes, fmt.Sprintf("specificItems item at %s: skipped, valStr %q is not a bool (parseSpecificItems: strconv.ParseBool fails)", d.pos(it), clip(str)))
					continue
				}
				val = strconv.FormatBool(x)
			case 3:
				x, err := strconv.ParseFloat(str, 64)
				if err != nil {
					*notes = append(*notes, fmt.Sprintf("specificItems item at %s: skipped, valStr %q is not a float (parseSpecificItems: strconv.ParseFloat fails)", d.pos(it), clip(str)))
					continue
				}
				x, _ = strconv.ParseFloat(fmt.Sprintf("%.5f", x), 64)
				val = strconv.FormatFloat(x, 'f', -1, 64)
			}
			if thr < 0 {
				return "", g.errf("threshold", "is negative; give 0 or more")
			}
			if err := put(it, val, thr); err != nil {
				return "", err
			}
		}
		if len(m) > 0 {
			*notes = append(*notes, "specificItems: each value is compared with the trace column's text (sentinel-golang compares the argument's Go value: an int item matches an int argument)")
		}
	default:
		return "", f.errf("specificItems", "is %s; give a map of value: threshold or a list of {valKind, valStr, threshold}", kindName(v))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ":" + m[k]
	}
	return strings.Join(parts, "|"), nil
}

// goBreaker translates a core/circuitbreaker Rule. The lab's breaker is
// Sentinel Java's; the Go fields it has no counterpart for are notes.
func (d *doc) goBreaker(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "circuitbreaker.Rule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	crd := d.crd[n]
	if crd {
		if v := f.m.str("strategy"); v != "SlowRequestRatio" && v != "ErrorRatio" && v != "ErrorCount" {
			return f.drop(res, "strategy %q is not SlowRequestRatio, ErrorRatio or ErrorCount, so the CircuitBreakerRules controller skips the rule (assembleCircuitBreakerRules)", clip(v))
		}
	}
	st, e1 := f.choice("strategy", 0, 0, "SlowRequestRatio", "ErrorRatio", "ErrorCount")
	retry, e2 := f.whole("retryTimeoutMs", 0)
	minReq, e3 := f.whole("minRequestAmount", 0)
	stat, e4 := f.whole("statIntervalMs", 0)
	buckets, e5 := f.whole("statSlidingWindowBucketCount", 0)
	maxRT, e6 := f.whole("maxAllowedRtMs", 0)
	thr, e7 := f.num("threshold", 0)
	probe, e8 := f.whole("probeNum", 0)
	if err := first(e1, e2, e3, e4, e5, e6, e7, e8); err != nil {
		return err
	}
	var crdNote string
	if crd && st != 2 {
		// assembleCircuitBreakerRules: the CRD's threshold is an integer
		// percent for the two ratio strategies.
		crdNote = fmt.Sprintf("threshold %s: a percent in the CircuitBreakerRules CRD, so the ratio is %s (assembleCircuitBreakerRules divides it by 100)", fmtNum(thr), fmtNum(thr/100))
		thr /= 100
	}
	const v = "circuitbreaker.IsValidRule"
	switch {
	case stat <= 0:
		return f.drop(res, "statIntervalMs %d, and sentinel-golang drops the rule (%s: invalid StatIntervalMs)", stat, v)
	case retry <= 0:
		return f.drop(res, "retryTimeoutMs %d, and sentinel-golang drops the rule (%s: invalid RetryTimeoutMs)", retry, v)
	case thr < 0:
		return f.drop(res, "threshold %s is negative, and sentinel-golang drops the rule (%s: invalid Threshold)", fmtNum(thr), v)
	case st != 2 && thr > 1:
		return f.drop(res, "threshold %s is above 1 for a ratio strategy, and sentinel-golang drops the rule (%s: valid range [0.0, 1.0])", fmtNum(thr), v)
	case retry%1000 != 0:
		return f.notSim(res, "retryTimeoutMs %d: the lab's breaker (Sentinel Java's) stays open whole seconds, so it simulates a multiple of 1000 only", retry)
	}
	row := rr.get(res, d.pos(n))
	goCommon(f, &row.notes)
	if crdNote != "" {
		row.notes = append(row.notes, crdNote)
	}
	if row.breakerExists {
		row.notes = append(row.notes, fmt.Sprintf("circuitbreaker.Rule at %s: not simulated; the lab's chain holds one circuit breaker per resource, the first", d.pos(n)))
		return nil
	}
	row.notes = append(row.notes, "circuitbreaker.Rule: simulated with Sentinel Java 1.8's breaker (one bucket per stat interval, one probe in HALF_OPEN)")
	if buckets > 1 {
		row.notes = append(row.notes, fmt.Sprintf("statSlidingWindowBucketCount %d: not honoured; the lab's breaker keeps one bucket per interval", buckets))
	}
	if probe > 0 {
		row.notes = append(row.notes, fmt.Sprintf("probeNum %d: not honoured; the lab's breaker closes after one successful probe", probe))
	}
	kv := []string{}
	switch st {
	case 0:
		kv = append(kv, "strategy", "slow-ratio", "max-rt", fmt.Sprintf("%dms", maxRT), "threshold", fmtNum(thr))
	case 1:
		kv = append(kv, "strategy", "error-ratio", "threshold", fmtNum(thr))
	default:
		kv = append(kv, "strategy", "error-count", "threshold", fmtNum(thr))
	}
	if minReq < 1 {
		minReq = 1
		row.notes = append(row.notes, "minRequestAmount 0: read as 1, the lab breaker's smallest")
	}
	kv = append(kv, "min-requests", strconv.FormatInt(minReq, 10), "stat-interval", msDur(stat), "recovery", msDur(retry))
	for _, k := range f.unread() {
		row.notes = append(row.notes, fmt.Sprintf("%s: ignored", k))
	}
	row.breakerExists, row.responses = true, true
	row.degrade = append(row.degrade, spec("circuit-breaker", kv...))
	row.whatDegrade = append(row.whatDegrade, fmt.Sprintf("circuitbreaker.Rule strategy=%s", []string{"SlowRequestRatio", "ErrorRatio", "ErrorCount"}[st]))
	return nil
}

// goSystem adds a core/system Rule to the merged system row.
func (d *doc) goSystem(n *yaml.Node, s *systemMerge) error {
	f, err := d.fields(n, "system.Rule")
	if err != nil {
		return err
	}
	crd := d.crd[n]
	if crd {
		// SystemRulesReconciler.assembleSystemRules: metricType and
		// strategy must be one of the names it knows, else the rule is
		// logged and skipped.
		if v := f.m.str("metricType"); !slices.Contains([]string{"Load", "AvgRT", "Concurrency", "InboundQPS", "CpuUsage"}, v) {
			return f.drop("", "metricType %q is not Load, AvgRT, Concurrency, InboundQPS or CpuUsage, so the SystemRules controller skips the rule (assembleSystemRules)", clip(v))
		}
		if v := f.m.str("strategy"); v != "NoAdaptive" && v != "BBR" {
			return f.drop("", "strategy %q is not NoAdaptive or BBR, so the SystemRules controller skips the rule (assembleSystemRules)", clip(v))
		}
	}
	mt, e1 := f.choice("metricType", 0, 0, "Load", "AvgRT", "Concurrency", "InboundQPS", "CpuUsage")
	trig, e2 := f.num("triggerCount", 0)
	stv, e3 := f.str("strategy", "")
	if err := first(e1, e2, e3); err != nil {
		return err
	}
	f.node("id")
	if crd && (mt == 0 || mt == 4) {
		// The CRD's triggerCount is an integer percent for Load and CpuUsage.
		s.notes = append(s.notes, fmt.Sprintf("triggerCount %s (%s) at %s: a percent in the SystemRules CRD, so the threshold is %s (assembleSystemRules divides it by 100)", fmtNum(trig), []string{"Load", "", "", "", "CpuUsage"}[mt], d.pos(n), fmtNum(trig/100)))
		trig /= 100
	}
	switch {
	case trig < 0:
		return f.drop("", "triggerCount %s is negative, and sentinel-golang drops the rule (system.IsValidSystemRule: negative threshold)", fmtNum(trig))
	case mt == 4 && trig > 1:
		return f.drop("", "triggerCount %s is above 1 for CpuUsage, and sentinel-golang drops the rule (system.IsValidSystemRule: valid range is [0.0, 1.0])", fmtNum(trig))
	}
	s.sources++
	// AdaptiveStrategy: NoAdaptive = -1, BBR = 1 (iota on the second line
	// of its const block); 0 is neither, so no adaptive check.
	strategy := "none"
	switch strings.ToLower(strings.TrimSpace(stv)) {
	case "1", "bbr":
		strategy = "bbr"
	case "", "-1", "0", "none", "noadaptive":
	default:
		return f.errf("strategy", "%q is not -1 (NoAdaptive) or 1 (BBR)", clip(stv))
	}
	if strategy == "bbr" {
		if s.strategy == "none" {
			s.notes = append(s.notes, "strategy: the rules mix BBR and none; the row uses bbr")
		}
		s.strategy = "bbr"
	} else if s.strategy == "" {
		s.strategy = "none"
	}
	switch mt {
	case 0:
		s.add(0, trig, &s.load)
	case 1:
		s.add(3, trig, &s.rt)
	case 2:
		s.add(4, trig, &s.thrd)
	case 3:
		s.add(2, trig, &s.qps)
	case 4:
		s.add(1, trig, &s.cpu)
	}
	for _, k := range f.unread() {
		s.notes = append(s.notes, fmt.Sprintf("%s: ignored", k))
	}
	return nil
}

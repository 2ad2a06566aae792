package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// sentinelGo reads sentinel-golang rules (the JSON/YAML its file data
// sources load, field names as its structs' json tags): a map of kinds
// {flow, isolation, hotspot, circuitbreaker, system}, each a list, or a
// list of one kind, told apart by fields. Enums are their numbers or
// their Go names (Direct, WarmUp, Reject, Throttling, …).
func (d *doc) sentinelGo(root *yaml.Node) ([]Rule, error) {
	var groups []ruleGroup
	m := mp(root)
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
			groups = append(groups, ruleGroup{kind, v.Content})
		}
	} else {
		list := []*yaml.Node{root}
		if root.Kind == yaml.SequenceNode {
			list = root.Content
		}
		for _, it := range list {
			groups = append(groups, ruleGroup{goKind(it), []*yaml.Node{it}})
		}
	}
	return d.translate(groups, "a sentinel-golang rule", "go", "system", d.goSystem, map[string]func(*yaml.Node, *resourceRows) error{
		"flow": d.goFlow, "isolation": d.goIsolation, "hotspot": d.goHotspot, "circuitbreaker": d.goBreaker,
	})
}

func isGoRule(n *yaml.Node) bool { return mp(n).has("resource") || mp(n).has("triggerCount") }

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
	row := rr.get(res, d.pos(n))
	tcs, e1 := f.choice("tokenCalculateStrategy", 0, 0, "Direct", "WarmUp", "MemoryAdaptive")
	cb, e2 := f.choice("controlBehavior", 0, 0, "Reject", "Throttling")
	thr, e3 := f.positive("threshold", 0)
	rel, e4 := f.choice("relationStrategy", 0, 0, "CurrentResource", "AssociatedResource")
	ref, e5 := f.str("refResource", "")
	queue, e6 := f.whole("maxQueueingTimeMs", 0)
	warm, e7 := f.whole("warmUpPeriodSec", 0)
	cold, e8 := f.whole("warmUpColdFactor", 0)
	stat, e9 := f.whole("statIntervalInMs", 0)
	if err := first(e1, e2, e3, e4, e5, e6, e7, e8, e9); err != nil {
		return err
	}
	goCommon(f, &row.notes)
	switch {
	case tcs == 2:
		return f.errf("tokenCalculateStrategy", "MemoryAdaptive depends on the process's memory, which the lab does not model; use Direct or WarmUp")
	case thr == 0:
		return f.errf("threshold", "is 0, which blocks every request; the lab's limiters need a positive limit")
	case tcs == 1 && warm <= 0:
		return f.errf("warmUpPeriodSec", "is %d; a WarmUp rule needs a positive period (IsValidRule refuses it)", warm)
	case tcs == 1 && cold == 1:
		return f.errf("warmUpColdFactor", "is 1; it must be greater than 1 (IsValidRule refuses it)")
	case queue < 0 || warm < 0 || cold < 0 || stat < 0:
		return d.errAt(n, "flow.Rule of %q has a negative unsigned field; give 0 or more", res)
	}
	if rel == 1 {
		row.notes = append(row.notes, fmt.Sprintf("relationStrategy AssociatedResource (refResource %q): not simulated; the row limits the resource's own traffic", ref))
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
	row := rr.get(res, d.pos(n))
	if _, err := f.choice("metricType", 0, 0, "Concurrency"); err != nil {
		return err
	}
	thr, err := f.whole("threshold", 0)
	if err != nil {
		return err
	}
	if thr <= 0 {
		return f.errf("threshold", "is %d; give the number of concurrent requests, at least 1", thr)
	}
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
	row := rr.get(res, d.pos(n))
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
	goCommon(f, &row.notes)
	switch {
	case mt == 0:
		return f.errf("metricType", "is Concurrency (0, the default): hot-parameter concurrency limits are not simulated; set metricType 1 (QPS)")
	case thr < 0:
		return f.errf("threshold", "is negative; give 0 or more")
	case idx < 0:
		return f.errf("paramIndex", "is %d, counted from the end of the arguments; the lab reads argument i from column key, key2, …, so give a non-negative index", idx)
	case dur <= 0:
		return f.errf("durationInSec", "is %d; give at least 1 (IsValidRule refuses it)", dur)
	case burst < 0 || queue < 0 || capacity < 0:
		return d.errAt(n, "hotspot.Rule of %q has a negative burstCount, maxQueueingTimeMs or paramsMaxCapacity; give 0 or more", res)
	}
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

func (d *doc) goItems(f *fields, notes *[]string) (string, error) {
	v := f.node("specificItems")
	if v == nil {
		return "", nil
	}
	if v.Kind != yaml.MappingNode {
		return "", f.errf("specificItems", "is %s; give a map of value: threshold", kindName(v))
	}
	m := map[string]string{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, c := v.Content[i].Value, v.Content[i+1]
		n, err := strconv.ParseInt(c.Value, 10, 64)
		if err != nil || n < 0 {
			return "", d.errAt(c, "hotspot.Rule field specificItems: %q for %q is not a whole number ≥ 0", clip(c.Value), clip(k))
		}
		if strings.ContainsAny(k, ":|,+=") {
			return "", d.errAt(v.Content[i], "hotspot.Rule field specificItems: %q holds one of : | , + = which a lab spec cannot carry", clip(k))
		}
		m[k] = strconv.FormatInt(n, 10)
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
	row := rr.get(res, d.pos(n))
	st, e1 := f.choice("strategy", 0, 0, "SlowRequestRatio", "ErrorRatio", "ErrorCount")
	retry, e2 := f.whole("retryTimeoutMs", 0)
	minReq, e3 := f.whole("minRequestAmount", 0)
	stat, e4 := f.whole("statIntervalMs", 0)
	buckets, e5 := f.whole("statSlidingWindowBucketCount", 0)
	maxRT, e6 := f.whole("maxAllowedRtMs", 0)
	thr, e7 := f.nonNegative("threshold", 0)
	probe, e8 := f.whole("probeNum", 0)
	if err := first(e1, e2, e3, e4, e5, e6, e7, e8); err != nil {
		return err
	}
	goCommon(f, &row.notes)
	if retry <= 0 || retry%1000 != 0 {
		return f.errf("retryTimeoutMs", "is %d; the lab's breaker (Sentinel Java's) stays open whole seconds, so give a positive multiple of 1000", retry)
	}
	if stat <= 0 {
		return f.errf("statIntervalMs", "is %d; give the statistic interval in ms, at least 1", stat)
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
	mt, e1 := f.choice("metricType", 0, 0, "Load", "AvgRT", "Concurrency", "InboundQPS", "CpuUsage")
	trig, e2 := f.num("triggerCount", 0)
	stv, e3 := f.str("strategy", "")
	if err := first(e1, e2, e3); err != nil {
		return err
	}
	f.node("id")
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

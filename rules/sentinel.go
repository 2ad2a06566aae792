package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// spec joins a name and key=value pairs, skipping pairs with an empty
// value.
func spec(name string, kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			parts = append(parts, kv[i]+"="+kv[i+1])
		}
	}
	if len(parts) == 0 {
		return name
	}
	return name + ":" + strings.Join(parts, ",")
}

// resourceRows groups the stages of each resource, in the order resources
// first appear, into chains in Sentinel's slot order.
type resourceRows struct {
	order []string
	rows  map[string]*resourceRow
}

type resourceRow struct {
	pos                      string
	param, flow, degrade     []string
	whatParam, whatFlow      []string
	whatDegrade              []string
	notes, keys              []string
	responses, breakerExists bool
}

func (rr *resourceRows) get(name, pos string) *resourceRow {
	if rr.rows == nil {
		rr.rows = map[string]*resourceRow{}
	}
	r, ok := rr.rows[name]
	if !ok {
		r = &resourceRow{pos: pos}
		rr.rows[name] = r
		rr.order = append(rr.order, name)
	}
	return r
}

func (rr *resourceRows) rules() []Rule {
	var out []Rule
	for _, name := range rr.order {
		r := rr.rows[name]
		stages := append(append(append([]string{}, r.param...), r.flow...), r.degrade...)
		if len(stages) == 0 {
			continue
		}
		what := append(append(append([]string{}, r.whatParam...), r.whatFlow...), r.whatDegrade...)
		out = append(out, Rule{
			Name: name, Source: r.pos, What: strings.Join(what, " + "), Spec: strings.Join(stages, "+"),
			Notes: r.notes, KeyColumns: r.keys, NeedsResponses: r.responses,
		})
	}
	return out
}

// sentinelJava reads Sentinel (Java) rule JSON: an array of one kind of
// rule (FlowRule, DegradeRule, ParamFlowRule or SystemRule, told apart by
// their fields), one rule object, or a map of kinds {"flowRules": [...],
// "degradeRules": [...], "paramFlowRules": [...], "systemRules": [...]}.
func (d *doc) sentinelJava(root *yaml.Node) ([]Rule, error) {
	var groups []ruleGroup
	m := mp(root)
	switch {
	case root.Kind == yaml.MappingNode && (m.has("flowRules") || m.has("degradeRules") || m.has("paramFlowRules") || m.has("systemRules")):
		for _, k := range m.keys() {
			v := m.get(k)
			switch k {
			case "flowRules", "degradeRules", "paramFlowRules", "systemRules":
				if v.Kind != yaml.SequenceNode {
					return nil, d.errAt(v, "%s must be a list of rules, got %s", k, kindName(v))
				}
				groups = append(groups, ruleGroup{strings.TrimSuffix(k, "s"), v.Content})
			default:
				return nil, d.errAt(m.keyNode(k), "%q is not a kind of Sentinel rule; use flowRules, degradeRules, paramFlowRules or systemRules", k)
			}
		}
	case root.Kind == yaml.SequenceNode:
		for _, it := range root.Content {
			groups = append(groups, ruleGroup{javaKind(it), []*yaml.Node{it}})
		}
	default:
		groups = append(groups, ruleGroup{javaKind(root), []*yaml.Node{root}})
	}
	return d.translate(groups, "a Sentinel rule", "java", "systemRule", d.javaSystem, map[string]func(*yaml.Node, *resourceRows) error{
		"flowRule": d.javaFlow, "degradeRule": d.javaDegrade, "paramFlowRule": d.javaParam,
	})
}

// ruleGroup is the rules of one kind, in file order.
type ruleGroup struct {
	kind  string
	items []*yaml.Node
}

// translate runs every rule through its kind's translator: per-resource
// kinds into chains (resourceRows), the system kind into one merged row,
// listed first.
func (d *doc) translate(groups []ruleGroup, what, flavor, systemKind string, system func(*yaml.Node, *systemMerge) error, per map[string]func(*yaml.Node, *resourceRows) error) ([]Rule, error) {
	var rr resourceRows
	var sys *systemMerge
	for _, g := range groups {
		for _, it := range g.items {
			if it.Kind != yaml.MappingNode {
				return nil, d.errAt(it, "%s must be an object, got %s", what, kindName(it))
			}
			var err error
			if g.kind == systemKind {
				if sys == nil {
					sys = &systemMerge{pos: d.pos(it)}
				}
				err = system(it, sys)
			} else {
				err = per[g.kind](it, &rr)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	var out []Rule
	if sys != nil {
		r, err := sys.rule(flavor)
		if err != nil {
			return nil, d.errAt(nil, "%v", err)
		}
		out = append(out, r)
	}
	return append(out, rr.rules()...), nil
}

// javaKind tells a Sentinel rule's class from its fields.
func javaKind(n *yaml.Node) string {
	m := mp(n)
	switch {
	case m.has("highestSystemLoad") || m.has("highestCpuUsage") || m.has("avgRt") || m.has("maxThread") || (m.has("qps") && !m.has("resource")):
		return "systemRule"
	case m.has("paramIdx") || m.has("paramFlowItemList") || m.has("durationInSec") || m.has("burstCount"):
		return "paramFlowRule"
	case m.has("timeWindow") || m.has("minRequestAmount") || m.has("slowRatioThreshold") || m.has("statIntervalMs"):
		return "degradeRule"
	}
	return "flowRule"
}

// resourceOf reads a rule's resource, which every per-resource rule needs.
func resourceOf(f *fields) (string, error) {
	res, err := f.str("resource", "")
	if err == nil && strings.TrimSpace(res) == "" {
		err = f.d.errAt(f.m.n, "%s has no resource; Sentinel ignores a rule without one, so add \"resource\": \"NAME\"", f.what)
	}
	return res, err
}

// commonJava notes the fields every Java rule may carry that the lab does
// not simulate.
func commonJava(f *fields, notes *[]string) error {
	f.node("limitApp") // read by javaFlow: only FlowRuleChecker filters by origin
	cluster, err := f.boolean("clusterMode", false)
	if err != nil {
		return err
	}
	if cluster {
		*notes = append(*notes, "clusterMode true: not simulated; the row is the rule checked locally, as Sentinel falls back when the token server is unreachable")
	}
	f.node("clusterConfig")
	f.node("id")
	f.node("app")
	f.node("ip")
	f.node("port")
	f.node("gmtCreate")
	f.node("gmtModified")
	if re, _ := f.boolean("regex", false); re {
		*notes = append(*notes, "regex true: the resource name is a pattern; the row stands for one resource that matches it")
	}
	return nil
}

// javaFlow translates a FlowRule: FlowRuleUtil.generateRater picks the
// controller from grade and controlBehavior.
func (d *doc) javaFlow(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "FlowRule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	row := rr.get(res, d.pos(n))
	grade, e1 := f.choice("grade", 1, 0, "THREAD", "QPS")
	count, e2 := f.positive("count", 0)
	strategy, e3 := f.choice("strategy", 0, 0, "DIRECT", "RELATE", "CHAIN")
	ref, e4 := f.str("refResource", "")
	behavior, e5 := f.whole("controlBehavior", 0)
	warm, e6 := f.whole("warmUpPeriodSec", 10)
	queue, e7 := f.whole("maxQueueingTimeMs", 500)
	if err := first(e1, e2, e3, e4, e5, e6, e7, commonJava(f, &row.notes)); err != nil {
		return err
	}
	app, err := f.str("limitApp", "default")
	if err != nil {
		return err
	}
	if app != "default" && app != "" {
		// FlowRuleChecker.selectNodeByRequesterAndStrategy: a request
		// without an origin is checked only by rules for "default".
		row.notes = append(row.notes, fmt.Sprintf("FlowRule at %s (limitApp %q): left out; it applies only to requests from that origin, and a replayed request has none, so Sentinel checks only the \"default\" rules", d.pos(n), app))
		return nil
	}
	if !f.m.has("count") {
		return d.errAt(n, "FlowRule of %q has no count; add \"count\": N (the threshold)", res)
	}
	if behavior < 0 {
		return f.errf("controlBehavior", "is negative; use 0 (reject), 1 (warm up), 2 (rate limiter) or 3 (warm up + rate limiter)")
	}
	if strategy != 0 {
		row.notes = append(row.notes, fmt.Sprintf("strategy %d (%s, refResource %q): not simulated; the row limits the resource's own traffic", strategy, []string{"", "RELATE", "CHAIN"}[strategy], ref))
	}
	if count == 0 {
		return f.errf("count", "is 0, which blocks every request; the lab's limiters need a positive limit, so drop the rule or give a positive count")
	}
	c := fmtNum(count)
	var s, what string
	if grade == 0 {
		s = spec("concurrency", "limit", c)
		what = fmt.Sprintf("FlowRule grade=THREAD count=%s", c)
		row.responses = true
		if behavior != 0 {
			row.notes = append(row.notes, fmt.Sprintf("controlBehavior %d: ignored for THREAD grade (FlowRuleUtil.generateRater builds a DefaultController)", behavior))
		}
	} else {
		what = fmt.Sprintf("FlowRule grade=QPS controlBehavior=%d count=%s", behavior, c)
		if (behavior == 1 || behavior == 3) && warm <= 0 {
			return f.errf("warmUpPeriodSec", "is %d; a warm-up rule needs a positive period (Sentinel ignores it otherwise)", warm)
		}
		if (behavior == 2 || behavior == 3) && queue <= 0 {
			return f.errf("maxQueueingTimeMs", "is %d; a rate-limiter rule needs a positive queueing time (Sentinel ignores it otherwise)", queue)
		}
		switch behavior {
		case 1:
			s = spec("warm-up", "limit", c, "warm-up", fmt.Sprintf("%ds", warm))
		case 2:
			s = spec("leaky-bucket", "limit", c, "max-queue", fmt.Sprintf("%dms", queue))
		case 3:
			s = spec("warm-up-rate-limiter", "limit", c, "warm-up", fmt.Sprintf("%ds", warm), "max-queue", fmt.Sprintf("%dms", queue))
		default:
			if behavior != 0 {
				row.notes = append(row.notes, fmt.Sprintf("controlBehavior %d: unknown, so Sentinel falls back to the default controller (reject)", behavior))
			}
			s = spec("leap-array", "limit", c)
		}
	}
	if cs, ok, err := javaClusterFlow(f, grade, behavior, c, &row.notes); err != nil { // sentinel_cluster.go
		return err
	} else if ok {
		s, what = cs, what+" clusterMode"
	}
	for _, k := range f.unread() {
		row.notes = append(row.notes, fmt.Sprintf("%s: ignored (not a FlowRule field the lab simulates)", k))
	}
	row.flow = append(row.flow, s)
	row.whatFlow = append(row.whatFlow, what)
	return nil
}

// javaDegrade translates a DegradeRule into circuit-breaker.
func (d *doc) javaDegrade(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "DegradeRule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	row := rr.get(res, d.pos(n))
	grade, e1 := f.choice("grade", 0, 0, "RT", "EXCEPTION_RATIO", "EXCEPTION_COUNT")
	count, e2 := f.nonNegative("count", 0)
	tw, e3 := f.whole("timeWindow", 0)
	minReq, e4 := f.whole("minRequestAmount", 5)
	slow, e5 := f.num("slowRatioThreshold", 1)
	stat, e6 := f.whole("statIntervalMs", 1000)
	if err := first(e1, e2, e3, e4, e5, e6, commonJava(f, &row.notes)); err != nil {
		return err
	}
	switch {
	case tw <= 0:
		return f.errf("timeWindow", "is %d; give the seconds the breaker stays open, at least 1 (Sentinel ignores the rule otherwise)", tw)
	case minReq <= 0:
		return f.errf("minRequestAmount", "is %d; give at least 1 (Sentinel ignores the rule otherwise)", minReq)
	case stat <= 0:
		return f.errf("statIntervalMs", "is %d; give at least 1 (Sentinel ignores the rule otherwise)", stat)
	case grade == 0 && (slow < 0 || slow > 1):
		return f.errf("slowRatioThreshold", "is %v; give a ratio from 0 to 1", slow)
	case grade == 1 && count > 1:
		return f.errf("count", "is %v; an exception-ratio rule's count is a ratio from 0 to 1", count)
	}
	if row.breakerExists {
		row.notes = append(row.notes, fmt.Sprintf("DegradeRule at %s: not simulated; the lab's chain holds one circuit breaker per resource, the first", d.pos(n)))
		return nil
	}
	var s, what string
	common := []string{"min-requests", strconv.FormatInt(minReq, 10), "stat-interval", msDur(stat), "recovery", fmt.Sprintf("%ds", tw)}
	switch grade {
	case 0:
		rt := math.Round(count) // ResponseTimeCircuitBreaker: Math.round(rule.getCount())
		if rt != count {
			row.notes = append(row.notes, fmt.Sprintf("count %v: rounded to %v ms, as ResponseTimeCircuitBreaker does", count, rt))
		}
		s = spec("circuit-breaker", append([]string{"strategy", "slow-ratio", "max-rt", fmt.Sprintf("%dms", int64(rt)), "threshold", fmtNum(slow)}, common...)...)
		what = fmt.Sprintf("DegradeRule grade=RT count=%s", fmtNum(count))
	case 1:
		s = spec("circuit-breaker", append([]string{"strategy", "error-ratio", "threshold", fmtNum(count)}, common...)...)
		what = fmt.Sprintf("DegradeRule grade=EXCEPTION_RATIO count=%s", fmtNum(count))
	case 2:
		s = spec("circuit-breaker", append([]string{"strategy", "error-count", "threshold", fmtNum(count)}, common...)...)
		what = fmt.Sprintf("DegradeRule grade=EXCEPTION_COUNT count=%s", fmtNum(count))
	}
	for _, k := range f.unread() {
		row.notes = append(row.notes, fmt.Sprintf("%s: ignored (not a DegradeRule field the lab simulates)", k))
	}
	row.breakerExists = true
	row.responses = true
	row.degrade = append(row.degrade, s)
	row.whatDegrade = append(row.whatDegrade, what)
	return nil
}

// javaParam translates a ParamFlowRule (QPS grade) into sentinel-param.
func (d *doc) javaParam(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "ParamFlowRule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	row := rr.get(res, d.pos(n))
	grade, e1 := f.choice("grade", 1, 0, "THREAD", "QPS")
	idx, e2 := f.whole("paramIdx", -1<<40)
	count, e3 := f.nonNegative("count", 0)
	behavior, e4 := f.whole("controlBehavior", 0)
	queue, e5 := f.whole("maxQueueingTimeMs", 0)
	burst, e6 := f.whole("burstCount", 0)
	dur, e7 := f.whole("durationInSec", 1)
	if err := first(e1, e2, e3, e4, e5, e6, e7, commonJava(f, &row.notes)); err != nil {
		return err
	}
	switch {
	case idx == -1<<40:
		return d.errAt(n, "ParamFlowRule of %q has no paramIdx; add \"paramIdx\": 0 (the first argument, trace column key)", res)
	case idx < 0:
		return f.errf("paramIdx", "is %d, counted from the end of the arguments; the lab reads argument i from column key, key2, …, so give a non-negative index", idx)
	case burst < 0:
		return f.errf("burstCount", "is negative; give 0 or more")
	case dur <= 0:
		return f.errf("durationInSec", "is %d; give at least 1 (Sentinel ignores the rule otherwise)", dur)
	case queue < 0:
		return f.errf("maxQueueingTimeMs", "is negative; give 0 or more")
	case grade == 0:
		return f.errf("grade", "is 0 (THREAD): hot-parameter thread limits are not simulated; use grade 1 (QPS)")
	}
	items, err := d.paramItems(f, "paramFlowItemList", &row.notes)
	if err != nil {
		return err
	}
	col := keyColumn(int(idx))
	b := "reject"
	if behavior == 2 {
		b = "throttle"
	} else if behavior != 0 {
		row.notes = append(row.notes, fmt.Sprintf("controlBehavior %d: ParamFlowChecker treats anything but 2 (rate limiter) as reject", behavior))
	}
	kv := []string{"count", fmtNum(count), "duration", fmt.Sprintf("%ds", dur)}
	if burst != 0 {
		kv = append(kv, "burst", strconv.FormatInt(burst, 10))
	}
	if b == "throttle" {
		kv = append(kv, "behavior", b, "max-queue", fmt.Sprintf("%dms", queue))
	}
	kv = append(kv, "items", items, "key", col)
	if count != math.Trunc(count) {
		row.notes = append(row.notes, fmt.Sprintf("count %v: ParamFlowChecker casts it to a whole number of tokens (%d)", count, int64(count)))
	}
	for _, k := range f.unread() {
		row.notes = append(row.notes, fmt.Sprintf("%s: ignored (not a ParamFlowRule field the lab simulates)", k))
	}
	row.param = append(row.param, spec("sentinel-param", kv...))
	row.whatParam = append(row.whatParam, fmt.Sprintf("ParamFlowRule paramIdx=%d count=%s", idx, fmtNum(count)))
	row.keys = appendNew(row.keys, col)
	return nil
}

// paramItems reads paramFlowItemList into the items=v1:N|v2:M value; an
// item's object is parsed by its classType (ParamFlowRuleUtil.parseItemValue)
// and written back in the form the trace's text compares equal to.
func (d *doc) paramItems(f *fields, key string, notes *[]string) (string, error) {
	list := f.node(key)
	if list == nil {
		return "", nil
	}
	if list.Kind != yaml.SequenceNode {
		return "", f.errf(key, "is %s; give a list of {\"object\": ..., \"count\": N}", kindName(list))
	}
	var parts []string
	for _, it := range list.Content {
		g, err := d.fields(it, "ParamFlowItem")
		if err != nil {
			return "", err
		}
		obj, e1 := g.str("object", "")
		cnt, e2 := g.whole("count", -1)
		typ, e3 := g.str("classType", "")
		if err := first(e1, e2, e3); err != nil {
			return "", err
		}
		if cnt < 0 || !g.m.has("object") {
			*notes = append(*notes, fmt.Sprintf("item at %s: ignored, as ParamFlowRuleUtil ignores an item without an object or a count ≥ 0", d.pos(it)))
			continue
		}
		v, err := itemValue(obj, typ)
		if err != nil {
			return "", g.errf("object", "%v", err)
		}
		if strings.ContainsAny(v, ":|,+=") {
			return "", g.errf("object", "%q holds one of : | , + = which a lab spec cannot carry; rename the value in the trace and the rule", clip(v))
		}
		parts = append(parts, fmt.Sprintf("%s:%d", v, cnt))
	}
	return strings.Join(parts, "|"), nil
}

func itemValue(obj, typ string) (string, error) {
	switch typ {
	case "", "java.lang.String", "String":
		return obj, nil
	case "int", "java.lang.Integer", "long", "java.lang.Long", "short", "java.lang.Short", "byte", "java.lang.Byte":
		n, err := strconv.ParseInt(strings.TrimSpace(obj), 10, 64)
		if err != nil {
			return "", fmt.Errorf("%q is not a whole number for classType %s", clip(obj), typ)
		}
		return strconv.FormatInt(n, 10), nil
	case "double", "java.lang.Double", "float", "java.lang.Float":
		x, err := strconv.ParseFloat(strings.TrimSpace(obj), 64)
		if err != nil {
			return "", fmt.Errorf("%q is not a number for classType %s", clip(obj), typ)
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case "boolean", "java.lang.Boolean":
		return strconv.FormatBool(strings.EqualFold(obj, "true")), nil
	case "char":
		if obj == "" {
			return "", fmt.Errorf("is empty for classType char")
		}
		return string([]rune(obj)[0]), nil
	}
	return obj, nil
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func first(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// systemMerge merges system rules as SystemRuleManager.loadSystemConf
// does: the smallest value of each kind that is set (≥ 0).
type systemMerge struct {
	pos                      string
	load, cpu, qps, rt, thrd float64
	set                      [5]bool
	strategy                 string // sentinel-golang: bbr or none
	notes                    []string
	sources                  int
}

func (s *systemMerge) add(i int, v float64, dst *float64) {
	if !s.set[i] || v < *dst {
		*dst = v
	}
	s.set[i] = true
}

func (s *systemMerge) rule(flavor string) (Rule, error) {
	kv := []string{}
	if s.set[2] {
		kv = append(kv, "qps", fmtNum(s.qps))
	}
	if s.set[4] {
		kv = append(kv, "max-thread", fmtNum(s.thrd))
	}
	if s.set[3] {
		kv = append(kv, "avg-rt", fmtNum(s.rt))
	}
	if s.set[0] {
		kv = append(kv, "load", fmtNum(s.load))
	}
	if s.set[1] {
		kv = append(kv, "cpu", fmtNum(s.cpu))
	}
	if len(kv) == 0 {
		return Rule{}, fmt.Errorf("the system rules set no threshold (every value is -1); give highestSystemLoad, highestCpuUsage, qps, avgRt or maxThread")
	}
	if flavor == "go" {
		kv = append(kv, "flavor", "go")
		if s.strategy != "" {
			kv = append(kv, "strategy", s.strategy)
		}
	}
	notes := append([]string{"system rules apply to every inbound resource; the lab shows them merged as one row, as SystemRuleManager merges them (the smallest threshold of each kind)"}, s.notes...)
	return Rule{
		Name: "system", Source: s.pos, What: fmt.Sprintf("%d SystemRule(s), merged", s.sources),
		Spec: spec("sentinel-system", kv...), Notes: notes, NeedsResponses: s.set[3] || s.set[4],
	}, nil
}

func (d *doc) javaSystem(n *yaml.Node, s *systemMerge) error {
	f, err := d.fields(n, "SystemRule")
	if err != nil {
		return err
	}
	load, e1 := f.num("highestSystemLoad", -1)
	cpu, e2 := f.num("highestCpuUsage", -1)
	qps, e3 := f.num("qps", -1)
	rt, e4 := f.whole("avgRt", -1)
	thrd, e5 := f.whole("maxThread", -1)
	f.node("resource")
	var notes []string
	if err := first(e1, e2, e3, e4, e5, commonJava(f, &notes)); err != nil {
		return err
	}
	s.notes = append(s.notes, notes...)
	s.sources++
	if load >= 0 {
		s.add(0, load, &s.load)
	}
	if cpu >= 0 {
		if cpu > 1 {
			s.notes = append(s.notes, fmt.Sprintf("highestCpuUsage %v at %s: ignored, as SystemRuleManager ignores a value above 1", cpu, d.pos(n)))
		} else {
			s.add(1, cpu, &s.cpu)
		}
	}
	if qps >= 0 {
		s.add(2, qps, &s.qps)
	}
	if rt >= 0 {
		s.add(3, float64(rt), &s.rt)
	}
	if thrd >= 0 {
		s.add(4, float64(thrd), &s.thrd)
	}
	for _, k := range f.unread() {
		s.notes = append(s.notes, fmt.Sprintf("%s: ignored (not a SystemRule field)", k))
	}
	return nil
}

// goDuration helps the sentinel-golang fields counted in ms.
func msDur(ms int64) string { return fmtDur(time.Duration(ms) * time.Millisecond) }

package rules

import (
	"errors"
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
	gatewayParams            int // GatewayFlowRules with a paramItem so far
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
			Notes: r.notes, KeyColumns: r.keys, NeedsResponses: r.responses, Scope: name,
		})
	}
	return out
}

// sentinelJavaDocs reads Sentinel (Java) rule JSON, every document of the
// file together: an array of rules of any kind (FlowRule, DegradeRule,
// ParamFlowRule, SystemRule, GatewayFlowRule, told apart by their
// fields; the dashboard's rule entities, FlowRuleEntity and the others,
// carry the same fields, and ParamFlowRuleEntity nests its rule under
// "rule"), one rule object, or a map of kinds {"flowRules": [...],
// "degradeRules": [...], "paramFlowRules": [...], "systemRules": [...]}.
// As Sentinel's rule managers do, a rule its validation refuses is
// dropped (an Inactive rule, with the validation quoted) and the others
// load; only a document that does not parse refuses the file.
func (d *doc) sentinelJavaDocs(roots []*yaml.Node) ([]Rule, error) {
	var groups []ruleGroup
	for _, root := range roots {
		m := mp(root)
		switch {
		case root.Kind == yaml.MappingNode && (m.has("flowRules") || m.has("degradeRules") || m.has("paramFlowRules") || m.has("systemRules") || m.has("gatewayFlowRules")):
			for _, k := range m.keys() {
				v := m.get(k)
				switch k {
				case "flowRules", "degradeRules", "paramFlowRules", "systemRules", "gatewayFlowRules":
					if v.Kind != yaml.SequenceNode {
						return nil, d.errAt(v, "%s must be a list of rules, got %s", k, kindName(v))
					}
					groups = append(groups, ruleGroup{strings.TrimSuffix(k, "s"), unwrapEntities(v.Content)})
				default:
					return nil, d.errAt(m.keyNode(k), "%q is not a kind of Sentinel rule; use flowRules, degradeRules, paramFlowRules, systemRules or gatewayFlowRules", k)
				}
			}
		case root.Kind == yaml.SequenceNode:
			for _, it := range unwrapEntities(root.Content) {
				groups = append(groups, ruleGroup{javaKind(it), []*yaml.Node{it}})
			}
		default:
			for _, it := range unwrapEntities([]*yaml.Node{root}) {
				groups = append(groups, ruleGroup{javaKind(it), []*yaml.Node{it}})
			}
		}
	}
	return d.translate(groups, "a Sentinel rule", "java", "systemRule", d.javaSystem, map[string]func(*yaml.Node, *resourceRows) error{
		"flowRule": d.javaFlow, "degradeRule": d.javaDegrade, "paramFlowRule": d.javaParam, "gatewayFlowRule": d.javaGateway,
	})
}

// unwrapEntities replaces each dashboard entity that nests its rule
// (sentinel-dashboard's AbstractRuleEntity: ParamFlowRuleEntity,
// AuthorityRuleEntity, {"id", "app", "ip", "port", "rule": {...},
// "gmtCreate", "gmtModified"}) by its rule. The flat entities
// (FlowRuleEntity, DegradeRuleEntity, SystemRuleEntity) are rules with
// extra fields, read as they are.
func unwrapEntities(list []*yaml.Node) []*yaml.Node {
	out := make([]*yaml.Node, 0, len(list))
	for _, it := range list {
		if r := mp(it).get("rule"); r != nil && r.Kind == yaml.MappingNode {
			it = r
		}
		out = append(out, it)
	}
	return out
}

// ruleGroup is the rules of one kind, in file order.
type ruleGroup struct {
	kind  string
	items []*yaml.Node
}

// translate runs every rule through its kind's translator: per-resource
// kinds into chains (resourceRows), the system kind into one merged row,
// listed first; the rules the product drops (Inactive) and those the lab
// does not simulate (NotSimulated) come last, in file order.
func (d *doc) translate(groups []ruleGroup, what, flavor, systemKind string, system func(*yaml.Node, *systemMerge) error, per map[string]func(*yaml.Node, *resourceRows) error) ([]Rule, error) {
	var rr resourceRows
	var sys *systemMerge
	var aside []Rule
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
			var de *dropErr
			var ne *notSimErr
			switch {
			case errors.As(err, &de):
				r := Rule{Name: nameOr(de.res), Source: d.pos(de.n), What: de.what, Outcome: Inactive, Why: de.why, Scope: de.res}
				if g.kind == systemKind {
					r.Name, r.Scope = "system", "global"
				}
				aside = append(aside, r)
			case errors.As(err, &ne):
				aside = append(aside, Rule{Name: nameOr(ne.res), Source: d.pos(ne.n), What: ne.what, Outcome: NotSimulated, Why: ne.why, Scope: ne.res})
			case err != nil:
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
	return append(append(out, rr.rules()...), aside...), nil
}

func nameOr(res string) string {
	if strings.TrimSpace(res) == "" {
		return "(no resource)"
	}
	return res
}

// javaKind tells a Sentinel rule's class from its fields.
func javaKind(n *yaml.Node) string {
	m := mp(n)
	switch {
	case m.has("highestSystemLoad") || m.has("highestCpuUsage") || m.has("avgRt") || m.has("maxThread") || (m.has("qps") && !m.has("resource")):
		return "systemRule"
	case m.has("resourceMode") || m.has("intervalSec") || m.has("paramItem") || m.has("maxQueueingTimeoutMs"):
		return "gatewayFlowRule"
	case m.has("paramIdx") || m.has("paramFlowItemList") || m.has("durationInSec") || m.has("burstCount"):
		return "paramFlowRule"
	case m.has("timeWindow") || m.has("minRequestAmount") || m.has("slowRatioThreshold") || m.has("statIntervalMs"):
		return "degradeRule"
	}
	return "flowRule"
}

// resourceOf reads a rule's resource; a rule without one is dropped, as
// every rule manager's isValidRule refuses a blank resource.
func resourceOf(f *fields) (string, error) {
	res, err := f.str("resource", "")
	if err == nil && strings.TrimSpace(res) == "" {
		err = f.drop("", "it has no resource, and Sentinel drops a rule whose resource is blank (isValidRule: StringUtil.isBlank(rule.getResource()))")
	}
	return res, err
}

// javaCluster reads clusterMode and clusterConfig as FlowRuleUtil
// (checkClusterField) and ParamFlowRuleUtil (checkCluster) validate
// them, and as FlowRuleChecker.passClusterCheck runs them: each request
// asks the token server; when no token service is there or the request
// fails, fallbackToLocalOrPass checks the rule locally if
// clusterConfig.fallbackToLocalWhenFail (the default, true) and else
// passes it. The lab has no token server: a valid cluster rule with
// fallback runs as its local check (a note says so); without fallback it
// is NotSimulated (Sentinel would pass every request). flow says the
// FlowRule checks (a cluster strategy of 0 only). simulated says the rule
// becomes sentinel-cluster (a QPS FlowRule with controlBehavior 0,
// sentinel_cluster.go), which models the token server and both
// fallbacks: then only the validation applies here.
func javaCluster(f *fields, res string, flow, simulated bool, notes *[]string) error {
	cluster, err := f.boolean("clusterMode", false)
	if err != nil || !cluster {
		f.node("clusterConfig")
		return err
	}
	validator, checker := "ParamFlowRuleUtil.checkCluster", "ParamFlowChecker"
	if flow {
		validator, checker = "FlowRuleUtil.checkClusterField", "FlowRuleChecker"
	}
	cc := f.node("clusterConfig")
	if cc == nil || cc.Kind != yaml.MappingNode {
		return f.drop(res, "clusterMode true without a clusterConfig, and Sentinel drops such a rule (%s: clusterConfig == null)", validator)
	}
	g, err := f.d.fields(cc, "clusterConfig")
	if err != nil {
		return err
	}
	id, e1 := g.num("flowId", 0)
	samples, e2 := g.whole("sampleCount", 10)
	window, e3 := g.whole("windowIntervalMs", 1000)
	strategy, e4 := g.whole("strategy", 0)
	fallback, e5 := g.boolean("fallbackToLocalWhenFail", true)
	if err := first(e1, e2, e3, e4, e5); err != nil {
		return err
	}
	switch {
	case id <= 0:
		return f.drop(res, "clusterMode true with no positive clusterConfig.flowId, and Sentinel drops such a rule (%s: validClusterRuleId)", validator)
	case samples <= 0 || window <= 0 || window%samples != 0:
		return f.drop(res, "clusterConfig sampleCount %d, windowIntervalMs %d: Sentinel drops the rule (FlowRuleUtil.isWindowConfigValid: both positive, the interval a multiple of the count)", samples, window)
	case flow && strategy != 0:
		return f.drop(res, "clusterConfig.strategy %d: Sentinel drops the rule (FlowRuleUtil.checkClusterField accepts only FLOW_CLUSTER_STRATEGY_NORMAL, 0)", strategy)
	}
	if simulated {
		return nil
	}
	if !fallback {
		return f.notSim(res, "clusterMode true with clusterConfig.fallbackToLocalWhenFail false: each request asks the token server, and when none answers Sentinel passes it (%s.fallbackToLocalOrPass); the lab simulates no token server, so it has no row for this rule", checker)
	}
	*notes = append(*notes, fmt.Sprintf("clusterMode true (flowId %s): the token server is not simulated; the row is the rule's local check, which is what Sentinel runs when the token server is unreachable (clusterConfig.fallbackToLocalWhenFail true, %s.fallbackToLocalOrPass); with a token server the cluster-wide threshold would apply instead", fmtNum(id), checker))
	return nil
}

// commonJava notes the fields every Java rule may carry that the lab does
// not simulate (the dashboard entities' app, ip, port, gmtCreate,
// gmtModified among them).
func commonJava(f *fields, notes *[]string) error {
	f.node("limitApp") // read by javaFlow: only FlowRuleChecker filters by origin
	f.node("clusterMode")
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
// controller from grade and controlBehavior. A rule FlowRuleUtil.isValidRule
// refuses is dropped; count 0 (valid: count >= 0) blocks every request, as
// every controller does with it (DefaultController: passQps + acquire >
// 0; RateLimiterController: count <= 0 returns false; WarmUpController:
// warningToken and maxToken are 0, its slope infinite, so its warning QPS
// is NaN and passQps + acquire <= NaN fails).
func (d *doc) javaFlow(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "FlowRule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	grade, e1 := f.num("grade", 1)
	count, e2 := f.num("count", 0)
	strategy, e3 := f.whole("strategy", 0)
	ref, e4 := f.str("refResource", "")
	behavior, e5 := f.whole("controlBehavior", 0)
	warm, e6 := f.whole("warmUpPeriodSec", 10)
	queue, e7 := f.whole("maxQueueingTimeMs", 500)
	regex, e8 := f.boolean("regex", false)
	cluster, e9 := f.boolean("clusterMode", false)
	var notes []string
	if err := first(e1, e2, e3, e4, e5, e6, e7, e8, e9, commonJava(f, &notes)); err != nil {
		return err
	}
	const v = "FlowRuleUtil.isValidRule"
	switch {
	case count < 0:
		return f.drop(res, "count %s is negative, and Sentinel drops the rule (%s: count >= 0)", fmtNum(count), v)
	case grade != 0 && grade != 1:
		return f.drop(res, "grade %s is neither 0 (THREAD) nor 1 (QPS), and Sentinel drops the rule (%s)", fmtNum(grade), v)
	case strategy < 0 || behavior < 0:
		return f.drop(res, "strategy or controlBehavior is negative, and Sentinel drops the rule (%s)", v)
	case regex && (cluster || behavior != 0):
		return f.drop(res, "regex true with clusterMode or a controlBehavior other than 0, and Sentinel drops the rule (FlowRuleUtil.checkRegexField)")
	case grade == 1 && (strategy == 1 || strategy == 2) && strings.TrimSpace(ref) == "":
		return f.drop(res, "strategy %d (%s) without a refResource, and Sentinel drops the rule (FlowRuleUtil.checkStrategyField)", strategy, []string{"", "RELATE", "CHAIN"}[strategy])
	case grade == 1 && (behavior == 1 || behavior == 3) && warm <= 0:
		return f.drop(res, "warmUpPeriodSec %d: a warm-up rule needs a positive period, and Sentinel drops it (FlowRuleUtil.checkControlBehaviorField)", warm)
	case grade == 1 && (behavior == 2 || behavior == 3) && queue <= 0:
		return f.drop(res, "maxQueueingTimeMs %d: a rate-limiter rule needs a positive queueing time, and Sentinel drops it (FlowRuleUtil.checkControlBehaviorField)", queue)
	}
	if err := javaCluster(f, res, true, grade == 1 && behavior == 0, &notes); err != nil {
		return err
	}
	app, err := f.str("limitApp", "default")
	if err != nil {
		return err
	}
	row := rr.get(res, d.pos(n))
	row.notes = append(row.notes, notes...)
	if app != "default" && app != "" {
		// FlowRuleChecker.selectNodeByRequesterAndStrategy: a request
		// without an origin is checked only by rules for "default".
		row.notes = append(row.notes, fmt.Sprintf("FlowRule at %s (limitApp %q): left out; it applies only to requests from that origin, and a replayed request has none, so Sentinel checks only the \"default\" rules", d.pos(n), app))
		return nil
	}
	// FlowRuleChecker.selectReferenceNode: RELATE counts refResource's
	// cluster node, CHAIN applies only to calls entered through the
	// context named refResource; neither is this resource's own traffic.
	switch {
	case strategy == 1 && strings.TrimSpace(ref) != "":
		return f.notSim(res, "strategy 1 (RELATE, refResource %q): Sentinel limits this resource when %q's QPS passes the count (FlowRuleChecker.selectReferenceNode reads its cluster node); the lab replays one traffic, so it does not simulate this rule", clip(ref), clip(ref))
	case strategy == 2 && strings.TrimSpace(ref) != "":
		return f.notSim(res, "strategy 2 (CHAIN, refResource %q): Sentinel applies it only to calls entered through the context %q (FlowRuleChecker.selectReferenceNode); replayed requests carry no context, so the lab does not simulate this rule", clip(ref), clip(ref))
	case strategy != 0:
		row.notes = append(row.notes, fmt.Sprintf("strategy %d without a refResource: FlowRuleChecker.selectReferenceNode has no node for it, so Sentinel checks the resource's own traffic, as the row does", strategy))
	}
	c := fmtNum(count)
	var s, what string
	switch {
	case count == 0:
		if !f.m.has("count") {
			row.notes = append(row.notes, "count: absent, so 0 (FlowRule's default), which blocks every request")
		}
		s = spec("sentinel-param", "count", "0", "key", "*")
		what = fmt.Sprintf("FlowRule grade=%s controlBehavior=%d count=0", []string{"THREAD", "QPS"}[int(grade)], behavior)
		row.notes = append(row.notes, "count 0: Sentinel blocks every request of the resource (the controller admits nothing at a threshold of 0); the row is sentinel-param with count 0 on one shared value (key=*), which blocks every request too")
	case grade == 0:
		s = spec("concurrency", "limit", c)
		what = fmt.Sprintf("FlowRule grade=THREAD count=%s", c)
		row.responses = true
		if behavior != 0 {
			row.notes = append(row.notes, fmt.Sprintf("controlBehavior %d: ignored for THREAD grade (FlowRuleUtil.generateRater builds a DefaultController)", behavior))
		}
	default:
		what = fmt.Sprintf("FlowRule grade=QPS controlBehavior=%d count=%s", behavior, c)
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
	if cs, ok, err := javaClusterFlow(f, int(grade), behavior, c, &row.notes); err != nil { // sentinel_cluster.go
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

// javaDegrade translates a DegradeRule into circuit-breaker; a rule
// DegradeRuleManager.isValidRule refuses is dropped.
func (d *doc) javaDegrade(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "DegradeRule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	grade, e1 := f.whole("grade", 0)
	count, e2 := f.num("count", 0)
	tw, e3 := f.whole("timeWindow", 0)
	minReq, e4 := f.whole("minRequestAmount", 5)
	slow, e5 := f.num("slowRatioThreshold", 1)
	stat, e6 := f.whole("statIntervalMs", 1000)
	var notes []string
	if err := first(e1, e2, e3, e4, e5, e6, commonJava(f, &notes)); err != nil {
		return err
	}
	const v = "DegradeRuleManager.isValidRule"
	switch {
	case count < 0:
		return f.drop(res, "count %s is negative, and Sentinel drops the rule (%s: count >= 0)", fmtNum(count), v)
	case tw <= 0:
		return f.drop(res, "timeWindow %d: the breaker needs at least 1 s open, and Sentinel drops the rule (%s: timeWindow > 0)", tw, v)
	case minReq <= 0:
		return f.drop(res, "minRequestAmount %d, and Sentinel drops the rule (%s: minRequestAmount > 0)", minReq, v)
	case stat <= 0:
		return f.drop(res, "statIntervalMs %d, and Sentinel drops the rule (%s: statIntervalMs > 0)", stat, v)
	case grade < 0 || grade > 2:
		return f.drop(res, "grade %d is not 0 (RT), 1 (EXCEPTION_RATIO) or 2 (EXCEPTION_COUNT), and Sentinel drops the rule (%s)", grade, v)
	case grade == 0 && (slow < 0 || slow > 1):
		return f.drop(res, "slowRatioThreshold %s is not from 0 to 1, and Sentinel drops the rule (%s)", fmtNum(slow), v)
	case grade == 1 && count > 1:
		return f.drop(res, "count %s: an exception-ratio rule's count is a ratio from 0 to 1, and Sentinel drops the rule (%s)", fmtNum(count), v)
	}
	row := rr.get(res, d.pos(n))
	row.notes = append(row.notes, notes...)
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

// javaParam translates a ParamFlowRule (QPS grade) into sentinel-param; a
// rule ParamFlowRuleUtil.isValidRule refuses is dropped.
func (d *doc) javaParam(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "ParamFlowRule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	grade, e1 := f.whole("grade", 1)
	idx, e2 := f.whole("paramIdx", -1<<40)
	count, e3 := f.num("count", 0)
	behavior, e4 := f.whole("controlBehavior", 0)
	queue, e5 := f.whole("maxQueueingTimeMs", 0)
	burst, e6 := f.whole("burstCount", 0)
	dur, e7 := f.whole("durationInSec", 1)
	var notes []string
	if err := first(e1, e2, e3, e4, e5, e6, e7, commonJava(f, &notes)); err != nil {
		return err
	}
	const v = "ParamFlowRuleUtil.isValidRule"
	switch {
	case idx == -1<<40:
		return f.drop(res, "it has no paramIdx, and Sentinel drops the rule (%s: paramIdx != null)", v)
	case count < 0:
		return f.drop(res, "count %s is negative, and Sentinel drops the rule (%s: count >= 0)", fmtNum(count), v)
	case grade < 0 || behavior < 0:
		return f.drop(res, "grade or controlBehavior is negative, and Sentinel drops the rule (%s)", v)
	case burst < 0:
		return f.drop(res, "burstCount %d is negative, and Sentinel drops the rule (%s: burstCount >= 0)", burst, v)
	case dur <= 0:
		return f.drop(res, "durationInSec %d, and Sentinel drops the rule (%s: durationInSec > 0)", dur, v)
	case queue < 0:
		return f.drop(res, "maxQueueingTimeMs %d is negative, and Sentinel drops the rule (%s: maxQueueingTimeMs >= 0)", queue, v)
	}
	if err := javaCluster(f, res, false, false, &notes); err != nil {
		return err
	}
	switch {
	case idx < 0:
		return f.notSim(res, "paramIdx %d counts from the end of the arguments; the lab reads argument i from column key, key2, …, so it cannot place this one (give a non-negative index)", idx)
	case grade == 0:
		return f.notSim(res, "grade 0 (THREAD): hot-parameter thread limits are not simulated; the lab simulates grade 1 (QPS)")
	}
	row := rr.get(res, d.pos(n))
	row.notes = append(row.notes, notes...)
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
		Spec: spec("sentinel-system", kv...), Notes: notes, NeedsResponses: s.set[3] || s.set[4], Scope: "global",
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

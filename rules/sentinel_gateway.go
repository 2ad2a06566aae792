package rules

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// gatewayParse names GatewayParamFlowItem.parseStrategy's values
// (SentinelGatewayConstants.PARAM_PARSE_STRATEGY_*).
var gatewayParse = []string{"the client IP", "the host", "header", "URL parameter", "cookie"}

// javaGateway translates a GatewayFlowRule (sentinel-api-gateway-adapter-
// common) as GatewayRuleManager loads it: a rule isValidRule refuses is
// dropped; the others become hot-parameter rules on the gateway's
// parameters (GatewayRuleConverter): a rule with a paramItem becomes
// applyToParamRule's ParamFlowRule on the next parameter index of its
// resource (the request attribute parseStrategy names, read here from
// the trace column key, key2, … in that order), and a rule without one
// applyNonParamToParamRule's on a constant value that every request
// shares (key=*). count, intervalSec (durationInSec), burst,
// controlBehavior and maxQueueingTimeoutMs carry over as they are.
func (d *doc) javaGateway(n *yaml.Node, rr *resourceRows) error {
	f, err := d.fields(n, "GatewayFlowRule")
	if err != nil {
		return err
	}
	res, err := resourceOf(f)
	if err != nil {
		return err
	}
	mode, e1 := f.whole("resourceMode", 0)
	grade, e2 := f.whole("grade", 1)
	count, e3 := f.num("count", 0)
	interval, e4 := f.whole("intervalSec", 1)
	behavior, e5 := f.whole("controlBehavior", 0)
	burst, e6 := f.whole("burst", 0)
	queue, e7 := f.whole("maxQueueingTimeoutMs", 500)
	var notes []string
	if err := first(e1, e2, e3, e4, e5, e6, e7, commonJava(f, &notes)); err != nil {
		return err
	}
	const v = "GatewayRuleManager.isValidRule"
	switch {
	case mode < 0 || grade < 0 || count < 0 || burst < 0 || behavior < 0:
		return f.drop(res, "resourceMode, grade, count, burst or controlBehavior is negative, and Sentinel drops the rule (%s)", v)
	case behavior == 2 && queue < 0:
		return f.drop(res, "maxQueueingTimeoutMs %d is negative, and Sentinel drops the rule (%s)", queue, v)
	case interval <= 0:
		return f.drop(res, "intervalSec %d, and Sentinel drops the rule (%s: intervalSec > 0)", interval, v)
	}
	item := f.node("paramItem")
	col, attr := "*", ""
	if item != nil {
		g, err := d.fields(item, "GatewayParamFlowItem")
		if err != nil {
			return err
		}
		ps, e1 := g.whole("parseStrategy", 0)
		field, e2 := g.str("fieldName", "")
		pattern, e3 := g.str("pattern", "")
		match, e4 := g.whole("matchStrategy", 0)
		g.node("index")
		if err := first(e1, e2, e3, e4); err != nil {
			return err
		}
		switch {
		case ps < 0:
			return f.drop(res, "paramItem.parseStrategy %d is negative, and Sentinel drops the rule (GatewayRuleManager.isValidParamItem)", ps)
		case ps >= 2 && ps <= 4 && strings.TrimSpace(field) == "":
			return f.drop(res, "paramItem.parseStrategy %d (%s) without a fieldName, and Sentinel drops the rule (GatewayRuleManager.isValidParamItem)", ps, gatewayParse[ps])
		case pattern != "" && match < 0:
			return f.drop(res, "paramItem.matchStrategy %d is negative with a pattern, and Sentinel drops the rule (GatewayRuleManager.isValidParamItem)", match)
		case pattern != "":
			return f.notSim(res, "paramItem.pattern %q: Sentinel limits only the values that match it and lets every other value pass (GatewayRuleConverter.applyToParamRule adds a pass item for the non-matching marker); the lab's sentinel-param limits every value, so it does not simulate this rule", clip(pattern))
		}
		row := rr.get(res, d.pos(n))
		col = keyColumn(row.gatewayParams)
		row.gatewayParams++
		attr = "parseStrategy " + strconv.FormatInt(ps, 10)
		if ps <= 4 {
			attr += " (" + gatewayParse[ps]
			if ps >= 2 {
				attr += " " + strconv.Quote(field)
			}
			attr += ")"
		}
	}
	if grade == 0 {
		return f.notSim(res, "grade 0 (THREAD): GatewayRuleConverter makes a hot-parameter thread rule of it, which the lab does not simulate")
	}
	row := rr.get(res, d.pos(n))
	row.notes = append(row.notes, notes...)
	kv := []string{"count", fmtNum(count), "duration", fmt.Sprintf("%ds", interval)}
	if burst != 0 {
		kv = append(kv, "burst", strconv.FormatInt(burst, 10))
	}
	if behavior == 2 {
		kv = append(kv, "behavior", "throttle", "max-queue", fmt.Sprintf("%dms", queue))
	} else if behavior != 0 {
		row.notes = append(row.notes, fmt.Sprintf("controlBehavior %d: ParamFlowChecker treats anything but 2 (rate limiter) as reject", behavior))
	}
	kv = append(kv, "key", col)
	what := fmt.Sprintf("GatewayFlowRule count=%s intervalSec=%d", fmtNum(count), interval)
	if col == "*" {
		row.notes = append(row.notes, fmt.Sprintf("GatewayFlowRule at %s: no paramItem, so Sentinel counts every request of the resource on one constant parameter (GatewayRuleConverter.applyNonParamToParamRule): key=*", d.pos(n)))
	} else {
		row.keys = appendNew(row.keys, col)
		row.notes = append(row.notes, fmt.Sprintf("GatewayFlowRule at %s: paramItem %s is read from the trace column %s (GatewayRuleConverter.applyToParamRule)", d.pos(n), attr, col))
		what += " paramItem " + attr
	}
	if mode == 1 {
		row.notes = append(row.notes, "resourceMode 1: the resource is a custom API group (GatewayApiDefinition); the row stands for the requests that match it")
	}
	for _, k := range f.unread() {
		row.notes = append(row.notes, fmt.Sprintf("%s: ignored (not a GatewayFlowRule field the lab simulates)", k))
	}
	row.param = append(row.param, spec("sentinel-param", kv...))
	row.whatParam = append(row.whatParam, what)
	return nil
}

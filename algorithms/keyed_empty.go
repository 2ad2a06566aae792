package algorithms

import (
	"fmt"
	"strings"
	"time"
)

// This file is how a per-key limiter meets a request whose key is empty
// (an empty cell of its key column, NoKey): each product does its own
// thing, and the lab does what the product of the spec does.
//
//   - pass: the request is not accounted and passes. nginx's limit_req
//     skips a zone whose key is empty (and one longer than 65535 bytes):
//     ngx_http_limit_req_module.c, ngx_http_limit_req_handler, `if
//     (key.len == 0) { continue; }`. Envoy's local rate limit does not
//     produce a descriptor whose value is missing, so no descriptor limit
//     applies. HAProxy's `http-request track-sc0 <expr>` tracks nothing
//     when the sample fetch fails (http_ana.c, ACT_ACTION_TRK_SC0: `if (key
//     && (ts = stktable_get_entry(t, key)))`), so sc_http_req_rate(0)
//     fails and `deny if { sc_http_req_rate(0) gt N }` does not deny.
//     Sentinel's hot-parameter check passes a null argument
//     (ParamFlowChecker.passCheck: `if (value == null) return true`;
//     sentinel-golang core/hotspot/slot.go Check: `if arg == nil {
//     continue }`). The lab's own kinds (token-bucket, leap-array, …) do
//     the same by default.
//   - shared: the empty string is a key like any other, so every request
//     without a key shares one state. Traefik's header source criterion
//     (vulcand/oxy utils/source.go makeHeaderExtractor) returns
//     req.Header.Get(name), "" for a missing header, without an error, and
//     the middleware keys its bucket by that string; Bucket4j and
//     resilience4j key nothing themselves, and the application's map of
//     buckets (or RateLimiterRegistry.rateLimiter(name)) holds "" as one
//     more name.
//   - reject: the request is refused, counted as a rejection (Spring Cloud
//     Gateway's RequestRateLimiterGatewayFilterFactory with denyEmptyKey,
//     its default: the key resolver's empty answer becomes EMPTY_KEY and
//     the filter answers emptyKeyStatus, 403; the redis-spring-gateway
//     spec).
//   - fallback: the request is keyed by another column. Kong's
//     rate-limiting handler.lua get_identifier ends with `return
//     identifier or kong.client.get_forwarded_ip()`: a missing header,
//     consumer, credential, service or non-matching path is counted under
//     the client's IP, in the same counters as any identifier with that
//     string (the lab's keys of every column share one table of strings,
//     so the IP "10.0.0.1" and a header value "10.0.0.1" are one key, as
//     in Kong). fallback=COLUMN names the column holding the client
//     address; a request whose fallback is empty too shares one state.
//
// A spec with key= takes empty-key=pass|shared|reject to override its
// family's rule, and fallback=COLUMN (which implies the fallback rule).

// EmptyKeyPolicy is how a per-key limiter meets a request whose key is
// empty.
type EmptyKeyPolicy uint8

const (
	// EmptyKeyPass passes the request unaccounted.
	EmptyKeyPass EmptyKeyPolicy = iota
	// EmptyKeyShared charges every empty key to one shared state.
	EmptyKeyShared
	// EmptyKeyReject refuses the request.
	EmptyKeyReject
	// EmptyKeyFallback keys the request by another column.
	EmptyKeyFallback
)

var emptyKeyNames = [...]string{"pass", "shared", "reject", "fallback"}

// String is the policy's name in a spec (empty-key=NAME).
func (p EmptyKeyPolicy) String() string { return emptyKeyNames[p] }

// emptyKeyer is implemented by the limiters whose product meets an empty
// key otherwise than by passing it unaccounted: the per-key wrapper reads
// the family's default from it.
type emptyKeyer interface {
	emptyKeyPolicy() EmptyKeyPolicy
}

// emptyKeyPolicy implements emptyKeyer: Traefik keys its bucket by the
// extracted source, "" for a missing header (oxy's makeHeaderExtractor).
func (l *Traefik) emptyKeyPolicy() EmptyKeyPolicy { return EmptyKeyShared }

// emptyKeyPolicy implements emptyKeyer: Kong's get_identifier falls back
// to kong.client.get_forwarded_ip().
func (k *Kong) emptyKeyPolicy() EmptyKeyPolicy { return EmptyKeyFallback }

// emptyKeyPolicy implements emptyKeyer: the application's map of buckets
// holds "" as one more key.
func (b *Bucket4j) emptyKeyPolicy() EmptyKeyPolicy { return EmptyKeyShared }

// emptyKeyPolicy implements emptyKeyer: RateLimiterRegistry.rateLimiter("")
// is one more named limiter.
func (r *Resilience4j) emptyKeyPolicy() EmptyKeyPolicy { return EmptyKeyShared }

// emptyKeyPolicy implements emptyKeyer: an empty sample tracks nothing.
func (h *HAProxy) emptyKeyPolicy() EmptyKeyPolicy { return EmptyKeyPass }

// emptyKeyPolicy implements emptyKeyer: no descriptor, no limit.
func (e *EnvoyLocal) emptyKeyPolicy() EmptyKeyPolicy { return EmptyKeyPass }

// DefaultEmptyKeyPolicy is the rule of l's family for an empty key when l
// is made per-key (key=COLUMN without empty-key=).
func DefaultEmptyKeyPolicy(l Limiter) EmptyKeyPolicy {
	if e, ok := l.(emptyKeyer); ok {
		return e.emptyKeyPolicy()
	}
	return EmptyKeyPass
}

// EmptyKeyPolicyOf is the policy a per-key limiter applies to an empty
// key, and false when l keeps no per-key state.
func EmptyKeyPolicyOf(l Limiter) (EmptyKeyPolicy, bool) {
	switch k := l.(type) {
	case *Keyed:
		return k.empty.policy, true
	case *KeyedCompleter:
		return k.empty.policy, true
	case *keyedStage:
		return k.empty.policy, true
	case *NginxLimitReq, *SentinelParam:
		return EmptyKeyPass, true
	}
	return 0, false
}

// emptyKey is a Keyed's rule for an empty key.
type emptyKey struct {
	policy   EmptyKeyPolicy
	given    bool   // empty-key= or fallback= was written in the spec
	fallback string // fallback=COLUMN ("" without one)
	fcol     int    // the fallback column's index in Request.Keys, -1 unbound
	// shift is 1 when the table holds a state for the empty key: key id
	// k is table id k+1 and the empty key is table id 0 (shared, and the
	// fallback's own empty key); 0 otherwise.
	shift int32
}

// cutEmptyKey removes empty-key= and fallback= from a spec's parameters.
func cutEmptyKey(inner string) (string, emptyKey, error) {
	ek := emptyKey{fcol: -1}
	name, rest, has := strings.Cut(inner, ":")
	if !has || strings.TrimSpace(rest) == "" {
		return inner, ek, nil
	}
	var keep []string
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(kv, "=")
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "empty-key":
			if ek.given && ek.fallback == "" {
				return "", ek, fmt.Errorf("%s: parameter \"empty-key\" is given twice", name)
			}
			p, ok := parseEmptyKeyPolicy(v)
			if !ok {
				return "", ek, fmt.Errorf("%s: empty-key %q is not known; allowed: pass, shared, reject (or fallback=COLUMN to key such requests by another column)", name, v)
			}
			if ek.fallback != "" && p != EmptyKeyFallback {
				return "", ek, fmt.Errorf("%s: empty-key=%s and fallback=%s disagree; keep one", name, v, ek.fallback)
			}
			ek.policy, ek.given = p, true
			continue
		case "fallback":
			if v == "" {
				return "", ek, fmt.Errorf("%s: fallback= needs a column name (for example fallback=ip)", name)
			}
			if ek.fallback != "" {
				return "", ek, fmt.Errorf("%s: parameter \"fallback\" is given twice", name)
			}
			if ek.given && ek.policy != EmptyKeyFallback {
				return "", ek, fmt.Errorf("%s: empty-key=%s and fallback=%s disagree; keep one", name, ek.policy, v)
			}
			ek.policy, ek.given, ek.fallback = EmptyKeyFallback, true, v
			continue
		}
		keep = append(keep, kv)
	}
	if ek.policy == EmptyKeyFallback && ek.fallback == "" {
		return "", ek, fmt.Errorf("%s: empty-key=fallback needs the column: write fallback=COLUMN (for example fallback=ip)", name)
	}
	if len(keep) == 0 {
		return name, ek, nil
	}
	return name + ":" + strings.Join(keep, ","), ek, nil
}

func parseEmptyKeyPolicy(v string) (EmptyKeyPolicy, bool) {
	for i, n := range emptyKeyNames {
		if strings.EqualFold(v, n) {
			return EmptyKeyPolicy(i), true
		}
	}
	return 0, false
}

// settle fills the family's default when the spec gave none: Kong's
// fallback without a column is the shared state (the lab does not know
// the client's address), as if every such request came from one client.
func (ek *emptyKey) settle(proto Limiter) {
	if !ek.given {
		ek.policy = DefaultEmptyKeyPolicy(proto)
	}
	if ek.policy == EmptyKeyShared || ek.policy == EmptyKeyFallback {
		ek.shift = 1
	}
}

// effective is the policy as it applies: fallback without a column is
// shared.
func (ek *emptyKey) effective() EmptyKeyPolicy {
	if ek.policy == EmptyKeyFallback && ek.fallback == "" {
		return EmptyKeyShared
	}
	return ek.policy
}

// specSuffix is what Spec appends: the rule when it was written.
func (ek *emptyKey) specSuffix() string {
	switch {
	case !ek.given:
		return ""
	case ek.fallback != "":
		return ",fallback=" + ek.fallback
	}
	return ",empty-key=" + ek.policy.String()
}

// tableID is the table id of a request whose key column holds id, and
// ok false when the request passes unaccounted (pass) or is refused
// (reject: pass is then false).
func (ek *emptyKey) tableID(id int32, r *Request) (tid int32, ok, pass bool) {
	if id >= 0 {
		return id + ek.shift, true, false
	}
	switch ek.effective() {
	case EmptyKeyPass:
		return 0, false, true
	case EmptyKeyReject:
		return 0, false, false
	case EmptyKeyFallback:
		if ek.fcol >= 0 {
			if f := r.Keys[ek.fcol]; f >= 0 {
				return f + 1, true, false
			}
		}
	}
	return 0, true, false // the shared state
}

// accountKey is the key id a request's results are accounted by: its
// key, or for the fallback rule the fallback column's (NoKey when none).
func (ek *emptyKey) accountKey(id int32, keys *[MaxKeyColumns]int32) int32 {
	if id < 0 && ek.policy == EmptyKeyFallback && ek.fcol >= 0 {
		return keys[ek.fcol]
	}
	return id
}

// KeyAccounter is a per-key limiter that charges a request without a key
// to another key (Kong's fallback to the client IP): AccountKey is the key
// id the request's per-key results go to, NoKey when none.
type KeyAccounter interface {
	AccountKey(keys *[MaxKeyColumns]int32) int32
}

// AccountKey implements KeyAccounter.
func (k *Keyed) AccountKey(keys *[MaxKeyColumns]int32) int32 {
	return k.empty.accountKey(keys[k.col], keys)
}

// decideEmpty is Keyed's decision of a request whose key is empty.
func (k *Keyed) decideEmpty(now time.Duration, r *Request) Decision {
	tid, ok, pass := k.empty.tableID(NoKey, r)
	if !ok {
		return Decision{Pass: pass}
	}
	return k.table.decide(tid, now, k.capacity, r)
}

// bindEmpty binds the fallback column, the last of idx when the spec has
// one, and returns the rest.
func (ek *emptyKey) bind(idx []int) []int {
	if ek.fallback == "" || len(idx) < 2 {
		return idx
	}
	ek.fcol = idx[len(idx)-1]
	return idx[:len(idx)-1]
}

// Warnings implements Warner: a Kong row keyed without fallback= counts
// every request without a key under one client, where Kong counts each
// under its own client IP.
func (k *Keyed) Warnings() []string {
	if k.empty.policy == EmptyKeyFallback && k.empty.fallback == "" {
		return []string{fmt.Sprintf("%s with key=%s: Kong counts a request without %s under its client IP (get_identifier); without fallback=COLUMN (for example fallback=ip) the lab counts all of them under one key", registryNameOf(k.inner), k.key, k.key)}
	}
	return nil
}

package lab

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// WriteList is `list`: the built-in scenarios, then the algorithms in
// one table per family of the registry, each under its blurb from
// familyBlurbs (the root --help's), then the notes on chains, costs, keys,
// --workers and replicas, wrapped to width.
func WriteList(out io.Writer, width int, familyBlurbs map[string]string) error {
	fmt.Fprintln(out, "Scenarios")
	var rows [][]string
	for _, s := range scenarios.Catalog() {
		rows = append(rows, []string{s.Name, fmt.Sprintf("%g/s", s.Limit), seconds(s.Duration), s.Description})
	}
	if err := report.WriteTextTable(out, []string{"name", "limit", "duration", "traffic"}, rows, width); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nAlgorithms (spec: NAME[:key=value,...]), by family")
	// One table per family, in the registry's order, under the family's
	// description from the root --help.
	byFamily := map[string][][]string{}
	for _, a := range Limiters() {
		var params []string
		for _, p := range a.Params {
			def := p.Default
			if def == "" {
				def = "limit"
			}
			kv := p.Key + "=" + def
			if len(p.Aliases) > 0 {
				kv += " (or " + strings.Join(p.Aliases, ", ") + ")"
			}
			params = append(params, kv)
		}
		name := a.Name
		if len(a.Aliases) > 0 {
			name += " (" + strings.Join(a.Aliases, ", ") + ")"
		}
		byFamily[a.Family] = append(byFamily[a.Family], []string{name, strings.Join(params, ","), a.Reference})
	}
	for _, f := range Families() {
		head := f
		if blurb := familyBlurbs[f]; blurb != "" {
			head += ": " + blurb
		}
		fmt.Fprintln(out)
		if err := report.WriteWrapped(out, head, width); err != nil {
			return err
		}
		if err := report.WriteTextTable(out, []string{"algorithm", "parameters (default)", "reference"}, byFamily[f], width); err != nil {
			return err
		}
	}
	fmt.Fprintln(out)
	note := "Chains: A+B+... asks each stage in turn, after the waits of the stages before it, " +
		"and passes only if all pass; at most one circuit-breaker, last (for example " +
		"leap-array+circuit-breaker:strategy=error-ratio,threshold=0.5)."
	if err := report.WriteWrapped(out, note, width); err != nil {
		return err
	}
	fmt.Fprintln(out)
	if err := report.WriteWrapped(out, costNote(Limiters()), width); err != nil {
		return err
	}
	fmt.Fprintln(out)
	keyed := "Per key: any single-key spec takes key=COLUMN (one limiter per key value of that column of the trace) " +
		"and capacity=N (an LRU of N keys; every request is an access; an evicted key starts fresh), for example " +
		"token-bucket:rate=5,key=ip,capacity=10000, also as a stage of a chain. Consecutive nginx-limit-req stages are several limit_req in one location. " +
		"A request whose key is empty meets its product's rule: passed unaccounted (nginx, Sentinel, Envoy, HAProxy, the lab's own kinds), " +
		"one shared state (Traefik, Bucket4j, resilience4j, the redis-* scripts), Kong's client IP (fallback=COLUMN), refused (redis-spring-gateway's deny-empty-key); " +
		"empty-key=pass|shared|reject or fallback=COLUMN sets it."
	if err := report.WriteWrapped(out, keyed, width); err != nil {
		return err
	}
	fmt.Fprintln(out)
	if err := report.WriteWrapped(out, shardNote(Limiters()), width); err != nil {
		return err
	}
	fmt.Fprintln(out)
	replicas := "Replicas: any per-process spec takes replicas=N (N copies behind a load balancer, as ingress-nginx pods, Envoy processes or Kong nodes " +
		"with the local policy each count on their own), balance=rr|random|hash or route=COLUMN (a trace column naming the replica), and " +
		"scale=AT:N+AT:N (replicas joining and leaving); summary.json gives each replica's counts and the effective limit (docs/algorithms.md, Replicas)."
	return report.WriteWrapped(out, replicas, width)
}

// costNote says which algorithms charge a trace's cost column (their
// Caps) and that the others count every request as 1.
func costNote(infos []Info) string {
	var yes, no []string
	for _, a := range infos {
		if a.Caps.Has(algorithms.CapCost) {
			yes = append(yes, a.Name)
		} else {
			no = append(no, a.Name)
		}
	}
	return "Costs: a trace's cost column is charged, as each reference takes a count, by " + strings.Join(yes, ", ") +
		" (per key or not, alone or as a stage of a chain A+B, each stage with the count as Sentinel's slot chain passes it to every slot)." +
		" The others count every request as 1 (docs/algorithms.md, Costs, says why for each): " +
		strings.Join(no, ", ") + "; a run whose trace has a cost column warns once for each such row, and once for each chain with such a stage, naming it."
}

// shardNote says which rows run --workers splits by key (their Caps).
func shardNote(infos []Info) string {
	var names []string
	for _, a := range infos {
		if a.Caps.Has(algorithms.CapShard) && a.Name != "nginx-limit-req" && a.Name != "sentinel-param" {
			names = append(names, strings.Replace(a.Name, "kong", "kong (without sync-rate)", 1))
		}
	}
	return "All cores: run --workers N (default: the CPUs) decides a per-key row by key on N goroutines, with the same files for every N, " +
		"when its keys are independent: " + strings.Join(names, ", ") + " with key=COLUMN and no capacity=; nginx-limit-req with one key and zone=0; " +
		"sentinel-param with capacity=unbounded and no items=. The others run on one worker."
}

// seconds prints a duration as "60s" rather than "1m0s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

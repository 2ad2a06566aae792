package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// ListOptions holds everything `list` needs.
type ListOptions struct {
	IO *IOStreams
}

// NewCmdList builds `list`. runF replaces the action in tests.
func NewCmdList(io *IOStreams, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: io}
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios and the algorithms with their parameters",
		Long: `List prints the built-in scenarios (name, limit, duration and what the
traffic is) and the algorithms, one table per family (windows, buckets,
gateways, ...), with their parameters, defaults and the reference each
reproduces. A parameter without a default takes the
scenario's limit (or --limit).`,
		Example: `  ratelimit-lab list`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
}

func listRun(_ context.Context, opts *ListOptions) error {
	io := opts.IO
	fmt.Fprintln(io.Out, "Scenarios")
	var rows [][]string
	for _, s := range scenarios.Catalog() {
		rows = append(rows, []string{s.Name, fmt.Sprintf("%g/s", s.Limit), seconds(s.Duration), s.Description})
	}
	if err := report.WriteTextTable(io.Out, []string{"name", "limit", "duration", "traffic"}, rows, io.Width); err != nil {
		return err
	}
	fmt.Fprintln(io.Out, "\nAlgorithms (spec: NAME[:key=value,...]), by family")
	// One table per family, in the registry's order, under the family's
	// description from the root --help.
	byFamily := map[string][][]string{}
	for _, a := range lab.Limiters() {
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
	for _, f := range lab.Families() {
		head := f
		if blurb := familyBlurbs[f]; blurb != "" {
			head += ": " + blurb
		}
		fmt.Fprintln(io.Out)
		if err := report.WriteWrapped(io.Out, head, io.Width); err != nil {
			return err
		}
		if err := report.WriteTextTable(io.Out, []string{"algorithm", "parameters (default)", "reference"}, byFamily[f], io.Width); err != nil {
			return err
		}
	}
	fmt.Fprintln(io.Out)
	note := "Chains: A+B+... asks each stage in turn, after the waits of the stages before it, " +
		"and passes only if all pass; at most one circuit-breaker, last (for example " +
		"leap-array+circuit-breaker:strategy=error-ratio,threshold=0.5)."
	if err := report.WriteWrapped(io.Out, note, io.Width); err != nil {
		return err
	}
	fmt.Fprintln(io.Out)
	if err := report.WriteWrapped(io.Out, costNote(lab.Limiters()), io.Width); err != nil {
		return err
	}
	fmt.Fprintln(io.Out)
	keyed := "Per key: any single-key spec takes key=COLUMN (one limiter per key value of that column of the trace) " +
		"and capacity=N (an LRU of N keys; every request is an access; an evicted key starts fresh), for example " +
		"token-bucket:rate=5,key=ip,capacity=10000, also as a stage of a chain. Consecutive nginx-limit-req stages are several limit_req in one location. " +
		"A request whose key is empty meets its product's rule: passed unaccounted (nginx, Sentinel, Envoy, HAProxy, the lab's own kinds), " +
		"one shared state (Traefik, Bucket4j, resilience4j, the redis-* scripts), Kong's client IP (fallback=COLUMN), refused (redis-spring-gateway's deny-empty-key); " +
		"empty-key=pass|shared|reject or fallback=COLUMN sets it."
	if err := report.WriteWrapped(io.Out, keyed, io.Width); err != nil {
		return err
	}
	fmt.Fprintln(io.Out)
	if err := report.WriteWrapped(io.Out, shardNote(lab.Limiters()), io.Width); err != nil {
		return err
	}
	fmt.Fprintln(io.Out)
	replicas := "Replicas: any per-process spec takes replicas=N (N copies behind a load balancer, as ingress-nginx pods, Envoy processes or Kong nodes " +
		"with the local policy each count on their own), balance=rr|random|hash or route=COLUMN (a trace column naming the replica), and " +
		"scale=AT:N+AT:N (replicas joining and leaving); summary.json gives each replica's counts and the effective limit (docs/algorithms.md, Replicas)."
	return report.WriteWrapped(io.Out, replicas, io.Width)
}

// costNote says which algorithms charge a trace's cost column (their
// Caps) and that the others count every request as 1.
func costNote(infos []lab.Info) string {
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
func shardNote(infos []lab.Info) string {
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

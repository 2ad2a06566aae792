package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

// addRulesFlags declares --rules and --rules-format, the flags of run and
// tune that import users' own rule files as rows.
func addRulesFlags(cmd *cobra.Command, o *lab.Rules) {
	f := cmd.Flags()
	f.StringArrayVar(&o.Files, "rules", nil, "a rules file (Sentinel JSON, sentinel-golang, nginx.conf, Ingress, Envoy, envoyproxy/ratelimit, Spring, Traefik, Kong, resilience4j), repeatable; each rule becomes a row ('rules explain' shows how)")
	f.StringVar(&o.Format, "rules-format", "auto", "the --rules files' format: auto (from the content) or "+strings.Join(rules.Formats, ", "))
}

// ExplainOptions holds everything `rules explain` needs.
type ExplainOptions struct {
	IO     *IOStreams
	Files  []string
	Format string
}

// NewCmdRules builds `rules` and its `explain` subcommand. runF replaces
// explain's action in tests.
func NewCmdRules(io *IOStreams, runF func(context.Context, *ExplainOptions) error) *cobra.Command {
	opts := &ExplainOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Show what the lab reads from your own rule files",
		Long: `Rules reads the rate-limiting rules you already run and says what each
becomes in the lab. The same files go to run and tune with --rules FILE.

Formats, detected from each document's structure (apiVersion and kind,
top-level keys, TOML tables), then its content (--rules-format to force
one); a ConfigMap's data keys are read as files, other Kubernetes kinds
are skipped with a note:
  sentinel         Sentinel (Java) rule JSON: FlowRule, DegradeRule,
                   ParamFlowRule, SystemRule, GatewayFlowRule, dashboard
                   entities; a list or {"flowRules": [...], ...}
  sentinel-go      sentinel-golang rules (flow, isolation, hotspot,
                   circuitbreaker, system), JSON or YAML, or its
                   datasource.sentinel.io CRDs
  nginx            nginx.conf: limit_req_zone, limit_req, limit_req_status,
                   limit_req_dry_run, include (relative to the file)
  ingress-nginx    Ingress annotations limit-rps, limit-rpm,
                   limit-burst-multiplier, limit-connections
  envoy-local      Envoy's local_ratelimit filter (token_bucket, descriptors,
                   filter_enabled/filter_enforced fractions)
  envoy-ratelimit  envoyproxy/ratelimit's configuration (domain, descriptors),
                   refused where the service refuses it
  spring           Spring Cloud Gateway application.yml (RequestRateLimiter)
  traefik          Traefik dynamic configuration, YAML or TOML (rateLimit
                   middlewares), or Middleware resources
  kong             Kong declarative or decK file (rate-limiting plugins at the
                   top level, under services, routes and consumers;
                   _plugin_configs)
  resilience4j     resilience4j.ratelimiter.instances (or limiters) in application.yml
                   (dotted and kebab-case keys too)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	explain := &cobra.Command{
		Use:   "explain FILE...",
		Short: "Print each rule, its outcome, the spec it becomes and every field it ignores",
		Long: `Explain prints, for every rule of each file, what the lab does with it:
its name (the resource, zone, location or route), where it is in the
file, its scope in the product (global, or a Kong service, route or
consumer), and its outcome. A translated rule shows the lab spec or chain
that makes the same decisions (copy it into --algo to edit it) and the
trace columns it reads; an inactive rule (the product accepts it but
limits nothing: a disabled Kong plugin, a Traefik average of 0) and a
rule the lab does not simulate (Kong's limit_by path) have no row and say
why. Every field the lab ignores or cannot honour is a note with the
reason; "not simulated:" notes are repeated in run's notes.`,
		Example: `  ratelimit-lab rules explain sentinel-flow-rules.json
  ratelimit-lab rules explain examples/rules/nginx.conf examples/rules/kong.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return explainRun(cmd.Context(), opts)
		},
	}
	explain.Flags().StringVar(&opts.Format, "rules-format", "auto", "the files' format: auto or "+strings.Join(rules.Formats, ", "))
	cmd.AddCommand(explain, NewCmdRulesLint(io, nil))
	return cmd
}

func explainRun(_ context.Context, opts *ExplainOptions) error {
	io := opts.IO
	// Every file is read and checked before anything is printed: a bad
	// file leaves no half-written explanation.
	all := make([][]rules.Rule, len(opts.Files))
	frags := make([]*rules.FragmentError, len(opts.Files))
	for i, f := range opts.Files {
		rs, err := lab.LoadRules(f, opts.Format)
		var frag *rules.FragmentError
		if errors.As(err, &frag) {
			// An nginx include fragment (limit_req_zone lines alone):
			// its zones, and which file to give instead.
			frags[i] = frag
			continue
		}
		if err != nil {
			return err
		}
		all[i] = rs
	}
	for i, f := range opts.Files {
		if i > 0 {
			fmt.Fprintln(io.Out)
		}
		var err error
		if frags[i] != nil {
			err = rules.WriteFragment(io.Out, frags[i])
		} else {
			err = rules.WriteExplain(io.Out, f, all[i], io.Width)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

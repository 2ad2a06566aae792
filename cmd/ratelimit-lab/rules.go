package main

import (
	"context"
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
	f.StringArrayVar(&o.Files, "rules", nil, "a rules file or directory (Sentinel JSON, sentinel-golang, nginx.conf, Ingress, Envoy, envoyproxy/ratelimit, Spring, Traefik, Kong, resilience4j), repeatable; each rule becomes a row ('rules explain' shows how); nginx files given together are one configuration")
	f.StringVar(&o.Format, "rules-format", "auto", "the --rules files' format: auto (from the content) or "+strings.Join(rules.Formats, ", "))
	f.StringVar(&o.NginxPrefix, "nginx-prefix", "", nginxPrefixHelp)
}

// nginxPrefixHelp is --nginx-prefix's help, for run, tune and rules explain.
const nginxPrefixHelp = "the copy of the server's nginx directory (/etc/nginx) that nginx.conf's includes are read from: relative names and absolute ones under /etc/nginx (default: beside the main nginx.conf, then as named)"

// ExplainOptions holds everything `rules explain` needs.
type ExplainOptions struct {
	IO          *IOStreams
	Files       []string
	Format      string
	NginxPrefix string
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
  nginx            nginx.conf: limit_req_zone, limit_req, limit_conn_zone,
                   limit_conn, their _status and _dry_run, include (globs;
                   --nginx-prefix for /etc/nginx paths); nginx files given
                   together (or a directory) are one configuration
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
		Use:   "explain FILE|DIR...",
		Short: "Print each rule, its outcome, the spec it becomes and every field it ignores",
		Long: `Explain prints, for every rule of each file, what the lab does with it:
its name (the resource, zone, location or route), where it is in the
file, its scope in the product (global, or a Kong service, route or
consumer), and its outcome. A translated rule shows the lab spec or chain
that makes the same decisions (copy it into --algo to edit it) and the
trace columns it reads; an inactive rule (the product accepts it but
limits nothing: a disabled Kong plugin, a Traefik average of 0) and a
rule the lab does not simulate (Kong's limit_by path, nginx's limit_conn
in a stream block) have no row and say why. Every field the lab ignores
or cannot honour is a note with the reason; "not simulated:" notes are
repeated in run's notes.

A directory stands for its files, sorted; in one with an nginx.conf, that
file (with what it includes) and the other files whose content is rules.
The nginx files given together are read as one configuration, as if the
one with the http block included the others.`,
		Example: `  ratelimit-lab rules explain sentinel-flow-rules.json
  ratelimit-lab rules explain examples/rules/nginx.conf examples/rules/kong.yaml
  ratelimit-lab rules explain examples/nginx --nginx-prefix examples/nginx`,
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
	explain.Flags().StringVar(&opts.NginxPrefix, "nginx-prefix", "", nginxPrefixHelp)
	cmd.AddCommand(explain, NewCmdRulesLint(io, nil), newCmdRulesEmit(io))
	return cmd
}

func explainRun(_ context.Context, opts *ExplainOptions) error {
	io := opts.IO
	// Every file is read and checked before anything is printed: a bad
	// file leaves no half-written explanation. The nginx files combine
	// into one configuration (lab.LoadRuleSets); an nginx include
	// fragment (limit_req_zone lines alone) prints its zones and which
	// file to give instead.
	sets, err := lab.LoadRuleSets(opts.Files, opts.Format, opts.NginxPrefix)
	if err != nil {
		return err
	}
	for i, s := range sets {
		if i > 0 {
			fmt.Fprintln(io.Out)
		}
		var err error
		if s.Fragment != nil {
			err = rules.WriteFragment(io.Out, s.Fragment)
		} else {
			err = rules.WriteExplain(io.Out, s.Name, s.Rules, io.Width)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// newCmdRulesEmit builds `rules emit`: a spec in a product's own syntax.
func newCmdRulesEmit(io *IOStreams) *cobra.Command {
	var format, algo, name string
	help := "Emit writes SPEC in FORMAT's own syntax, complete enough to paste. The file\nis read back by the lab's reader of that format first: a spec the format\ncannot hold exactly is refused, naming why and the formats that can.\n\nFormats and the specs each holds:\n"
	for _, f := range rules.EmitFormats() {
		help += fmt.Sprintf("  %-16s %s\n  %-16s   %s\n", f.Name, f.Product, "", strings.ReplaceAll(f.Families, "\n", "\n                  "))
	}
	cmd := &cobra.Command{
		Use:     "emit --format FORMAT --algo SPEC",
		Short:   "Write a lab spec as nginx, Sentinel, Envoy, Spring, Traefik, Kong or resilience4j configuration",
		Long:    help,
		Example: "  ratelimit-lab rules emit --format nginx --algo nginx-limit-req:rate=10r/s,burst=20,nodelay=true,key=ip --name api\n  ratelimit-lab rules emit --format sentinel --algo leap-array:limit=100 --name GET:/orders",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return rules.Emit(io.Out, format, algo, name) },
	}
	cmd.Flags().StringVar(&format, "format", "", "the product's format: "+strings.Join(rules.EmitFormatNames(), ", "))
	cmd.Flags().StringVar(&algo, "algo", "", "the lab spec to write (a row's spec from run or tune)")
	cmd.Flags().StringVar(&name, "name", "limit", "the rule's name: the resource, zone, route or middleware")
	_, _ = cmd.MarkFlagRequired("format"), cmd.MarkFlagRequired("algo")
	return cmd
}

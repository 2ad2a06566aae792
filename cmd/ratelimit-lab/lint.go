package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

// LintOptions holds everything `rules lint` needs.
type LintOptions struct {
	IO         *IOStreams
	Files      []string
	Format     string
	FailOnLint bool
}

// NewCmdRulesLint builds `rules lint`. runF replaces its action in tests.
func NewCmdRulesLint(io *IOStreams, runF func(context.Context, *LintOptions) error) *cobra.Command {
	opts := &LintOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Flag the known traps of your rule files, each with the product's words, a replay and the fix",
		Long: `Lint reads each rule as its product applies it (ingress annotations
expanded into the limit_req they generate, defaults made explicit) and
flags the traps the products' maintainers explain again and again:
  ingress-burst         ingress-nginx's burst = limit × limit-burst-multiplier
                        (5 unless set), with nodelay
  traefik-burst-1       Traefik's burst 1 with a period over a second: one
                        request per period/average, no two close together
  spring-burst-zero     Spring Cloud Gateway's burstCapacity 0 denies every
                        request
  sentinel-ms-rounding  Sentinel's warm-up rate limiter above 1000 QPS: its
                        spacing rounds to whole milliseconds (1 ms, or 0)
  slow-ratio-1          a slow-call ratio of 1.0 opens only when every call
                        of the interval is slow
Each trap prints the rule's file:line, the behaviour in the product's own
words, what it does to this rule's numbers, a command and a trace of a
few lines (save them as demo.csv) that replay it, and the fix.

--fail-on-lint exits with status 3 when any trap is found, for CI.`,
		Example: `  ratelimit-lab rules lint examples/rules/ingress.yaml
  ratelimit-lab rules lint --fail-on-lint examples/rules/traefik-dynamic.yml examples/rules/sentinel-flow-rules.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return lintRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "rules-format", "auto", "the files' format: auto or "+strings.Join(rules.Formats, ", "))
	cmd.Flags().BoolVar(&opts.FailOnLint, "fail-on-lint", false, "exit with status 3 when a trap is found")
	return cmd
}

func lintRun(_ context.Context, opts *LintOptions) error {
	// Every file is read before anything is printed.
	all := make([][]rules.Lint, len(opts.Files))
	for i, f := range opts.Files {
		// rules.Load, not lab.LoadRules: a trap is worth saying even in
		// a rule the lab cannot build (Spring's burstCapacity 0).
		rs, err := rules.Load(f, opts.Format)
		if err != nil {
			return err
		}
		all[i] = rules.LintRules(rs)
	}
	n := 0
	for i, f := range opts.Files {
		if i > 0 {
			fmt.Fprintln(opts.IO.Out)
		}
		if err := rules.WriteLints(opts.IO.Out, f, all[i]); err != nil {
			return err
		}
		n += len(all[i])
	}
	if opts.FailOnLint && n > 0 {
		return &exitError{code: exitThreshold, msg: fmt.Sprintf("%d trap(s) found (--fail-on-lint); fix them or drop --fail-on-lint", n)}
	}
	return nil
}

package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// WhyOptions holds everything `why` needs.
type WhyOptions struct {
	IO     *IOStreams
	Lab    lab.Options
	Select lab.WhySelect
	Format string
}

// whyExplained lists the limiters why explains, as lab.WhyLimiters
// finds them (TestWhyHelpListsExplainers holds the two equal); written
// out so that starting the command builds no limiter.
const whyExplained = "leap-array, token-bucket, leaky-bucket, guava-bursty, guava-warming-up,\nenvoy-local, traefik, haproxy, resilience4j, nginx-limit-req"

// NewCmdWhy builds `why`. runF replaces its action in tests.
func NewCmdWhy(io *IOStreams, runF func(context.Context, *WhyOptions) error) *cobra.Command {
	opts := &WhyOptions{IO: io, Lab: lab.DefaultOptions(), Format: "text"}
	opts.Lab.Source.In = io.In
	cmd := &cobra.Command{
		Use:   "why [SCENARIO | FILE.yaml] --seq N | --key-value VALUE | --from T --to T [flags]",
		Short: "Show why each limiter passed or rejected chosen requests",
		Long: `Why replays a run, one request at a time, and for the chosen requests
prints, per limiter: the rule in the reference's own terms, the state the
request read (tokens and their time, the window's buckets, a key's excess,
the cycle's permissions), the reference's arithmetic with its roundings and
truncations, the verdict, and the state it left.

It is a command of its own rather than a flag of run: it writes no file and
replays one request at a time, asking each limiter to explain itself just
before and just after the chosen decisions, so a plain run never pays for it.
The limiters are the run's own, so the decisions are exactly the run's
(decisions.csv of run --decisions has the same sequence numbers: 0 is the
first arrival). A line "note:" says where a limiter decided otherwise than
its explanation's arithmetic.

Choose the requests with --seq N (repeatable), --key-value VALUE (any key
column) and --from/--to (the limiters' clock); given together, a request
must match all. --max caps the requests shown per limiter.

Explained: ` + whyExplained + `.
Chains, breakers, adaptive limiters, a downstream or a trace's responses
(all run on the simulator's event queue), specs with key= and the redis-*
family are refused with one line.

--format json prints the same as one JSON object (t_ns and wait_ns in
nanoseconds).`,
		Example: `  ratelimit-lab why --trace examples/questions/nginx-6000rm.csv --algo 'nginx-limit-req:rate=6000r/m,key=*' --seq 1 --seq 2
  ratelimit-lab why boundary-burst --algo leap-array --from 1s --to 1.001s --max 3
  ratelimit-lab why --trace examples/questions/haproxy-denied.csv --algo haproxy:limit=1,period=1s --format json --seq 3`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sourceFromFlags(&opts.Lab.Source, cmd, args)
			opts.Select.Range = cmd.Flags().Changed("from") || cmd.Flags().Changed("to")
			if opts.Select.Range && !cmd.Flags().Changed("to") {
				opts.Select.To = 1<<63 - 1
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runWhy(cmd.Context(), opts)
		},
	}
	o := &opts.Lab
	addSourceFlags(cmd, &o.Source)
	f := cmd.Flags()
	f.StringArrayVar(&o.Specs, "algo", nil, "limiter spec NAME[:key=v,...], repeatable; replaces the scenario's")
	_ = cmd.RegisterFlagCompletionFunc("algo", completeAlgo)
	cmd.ValidArgsFunction = completeScenario
	addRulesFlags(cmd, &o.Rules)
	f.Int64SliceVar(&opts.Select.Seqs, "seq", nil, "explain the request with this sequence number (0 is the first arrival, as in decisions.csv); repeatable")
	f.StringVar(&opts.Select.Key, "key-value", "", "explain the requests whose key (in any key column) is this value")
	f.DurationVar(&opts.Select.From, "from", 0, "explain the requests at or after this time of the limiters' clock")
	f.DurationVar(&opts.Select.To, "to", 0, "explain the requests before this time of the limiters' clock")
	f.IntVar(&opts.Select.Max, "max", 20, "show at most this many requests per limiter")
	f.StringVar(&opts.Format, "format", "text", "text or json")
	return cmd
}

func runWhy(ctx context.Context, opts *WhyOptions) error {
	if opts.Format != "text" && opts.Format != "json" {
		return fmt.Errorf("--format %q is unknown; use text or json", opts.Format)
	}
	rep, err := lab.Why(ctx, opts.Lab, opts.Select)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		return rep.WriteJSON(opts.IO.Out)
	}
	return rep.WriteText(opts.IO.Out)
}

package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
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
	return lab.WriteList(opts.IO.Out, opts.IO.Width, familyBlurbs)
}

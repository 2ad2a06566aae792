package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// addLayersFlag adds tune's --layers.
func addLayersFlag(cmd *cobra.Command, opts *TuneOptions) {
	cmd.Flags().BoolVar(&opts.Layers, "layers", false,
		"compare the layered window (hierarchical) with the uniform ring and the sliding-window counter over --window at equal memory; --sample-counts are then the fine-bucket counts n (default "+
			strings.Trim(strings.ReplaceAll(fmt.Sprint(lab.DefaultLayerBudgets), " ", ","), "[]")+")")
}

// layersDefaults puts the layer budgets in place of the sample counts when
// --layers is given without --sample-counts.
func layersDefaults(cmd *cobra.Command, opts *TuneOptions) {
	if opts.Layers && !cmd.Flags().Changed("sample-counts") {
		opts.Lab.SampleCounts = lab.DefaultLayerBudgets
	}
}

func tuneLayersRun(ctx context.Context, opts *TuneOptions) error {
	plan, err := lab.NewLayersTunePlan(ctx, opts.Lab, opts.IO.ErrOut, opts.IO.Width)
	if err != nil {
		return err
	}
	defer plan.Close()
	bar := newProgress(opts.IO, opts.Quiet, plan.Expected(), plan.Approx())
	tune, err := plan.Execute(ctx, lab.Hooks{Notes: opts.IO.ErrOut, Width: opts.IO.Width, Progress: bar.Update, Finished: bar.Finish})
	if err != nil {
		return err
	}
	return tune.Print(opts.IO.Out, opts.IO.Width)
}

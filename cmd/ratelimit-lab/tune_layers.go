package main

import (
	"context"
	"fmt"
	"path/filepath"
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
	if len(opts.Lab.Rules.Files) > 0 {
		return fmt.Errorf("--layers compares window specs on the source's limit; drop --rules (or --layers)")
	}
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
	if err := tune.WriteSummary(opts.IO.Out, opts.IO.Width); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %s/{%s}\n", filepath.ToSlash(tune.Dir), strings.Join(tune.Files, ","))
	return tune.WriteTarget(opts.IO.Out, opts.IO.Width)
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/internal/output"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// ReportOptions holds everything `report` needs.
type ReportOptions struct {
	IO   *IOStreams
	Dirs []string
	Out  string
}

// NewCmdReport builds `report`. runF replaces the action in tests.
func NewCmdReport(io *IOStreams, runF func(context.Context, *ReportOptions) error) *cobra.Command {
	opts := &ReportOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "report DIR... [--out FILE]",
		Short: "Put the output directories of several runs on one HTML page",
		Long: `Report reads the output directories of run (summary.json, series.csv and
breaker.csv), tune (tune.csv) and bench (bench.csv) and writes one
self-contained HTML page with all of them: each run's summary table and
interactive time charts, each tune's and bench's table and two charts.
Runs over the same span share one time axis: a zoom or a pan moves them
together. The page opens from disk and makes no network request.

Every run already writes its own report.html beside chart.png; report is
for comparing several.`,
		Example: `  ratelimit-lab run boundary-burst --out out/a --algo leap-array:sample-count=2
  ratelimit-lab run boundary-burst --out out/b --algo leap-array:sample-count=20
  ratelimit-lab report out/a out/b --out out/compare.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("report needs at least one output directory, for example 'ratelimit-lab report out/boundary-burst' (see '%s --help')", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dirs = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return reportRun(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Out, "out", "o", filepath.Join("out", "report.html"), "the HTML file to write")
	return cmd
}

func reportRun(opts *ReportOptions) error {
	if opts.Out == "" {
		return errors.New("--out is empty: give the HTML file to write, for example --out out/report.html")
	}
	if st, err := os.Stat(opts.Out); err == nil && st.IsDir() {
		return fmt.Errorf("--out %s is a directory; give the HTML file to write, for example --out %s", opts.Out, filepath.ToSlash(filepath.Join(opts.Out, "report.html")))
	}
	write, err := lab.ReportPage(opts.Dirs)
	if err != nil {
		return err
	}
	dir, err := output.OpenParent(opts.Out)
	if err != nil {
		return err
	}
	defer dir.Abort()
	if err := dir.WriteFile(filepath.Base(opts.Out), write); err != nil {
		return err
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %s\n", filepath.ToSlash(opts.Out))
	return nil
}

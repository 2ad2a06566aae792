package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/ratelimit-lab/ratelimit-lab/internal/suggest"
)

// IOStreams is where a command reads and writes, so tests can fake it.
type IOStreams struct {
	Out, ErrOut io.Writer
	// ErrTTY reports whether ErrOut is a terminal (progress bars go there).
	ErrTTY bool
}

func systemIO() *IOStreams {
	return &IOStreams{Out: os.Stdout, ErrOut: os.Stderr, ErrTTY: term.IsTerminal(int(os.Stderr.Fd()))}
}

// version is set with -ldflags "-X main.version=v1.2.3"; otherwise it comes
// from the module's build information.
var version = ""

func versionString() string {
	v := version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	return "ratelimit-lab " + v + " " + runtime.Version()
}

func newRootCmd(io *IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "ratelimit-lab",
		Short: "Replay traffic through rate limiters on a virtual clock",
		Long: `ratelimit-lab replays traffic through rate-limiting algorithms on a virtual
clock and shows, 50 ms by 50 ms, what each one lets through: a fixed window,
Sentinel's LeapArray sliding window, a sliding log, a token bucket
(golang.org/x/time/rate), Sentinel's throttling (leaky bucket) and its two
warm-up controllers. For the same arrival times each limiter makes exactly
the decisions its reference makes.`,
		Example: `  ratelimit-lab run boundary-burst
  ratelimit-lab run poisson --limit 1000 --algo leap-array:sample-count=10 --algo sliding-log
  ratelimit-lab run --trace access.csv --limit 200
  ratelimit-lab tune poisson
  ratelimit-lab list`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		NewCmdRun(io, nil),
		NewCmdTune(io, nil),
		NewCmdBench(io, nil),
		NewCmdList(io),
		&cobra.Command{
			Use:   "version",
			Short: "Print the version and the Go version",
			Args:  cobra.NoArgs,
			Run: func(cmd *cobra.Command, _ []string) {
				cmd.Println(versionString())
			},
		},
	)
	return root
}

// flagError adds the nearest flag name and where to read about the flags
// to pflag's "unknown flag: --limt".
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		msg += suggest.DidYouMean(name, names)
	}
	return fmt.Errorf("%s (see '%s --help')", msg, cmd.CommandPath())
}

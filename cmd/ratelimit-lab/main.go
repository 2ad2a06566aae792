// Command ratelimit-lab replays traffic through rate-limiting algorithms on
// a virtual clock and shows, bin by bin, what each one lets through.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

func main() {
	// SIGINT and SIGTERM cancel the context: the run stops at its next
	// check (every batch of arrivals, every chart panel, every chunk
	// written), removes its temporary files and leaves the earlier run's
	// files as they were; the exit status is 128 + the signal number.
	intCtx, stopInt := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stopInt()
	ctx, stopTerm := signal.NotifyContext(intCtx, syscall.SIGTERM)
	defer stopTerm()
	if code := runMain(intCtx, ctx, systemIO(), os.Args[1:]); code != 0 {
		stopTerm()
		stopInt()
		os.Exit(code)
	}
}

// runMain runs the command tree on args and returns the exit status: 0,
// or the status of an error whose one line it prints on io.ErrOut. intCtx
// ends on SIGINT, ctx on SIGINT or SIGTERM.
func runMain(intCtx, ctx context.Context, io *IOStreams, args []string) int {
	root := newRootCmd(io)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	code := 1
	switch {
	case intCtx.Err() != nil:
		err, code = errors.New("interrupted (SIGINT): stopped and removed the unfinished files; the earlier run's files are untouched"), 130
	case ctx.Err() != nil:
		err, code = errors.New("terminated (SIGTERM): stopped and removed the unfinished files; the earlier run's files are untouched"), 143
	}
	fmt.Fprintln(io.ErrOut, "ratelimit-lab: "+lab.OneLine(err.Error()))
	var ee *exitError
	var te *lab.ThresholdError
	var ue *lab.UndefinedError
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case errors.As(err, &te):
		code = exitThreshold
	case errors.As(err, &ue):
		code = exitUndefined
	}
	return code
}

// Command ratelimit-lab replays traffic through rate-limiting algorithms on
// a virtual clock and shows, bin by bin, what each one lets through.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
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
	io := systemIO()
	if err := newRootCmd(io).ExecuteContext(ctx); err != nil {
		code := 1
		switch {
		case intCtx.Err() != nil:
			err, code = errors.New("interrupted (SIGINT): stopped and removed the unfinished files; the earlier run's files are untouched"), 130
		case ctx.Err() != nil:
			err, code = errors.New("terminated (SIGTERM): stopped and removed the unfinished files; the earlier run's files are untouched"), 143
		}
		fmt.Fprintln(io.ErrOut, "ratelimit-lab: "+oneLine(err.Error()))
		stopTerm()
		stopInt()
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		os.Exit(code)
	}
}

// oneLine folds a multi-line message onto one line, separating the lines
// with "; " unless a line already ends in punctuation.
func oneLine(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if b.Len() > 0 {
			if prev := b.String(); !strings.ContainsAny(prev[len(prev)-1:], ".:;?!") {
				b.WriteString(";")
			}
			b.WriteString(" ")
		}
		b.WriteString(line)
	}
	return b.String()
}

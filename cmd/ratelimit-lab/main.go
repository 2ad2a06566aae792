// Command ratelimit-lab replays traffic through rate-limiting algorithms on
// a virtual clock and shows, bin by bin, what each one lets through.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	io := systemIO()
	if err := newRootCmd(io).ExecuteContext(ctx); err != nil {
		fmt.Fprintln(io.ErrOut, "ratelimit-lab: "+oneLine(err.Error()))
		stop()
		os.Exit(1)
	}
}

// oneLine folds a multi-line message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

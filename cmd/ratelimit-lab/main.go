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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	io := systemIO()
	if err := newRootCmd(io).ExecuteContext(ctx); err != nil {
		fmt.Fprintln(io.ErrOut, "ratelimit-lab: "+oneLine(err.Error()))
		stop()
		code := 1
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

// Command ratelimit-lab-beam replays a trace or an access log through rate
// limiters on Apache Beam, and writes the series.csv, keys.csv and
// summary.json that `ratelimit-lab run` writes for the same flags.
//
// Its flags are a subset of run's (--trace, --trace-format, --key,
// --user, --time-field, --algo, --limit, --bin, --window, --out), with
// --shards, and Beam's own (--runner, --endpoint, --environment_type,
// --worker_binary, --project, --region, --staging_location, ...): the
// runner is Prism, in-process, unless --runner says otherwise. See
// docs/scale.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	beamlab "github.com/ratelimit-lab/ratelimit-lab/beam"
)

// list is a repeatable flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, " ") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

// keys is --key: comma-separated, repeatable.
type keys []string

func (k *keys) String() string { return strings.Join(*k, ",") }
func (k *keys) Set(v string) error {
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*k = append(*k, f)
		}
	}
	return nil
}

// flags registers the program's flags on fs, beside Beam's (runner,
// endpoint, project, ... live on the global flag set, and the flag package
// panics on a clash, so a clash cannot go unseen: see main_test.go).
func flags(fs *flag.FlagSet) (c *beamlab.Config, logLevel *string) {
	c = new(beamlab.Config)
	*c = beamlab.DefaultConfig()
	fs.StringVar(&c.Trace, "trace", "", "the CSV trace (header t_ms[,key,...]) or access log to replay, gzipped or not: a local path or a Beam filesystem path (gs://...)")
	fs.StringVar(&c.TraceFormat, "trace-format", "auto", "--trace's format, as run's --trace-format")
	fs.Var((*keys)(&c.Keys), "key", "access log field(s) that key each request, as run's --key")
	fs.StringVar(&c.User, "user", "", "access log field naming the user behind a key, as run's --user")
	fs.StringVar(&c.TimeField, "time-field", "", "jsonl: the field holding the time, as run's --time-field")
	fs.Var((*list)(&c.Specs), "algo", "limiter spec NAME[:key=v,...], repeatable, as run's --algo")
	fs.Float64Var(&c.Limit, "limit", 0, "the requests per second of the specs that give none, as run's --limit")
	fs.DurationVar(&c.Bin, "bin", c.Bin, "width of a series bin")
	fs.DurationVar(&c.Window, "window", c.Window, "sliding window behind max_window_passed")
	fs.StringVar(&c.Out, "out", "", "output directory: a local path or a Beam filesystem path (gs://...)")
	fs.IntVar(&c.Shards, "shards", c.Shards, "shards a per-key row is split into, by key")
	logLevel = fs.String("beam-log-level", "error", "Beam's log level: debug, info, warn or error")
	return c, logLevel
}

func main() {
	c, logLevel := flags(flag.CommandLine)
	flag.Parse()
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "limit" {
			c.LimitSet = true
		}
	})
	if flag.NArg() > 0 {
		fail(fmt.Errorf("unexpected argument %q: every input is a flag (--trace FILE --algo SPEC --out DIR)", flag.Arg(0)))
	}
	switch *logLevel {
	case "debug", "info", "warn", "error":
	default:
		fail(fmt.Errorf("--beam-log-level %q is unknown; use debug, info, warn or error", *logLevel))
	}
	// Beam reads its log level once, in beam.Init.
	beamlog.LogLevel = *logLevel
	beam.Init()

	ctx := context.Background()
	notes, err := beamlab.Check(ctx, *c)
	if err != nil {
		fail(err)
	}
	for _, n := range notes {
		fmt.Fprintln(os.Stderr, "note:", n)
	}
	p, s := beam.NewPipelineWithRoot()
	beamlab.Build(s, *c)
	if err := beamx.Run(ctx, p); err != nil {
		fail(fmt.Errorf("the pipeline failed: %w", err))
	}
	fmt.Fprintf(os.Stderr, "wrote series.csv, summary.json and, when a row is per key, keys.csv to %s\n", c.Out)
}

// fail prints err on one line and exits 1.
func fail(err error) {
	fmt.Fprintln(os.Stderr, "ratelimit-lab-beam:", strings.Join(strings.Fields(err.Error()), " "))
	os.Exit(1)
}

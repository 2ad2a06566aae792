package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// addSourceFlags declares the flags shared by run and tune that choose the
// arrivals: a catalog scenario, a YAML file or a trace, and overrides.
func addSourceFlags(cmd *cobra.Command, o *lab.Source) {
	f := cmd.Flags()
	f.StringVar(&o.Trace, "trace", "", "replay a CSV trace (header t_ms[,key,...]) or an access log, gzipped or not; - is stdin")
	f.StringVar(&o.TraceFormat, "trace-format", scenarios.FormatAuto, "--trace's format: "+strings.Join(scenarios.TraceFormats, ", ")+" (auto: by its first 200 lines)")
	f.StringSliceVar(&o.Keys, "key", nil, "access log field(s) that key each request (combined/common: ip, user, method, path, status, vhost, agent, referer; jsonl: any field, a dotted path for a nested one); the first is also the column key")
	f.StringVar(&o.User, "user", "", "access log field naming the user behind a key (fills the users_hurt figures)")
	f.StringVar(&o.TimeField, "time-field", "", "jsonl: the field holding the time, a dotted path for a nested one (default: a start field StartUTC, start_time, StartLocal, else the most precise of time, timestamp, ts, @timestamp, msec, ...)")
	f.StringVar(&o.BadLines, "bad-lines", scenarios.BadLinesFail, "access log lines that do not parse: fail (default: stop, naming the line, so a run never silently replays less than the log) or skip (skipped, counted and named in the notes and summary.json)")
	f.BoolVar(&o.Sort, "sort", false, "replay an access log's lines in time order (equal times in line order) through a bounded external sort; without it a line earlier than the one before is an error")
	f.StringVar(&o.Time, "time", scenarios.TimeEnd, "access log times: end (what the log wrote; nginx writes $time_local when a request ends) or start (that time minus $request_time: the last field of a text line, request_time or duration in JSON; implies --sort)")
	f.Float64Var(&o.Limit, "limit", 0, "replace the scenario's limit in req/s; its traffic scales with it")
	f.DurationVar(&o.Duration, "duration", 0, "replace the scenario's duration (not with --trace)")
	f.Uint64Var(&o.Seed, "seed", 0, "replace the scenario's random seed (not with --trace)")
}

// sourceFromFlags takes the scenario argument and which overrides were
// given.
func sourceFromFlags(o *lab.Source, cmd *cobra.Command, args []string) {
	if len(args) > 0 {
		o.Scenario = args[0]
	}
	o.LimitSet = cmd.Flags().Changed("limit")
	o.DurationSet = cmd.Flags().Changed("duration")
	o.SeedSet = cmd.Flags().Changed("seed")
}

// Package lab replays traffic through rate limiters on a virtual clock: it
// is what the ratelimit-lab command does, as a library.
//
// A run goes through three steps:
//
//  1. Plan. NewPlan resolves a Source (a catalog scenario, a YAML
//     scenario file, a scenario built in Go, a CSV trace or an access
//     log), the limiter specs and the rules files (Rules) into a Plan:
//     every input is read and checked, every limiter built, before
//     anything runs or is written; its errors are the command's one-line
//     messages.
//  2. Replay. Plan.Replay feeds the arrivals to every limiter on the
//     virtual clock (binding per-key limiters to the trace's key columns,
//     the redis-* ones to one Redis session) and returns a Result. It
//     stops when its context ends, and reports its progress through
//     Hooks.Progress.
//  3. Render. Plan.Execute replays and writes every file of a run into
//     an output directory (series.csv, summary.json, breaker.csv,
//     keys.csv, chart.png, report.html, decisions.csv): the files appear
//     only when the whole run succeeds. Run.WriteSummary prints the
//     summary (a table fitted to a width, JSON, CSV or Markdown) to an
//     io.Writer.
//
// Tune does the same for Sentinel's leap-array at several sample counts
// (NewTunePlan, TunePlan.Execute), and Bench for the concurrent limiters
// on the wall clock. Nothing in the package is global: every setting is
// in an options struct.
package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
	"github.com/ratelimit-lab/ratelimit-lab/rules"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Defaults of a run.
const (
	DefaultBin    = simulator.DefaultBin
	DefaultWindow = simulator.DefaultWindow
)

// Options say what a run replays and how. Start from DefaultOptions: a
// zero Bin, Window or Format is an error, as the command's flags are.
type Options struct {
	Source Source
	// Specs are the limiters (NAME[:key=v,...], chains A+B); empty: the
	// scenario's own.
	Specs []string
	// Rules are rules files whose rules become rows after Specs.
	Rules Rules
	// Bin is the width of a series bin, Window the sliding window behind
	// max_window_passed.
	Bin, Window time.Duration
	// Out is the output directory (default out/<scenario or trace name>).
	Out string
	// Decisions also writes decisions.csv.
	Decisions bool
	// Chart is chart.png's layout: panels (""), overlay or none; From and
	// To zoom it.
	Chart    string
	From, To time.Duration
	// ToSet says --to was given, so that --to 0s (zero, the flag's
	// default) is refused as an empty zoom instead of meaning "no --to".
	ToSet bool
	// HTML writes report.html.
	HTML bool
	// FailIf are thresholds ([NAME.]FIELD OP NUMBER) that Run.Crossed
	// checks.
	FailIf []string
	// Redis is where the redis-* limiters keep their state.
	Redis Redis
	// Format is the summary's form: table, json, csv or md; Top is
	// how many keys by rejections the table lists for a per-key limiter.
	Format string
	Top    int
	// Workers is how many goroutines decide a per-key row whose keys are
	// independent (0 or 1: one); the files are the same for every value.
	// SayWorkers adds a note naming the rows decided on one worker.
	Workers    int
	SayWorkers bool
}

// DefaultOptions are the command's defaults: bins of DefaultBin, a
// DefaultWindow window, a chart in panels, report.html, a table summary
// listing the top 10 keys, the embedded Redis.
func DefaultOptions() Options {
	return Options{Bin: DefaultBin, Window: DefaultWindow, Chart: plots.ModePanels, HTML: true,
		Format: "table", Top: 10, Redis: Redis{Timeout: DefaultRedisTimeout}}
}

// Plan is a validated run, ready to replay. Close releases it.
type Plan struct {
	opts       Options
	src        *source
	limiters   []algorithms.Limiter
	cfg        simulator.Config
	out        string
	rs         *redisSession
	render     func(io.Writer, *report.Report) error
	thresholds []report.Threshold
	labels     []string
	ruleNotes  []string // rules without a row, fields not simulated
	chart      plots.ChartOptions
}

// NewPlan checks every option and input, in the order the command always
// has (so the first error is the same), and builds the limiters.
func NewPlan(ctx context.Context, opts Options) (_ *Plan, err error) {
	render, ok := report.Formats[opts.Format]
	if !ok {
		return nil, fmt.Errorf("--format %q is unknown; use one of %s", opts.Format, strings.Join(report.FormatNames, ", "))
	}
	if opts.Top < 0 {
		return nil, fmt.Errorf("--top must be 0 or more, got %d (0 lists no keys; for example --top 10)", opts.Top)
	}
	if err := checkWorkers(opts.Workers); err != nil {
		return nil, err
	}
	thresholds := make([]report.Threshold, len(opts.FailIf))
	for i, s := range opts.FailIf {
		t, err := ParseFailIf(s)
		if err != nil {
			return nil, err
		}
		thresholds[i] = t
	}
	if opts.ToSet && opts.To == 0 && opts.From == 0 {
		return nil, errors.New("--to 0s ends the zoom where it starts (--from is the run's start unless given); give --to a time after --from, or drop --to")
	}
	if (opts.ToSet || opts.To != 0) && opts.From >= opts.To {
		if opts.From == opts.To {
			return nil, fmt.Errorf("--from and --to are both %v; the zoom needs --from before --to", opts.From)
		}
		return nil, fmt.Errorf("--from %v is after --to %v; --from is where the zoom starts, so swap them (--from %v --to %v)", opts.From, opts.To, opts.To, opts.From)
	}
	rs, err := newRedisSession(ctx, opts.Redis, opts.Bin)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			rs.close()
		}
	}()
	imported, err := opts.Rules.load()
	if err != nil {
		return nil, err
	}
	ruleSpecs, ruleLabels := ruleRows(imported)
	if len(imported) > 0 && len(ruleSpecs) == 0 && len(opts.Specs) == 0 {
		return nil, noActiveRule(imported)
	}
	algos := opts.Specs
	if len(ruleSpecs) > 0 {
		algos = append(slices.Clip(algos), ruleSpecs...)
	}
	p, err := prepare(ctx, &opts.Source, algos, false, opts.Bin, opts.Window, opts.Out, "", rs)
	if err != nil {
		return nil, err
	}
	p.opts, p.rs, p.render, p.thresholds, p.labels = opts, rs, render, thresholds, ruleLabels
	p.cfg.Workers = opts.Workers
	p.ruleNotes = ruleNotes(imported)
	defer func() {
		if err != nil {
			p.src.cleanup()
		}
	}()
	if err := checkRuleNeeds(imported, p.src); err != nil {
		return nil, err
	}
	if err := report.CheckNames(p.Specs(), thresholds); err != nil {
		return nil, err
	}
	p.chart = plots.ChartOptions{Mode: opts.Chart, From: opts.From, To: opts.To}
	switch opts.Chart {
	case "none":
		if opts.From != 0 || opts.To != 0 || opts.ToSet {
			return nil, errors.New("--from and --to zoom the chart, but --chart none draws none; drop them or pick a chart")
		}
	case "", plots.ModePanels, plots.ModeOverlay:
		// Check the zoom against the run's span before running.
		span := &simulator.Result{Start: p.cfg.Start, End: p.cfg.End, Algorithms: make([]simulator.AlgoResult, len(p.limiters))}
		if err := p.chart.Validate(span); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("chart mode %q is unknown; use --chart panels, overlay or none", opts.Chart)
	}
	return p, nil
}

// Close removes what resolving the source left on disk (a piped trace's
// copy) and closes the Redis session.
func (p *Plan) Close() {
	p.src.cleanup()
	p.rs.close()
}

// Specs are the canonical specs of the plan's limiters, one per row.
func (p *Plan) Specs() []string {
	specs := make([]string, len(p.limiters))
	for i, l := range p.limiters {
		specs[i] = l.Spec()
	}
	return specs
}

// Out is the output directory Execute writes.
func (p *Plan) Out() string { return p.out }

// Expected is the number of arrivals when it is known beforehand (a
// trace), else 0.
func (p *Plan) Expected() int64 { return p.src.Expected }

// Approx is the mean number of arrivals expected (Expected when known,
// a Poisson scenario's mean otherwise), 0 when not known beforehand.
func (p *Plan) Approx() float64 { return p.src.Approx }

// Hooks are what a caller learns while a plan runs. Every field may be
// nil.
type Hooks struct {
	// Notes receives the one-line notes and estimates said before and
	// after the replay (the command's stderr); Width is the number of
	// columns they wrap to (0: 100).
	Notes io.Writer
	Width int
	// Progress is called, from the replay's goroutines, with the number
	// of arrivals decided so far; Finished once the replay ends.
	Progress func(done int64)
	Finished func()
	// Decisions, when set, receives limiter i's decision rows (the body
	// of decisions.csv) during Replay.
	Decisions func(i int) io.Writer
	// Writing is called by Execute before it writes each file (by its
	// name: series.csv, ..., decisions.csv).
	Writing func(name string)
}

func (h Hooks) notes() io.Writer {
	if h.Notes == nil {
		return io.Discard
	}
	return h.Notes
}

// Result is a replay's outcome: the simulator's result and what the
// summary says beside it.
type Result struct {
	*simulator.Result
	// Keys names the key ids of per-key rows (nil when no row is keyed).
	Keys *scenarios.KeyTable
	// Warnings and Notes go under the summary.
	Warnings, Notes []string
	// Seed is the scenario's random seed (HasSeed false for a trace).
	Seed    uint64
	HasSeed bool
	// log is summary.json's "log" object (how an access log was read).
	log *logSummary
}

// Replay runs the plan's arrivals through its limiters. A plan replays
// once.
func (p *Plan) Replay(ctx context.Context, h Hooks) (*Result, error) {
	return p.replay(ctx, h, func(st scenarios.Stream, cfg simulator.Config) (*simulator.Result, error) {
		return simulator.Run(ctx, st, p.limiters, cfg)
	})
}

// replay is Replay with the engine's step given: run turns the bound
// stream into the simulator's result (simulator.Run, or the assembly of
// decisions made elsewhere: beamapi.go).
func (p *Plan) replay(ctx context.Context, h Hooks, runF func(scenarios.Stream, simulator.Config) (*simulator.Result, error)) (*Result, error) {
	cfg := p.cfg
	if h.Decisions != nil {
		cfg.Decisions = h.Decisions
	}
	cfg.Progress = h.Progress
	stream, err := p.src.Open()
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	run, keyTable, err := bindKeys(stream, p.src.Name, p.limiters)
	if err != nil {
		return nil, err
	}
	var stopTracking func() = func() {}
	if h.Progress != nil {
		stopTracking = p.rs.trackProgress(&cfg, h.Progress)
	}
	res, err := runF(run, cfg)
	stopTracking()
	if h.Finished != nil {
		h.Finished()
	}
	if err != nil {
		return nil, err
	}
	labelRows(res, p.labels, len(p.opts.Specs))
	r := &Result{Result: res, Keys: keyTable, Seed: p.src.Seed, HasSeed: p.src.HasSeed, log: p.src.log}
	for _, l := range p.limiters {
		r.Warnings = append(r.Warnings, warnings(l)...)
	}
	r.Notes = append(r.Notes, p.ruleNotes...)
	if p.src.Origin.IsZero() {
		// An access log's --key fields are already warned about by the
		// reader (source.Warnings), counted over every line; a CSV
		// trace's empty cells are warned about here, per keyed row.
		r.Warnings = append(r.Warnings, emptyKeysWarnings(res, scenarios.StreamColumns(stream).Keys)...)
	}
	if note := stepsBackNote(stream); note != "" {
		r.Notes = append(r.Notes, note)
	}
	r.Notes = append(r.Notes, emptyNotes(res, p.src.Silent)...)
	if note := breakerNote(res, p.cfg.Downstream, scenarios.StreamColumns(stream)); note != "" {
		r.Notes = append(r.Notes, note)
	}
	if note := priorityNote(res); note != "" {
		r.Notes = append(r.Notes, note)
	}
	if p.opts.SayWorkers {
		r.Notes = append(r.Notes, workersNotes(res)...)
	}
	if scenarios.StreamColumns(stream).Cost {
		r.Warnings = append(r.Warnings, costWarnings(p.limiters)...)
	}
	return r, nil
}

// prepared is a validated run, ready to go.
type prepared = Plan

// buildLimiters builds every spec at limit, refusing the same limiter
// given twice.
func buildLimiters(specs []string, limit float64, rs *redisSession) ([]algorithms.Limiter, error) {
	if len(specs) == 0 {
		return nil, errors.New("no algorithm to run: give --algo SPEC (run 'ratelimit-lab list' to see them)")
	}
	out := make([]algorithms.Limiter, len(specs))
	given := map[string]int{} // canonical spec → index in specs
	for i, spec := range specs {
		l, err := newLimiter(spec, limit, rs)
		if err != nil {
			return nil, err
		}
		if j, dup := given[l.Spec()]; dup {
			if specs[j] == spec {
				return nil, fmt.Errorf("algorithm %q is given twice; give each limiter once", spec)
			}
			return nil, fmt.Errorf("algorithms %q and %q are the same limiter (%s); give each limiter once", specs[j], spec, l.Spec())
		}
		given[l.Spec()] = i
		out[i] = l
	}
	return out, nil
}

// prepare resolves the arrivals and builds the limiters: algos, or the
// source's own when algos is empty. ownSpecs says that algos are the
// command's (tune's leap-array), not specs the user wrote, so that a
// missing limit is blamed on the missing --limit rather than on them.
func prepare(ctx context.Context, src *Source, algos []string, ownSpecs bool, bin, window time.Duration, out, suffix string, rs *redisSession) (_ *prepared, err error) {
	// Durations beyond a year would overflow the nanosecond arithmetic of
	// bins and windows on long traces; no run needs them.
	if bin > scenarios.MaxTime {
		return nil, fmt.Errorf("--bin %v is longer than %v; give a shorter bin such as --bin 1h", bin, scenarios.MaxTime)
	}
	if window > scenarios.MaxTime {
		return nil, fmt.Errorf("--window %v is longer than %v; give a shorter window such as --window 1h", window, scenarios.MaxTime)
	}
	s, err := src.resolve(ctx, algos...)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.cleanup()
		}
	}()
	if !(s.Limit > 0) && (len(algos) == 0 || ownSpecs) {
		// A trace has no limit of its own; the specs nobody wrote (the
		// default limiters, tune's) take --limit.
		what := s.Name
		switch src.Trace {
		case "":
		case "-":
			what = "the trace on stdin"
		default:
			what = "the trace " + src.Trace
		}
		return nil, fmt.Errorf("%s gives no limit: pass --limit N, the requests per second the limiters allow (for example --limit 100)", what)
	}
	if len(algos) > 0 {
		s.Algorithms = algos
	}
	limiters, err := buildLimiters(s.Algorithms, s.Limit, rs)
	if err != nil {
		return nil, err
	}
	cfg := simulator.DefaultConfig()
	cfg.Scenario, cfg.Limit, cfg.Bin, cfg.Window = s.Name, s.Limit, bin, window
	cfg.Start, cfg.End = s.Start, s.End
	cfg.Downstream = s.Downstream
	if bin <= 0 {
		return nil, fmt.Errorf("--bin must be positive, got %v (for example --bin 50ms)", bin)
	}
	if window <= 0 {
		return nil, fmt.Errorf("--window must be positive, got %v (for example --window 1s)", window)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if out == "" {
		out = filepath.Join("out", s.Name+suffix)
	}
	return &prepared{src: s, limiters: limiters, cfg: cfg, out: out}, nil
}

// RuleSpecs are the specs and row labels the rules of files become (see
// LoadRules).
func RuleSpecs(rs []rules.Rule) (specs, labels []string) { return ruleRows(rs) }

// OneLine folds a multi-line message onto one line, separating the lines
// with "; " unless a line already ends in punctuation.
func OneLine(s string) string {
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

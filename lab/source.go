package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Source chooses the arrivals of a run: a catalog scenario or a YAML
// scenario file (Scenario), a trace or an access log (Trace), or a
// scenario built in Go (Value), with overrides.
type Source struct {
	// Scenario is a catalog name or a .yaml/.yml file.
	Scenario string
	// Value is a scenario built in Go; it takes the place of Scenario.
	Value *scenarios.Scenario
	// Trace is a CSV trace or an access log, gzipped or not; "-" reads In.
	Trace string
	// In is what Trace "-" reads (os.Stdin when nil).
	In io.Reader
	// Limit, Duration and Seed replace the scenario's when their Set
	// field is true.
	Limit       float64
	LimitSet    bool
	Duration    time.Duration
	DurationSet bool
	Seed        uint64
	SeedSet     bool
	// TraceFormat, Keys, User and TimeField read an access log (see
	// scenarios.LogOptions).
	TraceFormat string
	Keys        []string
	User        string
	TimeField   string
	// BadLines, Sort and Time say how to read an access log's bad lines,
	// its order and its times (--bad-lines, --sort, --time; see
	// scenarios.LogOptions).
	BadLines string
	Sort     bool
	Time     string
}

// source is a resolved set of arrivals with its run settings.
type source struct {
	Name       string
	Limit      float64
	Start, End time.Duration
	Algorithms []string
	// Expected is the number of arrivals when it is known beforehand.
	Expected int64
	// Approx is the mean number of arrivals (Expected when known), for
	// estimates made before the run.
	Approx float64
	Open   func() (scenarios.Stream, error)
	// Seed is the scenario's random seed (HasSeed false for a trace).
	Seed    uint64
	HasSeed bool
	// spool is a copy of a trace read from a pipe, removed by cleanup.
	spool string
	// Downstream is the scenario's modelled service, or nil.
	Downstream *scenarios.Downstream
	// Notes say how an access log was read (its time 0, whole seconds);
	// the command prints them on stderr before the run.
	Notes []string
	// Origin is the absolute time of an access log's 0 (zero otherwise).
	Origin time.Time
	// Warnings say what in an access log is likely a mistake (a --key
	// field empty on most lines); printed before the notes.
	Warnings []string
	// log is what summary.json says of how an access log was read, nil
	// when there is nothing beyond the defaults.
	log *logSummary
	// Silent says which of a scenario's phases send nothing in this run
	// (scenarios.Scenario.Silent): the reason a run may have no arrivals.
	Silent []string
	// kept says the trace's first Open replays the arrivals its validating
	// pass kept (scenarios.Kept) instead of reading the file again.
	kept bool
}

// keepTraces has a trace's validating pass keep its arrivals for the
// replay (scenarios.LogOptions.Keep); tests turn it off to compare.
// constKeyNoKeep skips keeping when a spec may key key=*; tests turn it
// off to check the replay's re-read for such a row (bindKeys).
var keepTraces, constKeyNoKeep = true, true

// mayKeyConst reports whether a spec may key on the constant key: any
// "*" in it (a false alarm only costs the kept arrivals).
func mayKeyConst(specs ...[]string) bool {
	for _, ss := range specs {
		for _, s := range ss {
			if strings.Contains(s, ConstKey) {
				return true
			}
		}
	}
	return false
}

// printNotes writes the source's warnings and notes, one "warning:" or
// "note:" each, wrapped to fit columns as the report's notes are.
func (s *source) printNotes(w io.Writer, fit int) {
	for _, n := range s.Warnings {
		report.WriteNote(w, "warning: ", n, fit)
	}
	for _, n := range s.Notes {
		report.WriteNote(w, "note: ", n, fit)
	}
}

// cleanup removes what resolving the source left on disk.
func (s *source) cleanup() {
	if s != nil && s.spool != "" {
		os.Remove(s.spool)
		s.spool = ""
	}
}

func isScenarioFile(arg string) bool {
	ext := strings.ToLower(filepath.Ext(arg))
	return ext == ".yaml" || ext == ".yml"
}

// resolve checks every input before anything runs or is written; algos
// are the run's specs (a trace is kept for the replay unless one keys
// key=*, see resolveTrace).
func (o *Source) resolve(ctx context.Context, algos ...string) (*source, error) {
	if o.LimitSet && (!(o.Limit > 0) || math.IsInf(o.Limit, 0)) {
		return nil, fmt.Errorf("--limit must be a positive number of requests per second, got %v", o.Limit)
	}
	if o.DurationSet && o.Duration <= 0 {
		return nil, fmt.Errorf("--duration must be positive, got %v (for example --duration 10s)", o.Duration)
	}
	if o.Trace == "" {
		for _, f := range []struct {
			flag string
			set  bool
		}{{"--key", len(o.Keys) > 0}, {"--user", o.User != ""}, {"--time-field", o.TimeField != ""}, {"--trace-format", o.TraceFormat != "" && o.TraceFormat != scenarios.FormatAuto},
			{"--bad-lines", o.BadLines != "" && o.BadLines != scenarios.BadLinesFail}, {"--sort", o.Sort}, {"--time", o.Time != "" && o.Time != scenarios.TimeEnd}} {
			if f.set {
				return nil, fmt.Errorf("%s applies to --trace; give the access log with --trace FILE", f.flag)
			}
		}
	}
	if o.Scenario == "" && o.Value == nil && o.Trace == "" {
		return nil, errors.New("name a scenario, a scenario file or --trace FILE (run 'ratelimit-lab list' to see the scenarios)")
	}
	var sc scenarios.Scenario
	var err error
	switch {
	case o.Value != nil:
		sc = *o.Value
	case o.Scenario == "":
	case isScenarioFile(o.Scenario):
		sc, err = untilDone(ctx, func() (scenarios.Scenario, error) { return loader.LoadFile(o.Scenario) })
	default:
		if _, statErr := os.Stat(o.Scenario); statErr == nil && strings.ContainsAny(o.Scenario, `/\.`) {
			return nil, fmt.Errorf("%s: a scenario file must end in .yaml or .yml (a trace goes with --trace)", o.Scenario)
		}
		sc, err = scenarios.Lookup(o.Scenario)
	}
	if err != nil {
		return nil, err
	}
	if o.Trace != "" {
		return o.resolveTrace(ctx, sc, algos)
	}
	if o.LimitSet {
		// A closed loop's capacity scales with its traffic (issue 34).
		if sc, err = sc.WithCapacity(o.Limit / sc.Limit); err != nil {
			return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
		}
		sc = sc.WithLimit(o.Limit)
	}
	if o.DurationSet {
		sc = sc.WithDuration(o.Duration)
	}
	if o.SeedSet {
		sc = sc.WithSeed(o.Seed)
	}
	if err := loader.Validate(sc); err != nil {
		return nil, err
	}
	return &source{
		Name:       sc.Name,
		Limit:      sc.Limit,
		End:        sc.Duration,
		Algorithms: sc.Algorithms,
		Approx:     sc.ExpectedArrivals(),
		Open:       sc.Stream,
		Seed:       sc.Seed,
		HasSeed:    true,
		Downstream: sc.Downstream,
		Silent:     sc.Silent(),
	}, nil
}

// resolveTrace replays a trace; a scenario given beside it supplies the
// limit and the algorithms.
func (o *Source) resolveTrace(ctx context.Context, sc scenarios.Scenario, algos []string) (*source, error) {
	if o.DurationSet {
		return nil, errors.New("--duration does not apply to --trace: the run lasts the trace's span")
	}
	if o.SeedSet {
		return nil, errors.New("--seed does not apply to --trace: a trace has no randomness")
	}
	path, name := o.Trace, o.Trace
	base := strings.TrimSuffix(filepath.Base(o.Trace), ".gz")
	s := &source{Name: strings.TrimSuffix(base, filepath.Ext(base))}
	if o.Trace == "-" {
		name, s.Name = "stdin", "stdin"
	}
	// A pipe (--trace -, /dev/stdin, a FIFO) can be read only once, and
	// the trace is read twice (checked whole before anything is written,
	// then replayed): copy it to a temporary file as it is read.
	if fi, err := os.Stat(o.Trace); o.Trace == "-" || err == nil && !fi.Mode().IsRegular() {
		spool, err := spoolTrace(ctx, o.Trace, name, o.In)
		if err != nil {
			return nil, err
		}
		path, s.spool = spool, spool
	}
	lo := scenarios.LogOptions{Format: o.TraceFormat, Keys: o.Keys, User: o.User, TimeField: o.TimeField,
		BadLines: o.BadLines, Sort: o.Sort, Time: o.Time, Context: ctx}
	// The validating pass keeps the arrivals of a trace small enough
	// (scenarios.Kept): the first Open replays them instead of reading
	// and parsing the file again. Not when a spec may key key=*: that
	// row's constant key is interned after the first arrival, so the
	// replay reads the file again anyway (bindKeys) and the pass's
	// interning would be spent twice.
	lo.Keep = keepTraces && !(constKeyNoKeep && mayKeyConst(algos, sc.Algorithms))
	info, err := scenarios.ScanLog(path, name, lo)
	if err != nil {
		s.cleanup()
		return nil, err
	}
	start, end, n := info.Start, info.End, info.N
	lo.Origin = info.Origin
	lo.Keep, lo.Kept = false, info.Kept
	s.kept = info.Kept != nil
	if info.Format != scenarios.FormatCSV {
		s.Origin = info.Origin
		s.Notes = append(s.Notes, fmt.Sprintf("%s: %s log, times shifted so its earliest line (%s) is at 0", name, info.Format, info.Origin.Format(time.RFC3339Nano)))
		if info.WholeSeconds {
			s.Notes = append(s.Notes, fmt.Sprintf("%s has whole-second timestamps, so each second's requests all arrive at its start: sub-second behaviour (bursts, burst=0, windows under 1s) is meaningless here; log nginx's $msec first (or a JSON time with milliseconds) for exact times", name))
		}
		s.logNotes(name, info, lo)
	}
	s.Limit = sc.Limit
	s.Start = floorSecond(start)
	s.End = end + time.Nanosecond
	s.Algorithms = sc.Algorithms
	s.Expected = n
	s.Approx = float64(n)
	s.Open = func() (scenarios.Stream, error) { return scenarios.OpenLog(path, name, lo) }
	if o.LimitSet {
		s.Limit = o.Limit
	}
	if len(s.Algorithms) == 0 {
		s.Algorithms = scenarios.DefaultAlgorithms
	}
	return s, nil
}

// spoolTrace copies the stream at path ("-": in) into a temporary file and
// returns its name. A pipe can stay open without sending anything (or a
// FIFO without a writer), so the copy runs under untilDone: a cancelled ctx
// (SIGINT, SIGTERM) ends the wait at once, the temporary file is removed
// and ctx's error returned.
func spoolTrace(ctx context.Context, path, name string, in io.Reader) (string, error) {
	if ctx != nil && ctx.Err() != nil {
		return "", ctx.Err()
	}
	tmp, err := os.CreateTemp("", "ratelimit-lab-trace-*.csv")
	if err != nil {
		return "", fmt.Errorf("cannot keep a copy of the trace from %s (%v); set TMPDIR to a writable directory, or give the trace as a file", name, err)
	}
	_, err = untilDone(ctx, func() (struct{}, error) { return struct{}{}, copyTrace(tmp, path, name, in) })
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// untilDone returns what read returns, or ctx's error as soon as ctx ends
// (SIGINT, SIGTERM). Every input a command reads from a path the user names
// (a trace, a --rules file, a .yaml scenario) may be a pipe that stays open
// or a FIFO without a writer, so read runs on its own goroutine; once ctx
// ends, that goroutine, blocked in a read or an open that nothing can
// interrupt, ends with the process.
func untilDone[T any](ctx context.Context, read func() (T, error)) (T, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// copyTrace copies the stream at path ("-": in, or stdin) into tmp and
// closes tmp.
func copyTrace(tmp *os.File, path, name string, in io.Reader) error {
	defer tmp.Close()
	r := in
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("%s: cannot open the trace (%s); check the path", name, OneLine(err.Error()))
		}
		defer f.Close()
		r = f
	} else if r == nil {
		r = os.Stdin
	}
	_, err := io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: cannot read the trace (%v); check the stream, or give the trace as a file", name, err)
	}
	return nil
}

// floorSecond aligns the first bin of a trace on a whole second.
func floorSecond(d time.Duration) time.Duration {
	f := d.Truncate(time.Second)
	if f > d {
		f -= time.Second
	}
	return f
}

// ScenarioNames is the name of every catalog scenario, in the catalog's
// order.
func ScenarioNames() []string { return scenarios.Names() }

// logNotes adds what the source's notes, warnings and summary.json say of
// how an access log was read: the JSON time field, --time start's
// duration, --sort, the skipped bad lines and non-request entries, and a
// --key field that is empty or "-" on more than half of the requests.
func (s *source) logNotes(name string, info scenarios.LogInfo, lo scenarios.LogOptions) {
	sum := &logSummary{Format: info.Format, TimeField: info.TimeField, Time: scenarios.TimeEnd,
		BadLines: info.BadLines, FirstBadLines: info.FirstBad, NonRequests: info.NonRequests}
	notable := info.BadLines > 0 || info.NonRequests > 0
	if info.TimeField != "" {
		what := "the time each entry was written"
		switch info.TimeField {
		case "StartUTC", "StartLocal", "start_time":
			what = "the request's start"
		}
		s.Notes = append(s.Notes, fmt.Sprintf("%s: times from the field %s (%s)", name, info.TimeField, what))
	}
	if lo.Time == scenarios.TimeStart {
		sum.Time, sum.DurationField, notable = scenarios.TimeStart, info.Duration, true
		if info.Duration == "" {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: --time start: %s is already the request's start, so nothing is subtracted", name, info.TimeField))
		} else {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: --time start: each arrival is the line's time minus %s, the request's duration", name, info.Duration))
		}
	}
	if info.Sorted {
		sum.Sorted, sum.OutOfOrder, notable = true, info.OutOfOrder, true
		s.Notes = append(s.Notes, fmt.Sprintf("%s: replayed in time order (equal times in line order); %s earlier than the line before", name, plural(info.OutOfOrder, "line was", "lines were")))
	}
	if info.BadLines > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: skipped %s that did not parse (--bad-lines skip): %s", name, plural(info.BadLines, "line", "lines"), strings.Join(info.FirstBad, "; ")))
	}
	if info.NonRequests > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: skipped %s that are not requests (no request field: request, method, status, remote_addr, ... nor a --key or --user field)", name, plural(info.NonRequests, "entry", "entries")))
	}
	for i, k := range lo.Keys {
		if i >= len(info.Empty) || info.N == 0 {
			break
		}
		if e := info.Empty[i]; 2*e > info.N {
			s.Warnings = append(s.Warnings, fmt.Sprintf("--key %s is empty or \"-\" on %d of %d requests (%.0f%%): those requests have no key of their own; check the field name, or key on another field", k, e, info.N, 100*float64(e)/float64(info.N)))
			if sum.EmptyKeys == nil {
				sum.EmptyKeys = map[string]int64{}
			}
			sum.EmptyKeys[k], notable = e, true
		}
	}
	if notable {
		s.log = sum
	}
}

// logSummary is summary.json's "log" object: how an access log was read,
// written when it says more than the defaults.
type logSummary struct {
	Format        string           `json:"format"`
	TimeField     string           `json:"time_field,omitempty"`
	Time          string           `json:"time"`
	DurationField string           `json:"duration_field,omitempty"`
	Sorted        bool             `json:"sorted"`
	OutOfOrder    int64            `json:"out_of_order_lines,omitempty"`
	BadLines      int64            `json:"bad_lines"`
	FirstBadLines []string         `json:"first_bad_lines,omitempty"`
	NonRequests   int64            `json:"non_requests"`
	EmptyKeys     map[string]int64 `json:"empty_keys,omitempty"`
}

// writeSummaryJSON writes summary.json: the simulator's summary, with a
// "log" object last when the run's access log has one.
func writeSummaryJSON(w io.Writer, res *Result) error {
	if res.log == nil {
		return simulator.WriteSummaryJSON(w, res.Result)
	}
	var buf bytes.Buffer
	if err := simulator.WriteSummaryJSON(&buf, res.Result); err != nil {
		return err
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	if len(b) == 0 || b[len(b)-1] != '}' {
		return errors.New("summary.json: the simulator's summary is not one JSON object")
	}
	var lb bytes.Buffer
	enc := json.NewEncoder(&lb)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res.log); err != nil {
		return err
	}
	out := append(bytes.TrimRight(b[:len(b)-1], "\n"), ",\n  \"log\": "...)
	out = append(out, bytes.TrimRight(lb.Bytes(), "\n")...)
	out = append(out, "\n}\n"...)
	_, err := w.Write(out)
	return err
}

// plural is "1 one" or "n many".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

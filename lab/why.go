package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// WhySelect chooses the requests a decision trace shows: the sequence
// numbers of decisions.csv (0 is the first arrival), the requests whose
// key (in any key column) is Key, and those whose limiter clock is in
// [From, To) when Range is set. A request matches when it matches every
// criterion given. Max caps the requests shown per limiter (0: 20).
type WhySelect struct {
	Seqs     []int64
	Key      string
	From, To time.Duration
	Range    bool
	Max      int
}

// WhyStep is one request through one limiter: what it read, the
// reference's arithmetic, and what it left.
type WhyStep struct {
	Seq      int64         `json:"seq"`
	Clock    time.Duration `json:"t_ns"`
	Keys     []string      `json:"keys,omitempty"`
	Cost     int32         `json:"cost,omitempty"`
	Priority bool          `json:"priority,omitempty"`
	Verdict  string        `json:"verdict"`
	Wait     time.Duration `json:"wait_ns"`
	Before   string        `json:"before"`
	Math     string        `json:"math"`
	After    string        `json:"after"`
	// Disagrees is set when the verdict Math reaches is not the
	// limiter's (a case its Explain does not foresee).
	Disagrees bool `json:"disagrees,omitempty"`
}

// WhyRow is one limiter's decision trace.
type WhyRow struct {
	Spec  string    `json:"spec"`
	Rule  string    `json:"rule"`
	Steps []WhyStep `json:"requests"`
	// Matched counts every request the selection matched, shown or not.
	Matched int64 `json:"matched"`
}

// WhyReport is the decision trace of a run's chosen requests.
type WhyReport struct {
	Source string   `json:"source"`
	Rows   []WhyRow `json:"limiters"`
}

// Why replays opts' arrivals through its limiters, one request at a time
// on the engine's fast path (Decide, or DecideRequest for a limiter that
// reads the request), and for each selected request asks each limiter's
// Explain just before and just after its decision. The limiters are the
// run's own, so the decisions are the run's; a run that never asks pays
// nothing (no limiter calls Explain otherwise).
func Why(ctx context.Context, opts Options, sel WhySelect) (*WhyReport, error) {
	if len(sel.Seqs) == 0 && sel.Key == "" && !sel.Range {
		return nil, errors.New("why needs requests to explain: give --seq N (0 is the first arrival, as in decisions.csv), --key-value VALUE or --from/--to")
	}
	if sel.Range && sel.To <= sel.From {
		return nil, fmt.Errorf("--to %v is not after --from %v; give a range such as --from 1s --to 1.1s", sel.To, sel.From)
	}
	for _, s := range sel.Seqs {
		if s < 0 {
			return nil, fmt.Errorf("--seq %d is negative; sequence numbers start at 0 (the first arrival), as in decisions.csv", s)
		}
	}
	if sel.Max <= 0 {
		sel.Max = 20
	}
	opts.Chart, opts.HTML, opts.From, opts.To = "none", false, 0, 0
	p, err := NewPlan(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	exps := make([]algorithms.Explainer, len(p.limiters))
	for i, l := range p.limiters {
		ex, err := explainerOf(l, p.cfg.Downstream != nil)
		if err != nil {
			return nil, err
		}
		exps[i] = ex
		// Seeded as the engine seeds a row (simulator/adaptive.go,
		// prepareAdaptive): the run's seed plus the row's index, so
		// filter_enabled's draws are the run's (TestWhyDecidesAsTheRun).
		if sd, ok := l.(algorithms.Seeded); ok {
			sd.Reseed(p.cfg.Seed + uint64(i)*0x9e3779b97f4a7c15)
		}
	}
	st, err := p.src.Open()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	run, _, err := bindKeys(st, p.src.Name, p.limiters)
	if err != nil {
		return nil, err
	}
	var table *scenarios.KeyTable
	var cols []string
	if ks, ok := st.(scenarios.KeyedStream); ok {
		table, cols = ks.KeyTable(), ks.KeyColumns()
	}
	rep := &WhyReport{Source: p.src.Name, Rows: make([]WhyRow, len(exps))}
	for i, ex := range exps {
		rep.Rows[i].Spec = ex.Spec()
		rep.Rows[i].Steps = []WhyStep{}
	}
	var req algorithms.Request
	for seq := int64(0); ; seq++ {
		if seq&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		a, ok := run.Next()
		if !ok {
			break
		}
		if a.HasResponse {
			return nil, fmt.Errorf("%s carries responses (rt_ms, error): its rows run on the simulator's event queue, which why does not replay; drop those columns to explain the limiters' decisions", p.src.Name)
		}
		req.Keys, req.Cost, req.Priority = a.Keys, a.Weight(), a.Priority
		if req.Cost > 1 {
			// The explanations state one request's arithmetic (AllowN(t, 1),
			// tryAcquire(1)); a run charges costs, so why would not be the run.
			return nil, fmt.Errorf("%s: arrival %d costs %d: why explains requests of cost 1 only; drop the cost column to explain the decisions", p.src.Name, seq, req.Cost)
		}
		keys := []string(nil)
		chosen := sel.matches(seq, &a, table, len(cols))
		if chosen {
			for c := range cols {
				if id := a.Keys[c]; id >= 0 && table != nil {
					keys = append(keys, cols[c]+"="+table.Name(id))
				}
			}
		}
		for i, ex := range exps {
			row := &rep.Rows[i]
			show := chosen && len(row.Steps) < sel.Max
			var before algorithms.Explanation
			if show {
				before = ex.Explain(a.Clock, &req)
			}
			d := decide(ex, a.Clock, &req)
			if chosen {
				row.Matched++
			}
			if !show {
				continue
			}
			after := ex.Explain(a.Clock, &req)
			if row.Rule == "" {
				row.Rule = before.Rule
			}
			step := WhyStep{Seq: seq, Clock: a.Clock, Keys: keys, Priority: a.Priority, Verdict: "block",
				Before: before.State, Math: before.Math, After: after.State,
				Disagrees: before.Pass != d.Pass || (d.Pass && before.Wait != d.Wait)}
			if a.Cost > 1 {
				step.Cost = a.Cost
			}
			if d.Pass {
				step.Verdict, step.Wait = "pass", d.Wait
			}
			row.Steps = append(row.Steps, step)
		}
	}
	if err := st.Err(); err != nil {
		return nil, err
	}
	return rep, nil
}

// decide is the engine's fast-path call (simulator.process).
func decide(l algorithms.Limiter, now time.Duration, r *algorithms.Request) algorithms.Decision {
	if rl, ok := l.(algorithms.RequestLimiter); ok {
		return rl.DecideRequest(now, r)
	}
	return l.Decide(now)
}

// matches reports whether the arrival seq is selected.
func (s *WhySelect) matches(seq int64, a *scenarios.Arrival, table *scenarios.KeyTable, ncols int) bool {
	if len(s.Seqs) > 0 && !slices.Contains(s.Seqs, seq) {
		return false
	}
	if s.Range && (a.Clock < s.From || a.Clock >= s.To) {
		return false
	}
	if s.Key != "" {
		if table == nil {
			return false
		}
		for c := 0; c < ncols; c++ {
			if id := a.Keys[c]; id >= 0 && table.Name(id) == s.Key {
				return true
			}
		}
		return false
	}
	return true
}

// explainerOf is l as an Explainer, or the one-line reason it has no
// decision trace.
func explainerOf(l algorithms.Limiter, downstream bool) (algorithms.Explainer, error) {
	name, _, _ := strings.Cut(l.Spec(), ":")
	switch l.(type) {
	case *algorithms.Chain, *algorithms.CircuitBreaker, algorithms.Completer:
		return nil, fmt.Errorf("why: %s runs on the simulator's event queue (a chain, a breaker or an adaptive limiter), which why does not replay; explain each stage as a row of its own (--algo STAGE)", l.Spec())
	case *algorithms.Keyed:
		return nil, fmt.Errorf("why: %s keeps one limiter per key (key=), which why does not explain yet; explain one key's traffic with the limiter without key= and a trace of that key, or use nginx-limit-req, which reads its key itself", l.Spec())
	}
	if downstream {
		return nil, fmt.Errorf("why: the scenario has a downstream, so its rows run on the simulator's event queue, which why does not replay; explain a trace or a scenario without downstream")
	}
	ex, ok := l.(algorithms.Explainer)
	if !ok {
		return nil, fmt.Errorf("why: %s has no decision trace; the limiters why explains are %s", name, strings.Join(WhyLimiters(), ", "))
	}
	return ex, nil
}

// whyRequired gives the parameters that have no default, for the
// limiters WhyLimiters builds to ask whether they explain.
var whyRequired = map[string]string{
	"nginx-limit-req":  ":rate=10r/s",
	"guava-warming-up": ":warm-up=1s",
}

// WhyLimiters names the registry's limiters that explain their
// decisions (each built with its defaults at 100/s).
func WhyLimiters() []string {
	var out []string
	for _, in := range Limiters() {
		l, err := NewLimiter(in.Name+whyRequired[in.Name], 100)
		if err != nil {
			continue
		}
		if _, ok := l.(algorithms.Explainer); ok {
			out = append(out, in.Name)
		}
	}
	return out
}

// WriteText prints the trace: per limiter its spec and rule, then per
// request its verdict, the state before, the arithmetic and the state
// after, one line each.
func (r *WhyReport) WriteText(w io.Writer) error {
	var b strings.Builder
	for i, row := range r.Rows {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s · %s\n", r.Source, row.Spec)
		if row.Rule != "" {
			fmt.Fprintf(&b, "rule: %s\n", row.Rule)
		}
		if row.Matched == 0 {
			b.WriteString("no request matches the selection\n")
			continue
		}
		for _, s := range row.Steps {
			fmt.Fprintf(&b, "#%d at %s", s.Seq, fmtClock(s.Clock))
			if len(s.Keys) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(s.Keys, ", "))
			}
			if s.Cost > 1 {
				fmt.Fprintf(&b, " cost %d", s.Cost)
			}
			if s.Priority {
				b.WriteString(" prioritized")
			}
			fmt.Fprintf(&b, ": %s", s.Verdict)
			if s.Wait > 0 {
				fmt.Fprintf(&b, " after %v", s.Wait)
			}
			b.WriteString("\n")
			fmt.Fprintf(&b, "  before: %s\n  math:   %s\n  after:  %s\n", s.Before, s.Math, s.After)
			if s.Disagrees {
				b.WriteString("  note:   the limiter decided otherwise than this arithmetic (a case its explanation does not model)\n")
			}
		}
		if n := row.Matched - int64(len(row.Steps)); n > 0 {
			fmt.Fprintf(&b, "… and %d more matching request(s); narrow the selection or raise --max\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the trace as one JSON object.
func (r *WhyReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// fmtClock prints a limiter clock reading in milliseconds.
func fmtClock(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.6f", ms), "0"), ".") + "ms"
}

package lab

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
	"github.com/ratelimit-lab/ratelimit-lab/spec"
)

// bindKeys resolves every per-key limiter's key columns against the
// stream's, binds the stream's key names, and has each bounded one run an
// unbounded twin beside it (extra_passes_from_eviction). A column the
// stream lacks is a one-line error naming the columns it has; a per-key
// limiter on a stream without keys is an error too. The default column
// name "key" stands for the stream's first key column when no column is
// called key (an access log read with --key ip). It returns the key
// table, or nil when no limiter is keyed.
//
// A trace knows its columns once its header is read, so when a limiter is
// keyed the first arrival is read here and the returned stream gives it
// back first.
func bindKeys(st scenarios.Stream, srcName string, limiters []algorithms.Limiter) (scenarios.Stream, *scenarios.KeyTable, error) {
	keyed := false
	for _, l := range limiters {
		if ku, ok := l.(algorithms.KeyColumnUser); ok && len(ku.KeyColumns()) > 0 {
			keyed = true
		}
	}
	if !keyed {
		return st, nil, nil
	}
	// A limiter keyed key=* interns the constant key into the stream's
	// table after the first arrival; a trace replayed from ScanLog's kept
	// arrivals has every key in its table already, so it reads its file
	// again instead, for the ids the file's reading gives.
	if rf, ok := st.(interface{ ReadFile() error }); ok && slices.ContainsFunc(limiters, func(l algorithms.Limiter) bool {
		ku, ok := l.(algorithms.KeyColumnUser)
		return ok && slices.Contains(ku.KeyColumns(), ConstKey)
	}) {
		if err := rf.ReadFile(); err != nil {
			return st, nil, err
		}
	}
	p := &peekStream{Stream: st}
	p.first, p.has = st.Next()
	t, err := bindKeyColumns(p, srcName, limiters)
	if err != nil || p.constSlot < 0 {
		return p, t, err
	}
	return &constKeyStream{peekStream: p}, t, nil
}

// ConstKey is the key column name of a limiter that keeps one state for
// every request (nginx's limit_req_zone keyed on $server_name or on a
// constant): key=* binds it to a spare slot of Arrival.Keys that the
// stream fills with one id.
const ConstKey = "*"

// constKeyStream fills the constant key's slot of every arrival.
type constKeyStream struct{ *peekStream }

func (c *constKeyStream) Next() (scenarios.Arrival, bool) {
	a, ok := c.peekStream.Next()
	a.Keys[c.constSlot] = c.constID
	return a, ok
}

func bindKeyColumns(st *peekStream, srcName string, limiters []algorithms.Limiter) (*scenarios.KeyTable, error) {
	var table *scenarios.KeyTable
	cols := scenarios.StreamColumns(st.Stream).Keys
	ks, keyed := st.Stream.(scenarios.KeyedStream)
	if keyed && cols == nil {
		cols = ks.KeyColumns()
	}
	st.constSlot = -1
	for _, l := range limiters {
		ku, ok := l.(algorithms.KeyColumnUser)
		if !ok || !slices.Contains(ku.KeyColumns(), ConstKey) {
			continue
		}
		if len(cols) >= scenarios.MaxKeyColumns {
			return nil, fmt.Errorf("%s keeps one state for every request (key=*), which needs a spare key column, and %s already has %d; drop a key column", l.Spec(), srcName, len(cols))
		}
		if keyed {
			table = ks.KeyTable()
		} else {
			table = scenarios.NewKeyTable()
		}
		st.constSlot, st.constID = len(cols), table.Intern(ConstKey)
		break
	}
	for _, l := range limiters {
		ku, ok := l.(algorithms.KeyColumnUser)
		if !ok || len(ku.KeyColumns()) == 0 {
			continue
		}
		names := ku.KeyColumns()
		if st.constSlot >= 0 && !slices.ContainsFunc(names, func(n string) bool { return n != ConstKey }) {
			idx := make([]int, len(names))
			for i := range idx {
				idx[i] = st.constSlot
			}
			if err := ku.BindKeyColumns(idx); err != nil {
				return nil, err
			}
			if kn, ok := l.(algorithms.KeyNameUser); ok {
				kn.BindKeyNames(table.Name)
			}
			if kr := algorithms.KeyReporterOf(l); kr != nil {
				kr.TrackShadow()
			}
			continue
		}
		if !keyed || len(cols) == 0 {
			return nil, fmt.Errorf("%s reads the key column %q, but %s has no key columns; replay traffic with keys (a trace with a key column, an access log with --key ip, or a scenario with keys:) or drop key=", l.Spec(), names[0], srcName)
		}
		idx := make([]int, len(names))
		for i, n := range names {
			idx[i] = -1
			for j, c := range cols {
				if c == n {
					idx[i] = j
				}
			}
			if idx[i] < 0 && n == "key" {
				idx[i] = 0
			}
			if n == ConstKey && st.constSlot >= 0 {
				idx[i] = st.constSlot
			}
			if idx[i] < 0 {
				return nil, fmt.Errorf("%s: key column %q is not in %s; its key columns are: %s (write key=%s)", registryName(l.Spec()), n, srcName, strings.Join(cols, ", "), cols[0])
			}
		}
		if err := ku.BindKeyColumns(idx); err != nil {
			return nil, err
		}
		table = ks.KeyTable()
		if kn, ok := l.(algorithms.KeyNameUser); ok {
			kn.BindKeyNames(table.Name)
		}
		if kr := algorithms.KeyReporterOf(l); kr != nil {
			kr.TrackShadow()
		}
	}
	return table, nil
}

// emptyKeysWarnings says, once per key column, when most requests of a
// keyed row had that column empty (an empty cell, or "-" in an access
// log): the per-key rows then limit few requests per key and meet the
// rest by their rule for an empty key, which is seldom what the run
// meant (a --key field the log does not fill, a column misnamed).
func emptyKeysWarnings(res *simulator.Result, cols []string) []string {
	var out []string
	seen := map[int]bool{}
	for i := range res.Algorithms {
		a := &res.Algorithms[i]
		k := a.Keys
		if k == nil || seen[k.Column] || a.Arrived == 0 || 2*k.EmptyKeys <= a.Arrived {
			continue
		}
		seen[k.Column] = true
		name := fmt.Sprintf("number %d", k.Column+1)
		if k.Column < len(cols) {
			name = fmt.Sprintf("%q", cols[k.Column])
		}
		out = append(out, fmt.Sprintf("%d of %d requests (%.0f%%) have an empty key column %s (an empty cell, or - in an access log): each per-key row meets them by its product's rule for an empty key (docs/algorithms.md, Empty keys), not per key; check the column (--key for an access log)",
			k.EmptyKeys, a.Arrived, 100*float64(k.EmptyKeys)/float64(a.Arrived), name))
	}
	return out
}

// peekStream gives back an arrival read ahead, then the rest of the
// stream, and forwards what the run asks of the stream.
type peekStream struct {
	scenarios.Stream
	first     scenarios.Arrival
	has, done bool
	// constSlot is the Arrival.Keys slot of the constant key (key=*), or
	// −1; constID its id.
	constSlot int
	constID   int32
}

func (p *peekStream) Next() (scenarios.Arrival, bool) {
	if !p.done {
		p.done = true
		if !p.has {
			return scenarios.Arrival{}, false
		}
		return p.first, true
	}
	return p.Stream.Next()
}

func (p *peekStream) Columns() scenarios.Columns { return scenarios.StreamColumns(p.Stream) }

func (p *peekStream) StepsBack() (int64, time.Duration) {
	if c, ok := p.Stream.(interface {
		StepsBack() (int64, time.Duration)
	}); ok {
		return c.StepsBack()
	}
	return 0, 0
}

// TerminalKey is a key as the terminal shows it: as it is when every rune
// is printable (strconv.IsPrint: letters, marks, numbers, punctuation,
// symbols and the ASCII space) and it does not start with a quote, else
// quoted as strconv.Quote does, so a key read from a log that holds a line
// break, an escape sequence (ESC [2J), a bidirectional override or bytes
// that are not UTF-8 shows as escapes and cannot move the cursor or
// rewrite the screen. Files keep the raw key (keys.csv quotes it as CSV
// does, summary.json as JSON does).
func TerminalKey(s string) string {
	if strings.HasPrefix(s, `"`) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// terminalNames wraps a key table's Name for what the terminal prints.
func terminalNames(name func(int32) string) func(int32) string {
	return func(id int32) string { return TerminalKey(name(id)) }
}

// registryName is the name of a spec's first stage.
func registryName(s string) string { return spec.Split(s).Stages[0].Name }

// keysOutputs writes keys.csv when a row is keyed and returns the file
// names written.
func writeKeysCSV(dir interface {
	WriteFile(string, func(io.Writer) error) error
}, res *simulator.Result, table *scenarios.KeyTable) ([]string, error) {
	if table == nil || !simulator.HasKeys(res) {
		return nil, nil
	}
	if err := dir.WriteFile("keys.csv", func(w io.Writer) error { return simulator.WriteKeysCSV(w, res, table.Name) }); err != nil {
		return nil, err
	}
	return []string{"keys.csv"}, nil
}

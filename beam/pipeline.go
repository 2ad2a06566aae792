// Package beamlab runs ratelimit-lab's replay on Apache Beam: the same
// trace or access log, split by key into shards that a Beam runner (Prism
// in-process, Flink, Spark, Dataflow) decides in parallel, each shard
// through the lab's own library with a fresh copy of each row's limiter,
// and the decisions brought back, in the stream's order, into one pass of
// the library's accumulators, so series.csv, keys.csv and summary.json are
// the files `ratelimit-lab run` writes.
//
// The pipeline is three steps:
//
//  1. read (one bundle): the trace, opened through Beam's filesystems and
//     read by the lab's reader, in order; every arrival goes, with its
//     sequence number, to one shard of each row: by a hash of its key id
//     when the row keeps an independent state per key (lab.Sharding), to
//     shard 0 otherwise.
//  2. decide (per shard, in parallel): a fresh limiter of the row decides
//     the shard's arrivals in sequence order (simulator.DecideShard).
//  3. assemble (one bundle): every decision, by row and sequence number,
//     into lab.Plan.ReplayDecided, whose Result the lab renders.
//
// It lives in its own Go module so that Beam's dependencies (89
// modules, Google Cloud's clients among them) stay out of the main
// module and its binary.
package beamlab

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths, always
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
	"github.com/ratelimit-lab/ratelimit-lab/plots"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// Config is what the pipeline replays, the subset of run's flags it
// supports. It travels to the workers as JSON inside each DoFn.
type Config struct {
	// Trace is a CSV trace or an access log (gzipped or not) on any Beam
	// filesystem compiled in (a local path, gs://...).
	Trace string
	// TraceFormat, Keys, User and TimeField read an access log (run's
	// --trace-format, --key, --user, --time-field).
	TraceFormat string
	Keys        []string
	User        string
	TimeField   string
	// Specs are the rows (--algo); Limit replaces the trace's (none)
	// limit when LimitSet (--limit).
	Specs    []string
	Limit    float64
	LimitSet bool
	// Bin and Window are run's --bin and --window.
	Bin, Window time.Duration
	// Out is the output directory on any Beam filesystem.
	Out string
	// Shards is how many shards a per-key row is split into.
	Shards int
}

// DefaultConfig has run's defaults and 16 shards.
func DefaultConfig() Config {
	return Config{Bin: lab.DefaultBin, Window: lab.DefaultWindow, Shards: 16}
}

// options are the lab's options of c with trace at local.
func (c Config) options(local string) lab.Options {
	o := lab.DefaultOptions()
	o.Source = lab.Source{Trace: local, TraceFormat: c.TraceFormat, Keys: c.Keys, User: c.User, TimeField: c.TimeField,
		Limit: c.Limit, LimitSet: c.LimitSet}
	o.Specs, o.Bin, o.Window, o.Out = c.Specs, c.Bin, c.Window, c.Out
	o.Chart, o.HTML = "none", false
	return o
}

// Check validates c as run would, before a pipeline is built: every flag,
// the trace (read once, through its filesystem) and every row's being
// decidable shard by shard. It returns the notes of rows decided in one
// shard.
func Check(ctx context.Context, c Config) ([]string, error) {
	if c.Shards < 1 {
		return nil, fmt.Errorf("--shards must be 1 or more, got %d (for example --shards 16)", c.Shards)
	}
	if c.Trace == "" {
		return nil, fmt.Errorf("no --trace: give the CSV trace or access log to replay (a local path or a Beam filesystem path such as gs://bucket/trace.csv)")
	}
	if c.Out == "" {
		return nil, fmt.Errorf("no --out: give the output directory (a local path or a Beam filesystem path)")
	}
	st, err := open(ctx, c)
	if err != nil {
		return nil, err
	}
	return st.sharding.Notes(), nil
}

// state is a worker's plan of a Config: the trace copied to a local file,
// the plan and its arrivals read once (the key table).
type state struct {
	plan     *lab.Plan
	sharding *lab.Sharding
}

var (
	statesMu sync.Mutex
	states   = map[string]*state{}
)

// open returns the worker's state of c, made once per process.
func open(ctx context.Context, c Config) (*state, error) {
	key, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	statesMu.Lock()
	defer statesMu.Unlock()
	if st := states[string(key)]; st != nil {
		return st, nil
	}
	local, err := localCopy(ctx, c.Trace)
	if err != nil {
		return nil, err
	}
	p, err := lab.NewPlan(ctx, c.options(local))
	if err != nil {
		return nil, err
	}
	s, err := p.Sharding(ctx, nil)
	if err != nil {
		p.Close()
		return nil, err
	}
	st := &state{plan: p, sharding: s}
	states[string(key)] = st
	return st, nil
}

// hasScheme says whether p names a Beam filesystem other than the local
// one (gs://, s3://, memfs://).
func hasScheme(p string) bool {
	i := strings.Index(p, "://")
	return i > 0 && !strings.ContainsAny(p[:i], `/\`)
}

// localCopy is a local path holding the trace: the path itself when it is
// a local file, else a copy (same base name, so the run's name and its
// gzip detection are run's) read through Beam's filesystem.
func localCopy(ctx context.Context, trace string) (string, error) {
	if !hasScheme(trace) {
		if _, err := os.Stat(trace); err != nil {
			return "", fmt.Errorf("--trace %s: %v; give a readable trace file", trace, err)
		}
		return trace, nil
	}
	fs, err := filesystem.New(ctx, trace)
	if err != nil {
		return "", fmt.Errorf("--trace %s: %v", trace, err)
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, trace)
	if err != nil {
		return "", fmt.Errorf("--trace %s: %v", trace, err)
	}
	defer r.Close()
	dir, err := os.MkdirTemp("", "ratelimit-lab-beam-")
	if err != nil {
		return "", err
	}
	local := filepath.Join(dir, path.Base(trace))
	f, err := os.Create(local)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return "", fmt.Errorf("--trace %s: reading it: %v", trace, err)
	}
	return local, f.Close()
}

// Build adds the replay of c to the pipeline's scope s.
func Build(s beam.Scope, c Config) {
	s = s.Scope("ratelimit-lab")
	imp := beam.Impulse(s)
	arrivals := beam.ParDo(s, &readFn{C: c}, imp)
	shards := beam.GroupByKey(s, arrivals)
	decided := beam.ParDo(s, &decideFn{C: c}, shards)
	all := beam.GroupByKey(s, decided)
	beam.ParDo0(s, &assembleFn{C: c}, all)
}

func init() {
	register.DoFn3x1[context.Context, []byte, func(int64, []byte), error](&readFn{})
	register.Emitter2[int64, []byte]()
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func(int, []byte), error](&decideFn{})
	register.Emitter2[int, []byte]()
	register.Iter1[[]byte]()
	register.DoFn3x1[context.Context, int, func(*[]byte) bool, error](&assembleFn{})
}

// shardKey is the group of row i's shard k.
func shardKey(i, shards, k int) int64 { return int64(i)*int64(shards) + int64(k) }

// shardOf is the shard of key id among n: a hash, so that interned ids
// (dense, in order of appearance) spread evenly; an empty key goes to 0.
func shardOf(id int32, n int) int {
	if id < 0 || n == 1 {
		return 0
	}
	h := uint64(uint32(id)) * 0x9E3779B97F4A7C15
	return int((h >> 32) % uint64(n))
}

// readFn reads the trace once, in order, and sends each arrival to one
// shard of every row. Shard 0 of every row also gets a marker (sequence
// −1), so that a row is decided even when the trace has no arrival.
type readFn struct{ C Config }

func (f *readFn) ProcessElement(ctx context.Context, _ []byte, emit func(int64, []byte)) error {
	local, err := localCopy(ctx, f.C.Trace)
	if err != nil {
		return err
	}
	p, err := lab.NewPlan(ctx, f.C.options(local))
	if err != nil {
		return err
	}
	defer p.Close()
	rows := len(p.Specs())
	for i := range rows {
		emit(shardKey(i, f.C.Shards, 0), encodeArrival(nil, -1, &scenarios.Arrival{}))
	}
	buf := make([]byte, 0, arrivalSize)
	s, err := p.Sharding(ctx, func(seq int64, a *scenarios.Arrival, cols []int) error {
		for i, c := range cols {
			k := 0
			if c >= 0 {
				k = shardOf(a.Keys[c], f.C.Shards)
			}
			buf = encodeArrival(buf[:0], seq, a)
			emit(shardKey(i, f.C.Shards, k), slices.Clone(buf))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.Close()
}

// decideFn decides one shard of one row with a fresh limiter, in
// sequence order.
type decideFn struct{ C Config }

// shardOut is a shard's decisions and its limiter's state at the end.
type shardOut struct {
	Row   int
	Seqs  []int64
	Ds    []algorithms.Decision
	State simulator.RowState
}

func (f *decideFn) ProcessElement(ctx context.Context, key int64, values func(*[]byte) bool, emit func(int, []byte)) error {
	st, err := open(ctx, f.C)
	if err != nil {
		return err
	}
	row := int(key / int64(f.C.Shards))
	var seqs []int64
	var arr []scenarios.Arrival
	var v []byte
	for values(&v) {
		seq, a, err := decodeArrival(v)
		if err != nil {
			return err
		}
		if seq < 0 {
			continue // the row's marker
		}
		seqs = append(seqs, seq)
		arr = append(arr, a)
	}
	// A group comes in any order: decide in the stream's.
	idx := make([]int, len(seqs))
	for j := range idx {
		idx[j] = j
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpInt64(seqs[a], seqs[b]) })
	sortedSeqs := make([]int64, len(idx))
	sortedArr := make([]scenarios.Arrival, len(idx))
	for j, k := range idx {
		sortedSeqs[j], sortedArr[j] = seqs[k], arr[k]
	}
	ds, rs, err := st.sharding.Decide(row, sortedArr)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(shardOut{Row: row, Seqs: sortedSeqs, Ds: ds, State: rs}); err != nil {
		return err
	}
	emit(0, b.Bytes())
	return nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// assembleFn brings every shard's decisions into one pass of the lab's
// accumulators and writes the files.
type assembleFn struct{ C Config }

func (f *assembleFn) ProcessElement(ctx context.Context, _ int, values func(*[]byte) bool) error {
	local, err := localCopy(ctx, f.C.Trace)
	if err != nil {
		return err
	}
	p, err := lab.NewPlan(ctx, f.C.options(local))
	if err != nil {
		return err
	}
	defer p.Close()
	rows := len(p.Specs())
	decided := make([][]algorithms.Decision, rows)
	parts := make([][]simulator.RowState, rows)
	var v []byte
	for values(&v) {
		var out shardOut
		if err := gob.NewDecoder(bytes.NewReader(v)).Decode(&out); err != nil {
			return err
		}
		if out.Row < 0 || out.Row >= rows {
			return fmt.Errorf("a shard of row %d, and the plan has %d rows", out.Row, rows)
		}
		d := decided[out.Row]
		for j, seq := range out.Seqs {
			if seq >= int64(len(d)) {
				d = slices.Grow(d, int(seq)+1-len(d))[:seq+1]
			}
			d[seq] = out.Ds[j]
		}
		decided[out.Row] = d
		parts[out.Row] = append(parts[out.Row], out.State)
	}
	states := make([]simulator.RowState, rows)
	for i := range states {
		states[i] = simulator.MergeRowStates(parts[i])
	}
	var missing error
	res, err := p.ReplayDecided(ctx, lab.Hooks{}, func(row int, seq int64) algorithms.Decision {
		if seq >= int64(len(decided[row])) {
			if missing == nil {
				missing = fmt.Errorf("row %d has no decision for arrival %d", row, seq)
			}
			return algorithms.Decision{}
		}
		return decided[row][seq]
	}, states)
	if err != nil {
		return err
	}
	if missing != nil {
		return missing
	}
	_, err = lab.WriteRunFiles(ctx, &outDir{ctx: ctx, dir: f.C.Out}, res, lab.FileOptions{Chart: plots.ChartOptions{Mode: "none"}})
	return err
}

// outDir writes files into a directory of any Beam filesystem.
type outDir struct {
	ctx context.Context
	dir string
}

func (o *outDir) WriteFile(name string, write func(io.Writer) error) error {
	full := strings.TrimSuffix(o.dir, "/") + "/" + name
	if !hasScheme(o.dir) {
		if err := os.MkdirAll(o.dir, 0o755); err != nil {
			return fmt.Errorf("--out %s: %v", o.dir, err)
		}
		full = filepath.Join(o.dir, name)
	}
	fs, err := filesystem.New(o.ctx, full)
	if err != nil {
		return fmt.Errorf("--out %s: %v", o.dir, err)
	}
	defer fs.Close()
	w, err := fs.OpenWrite(o.ctx, full)
	if err != nil {
		return fmt.Errorf("--out %s: %v", o.dir, err)
	}
	if err := write(w); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// arrivalSize is the encoded size of a sequence number and an arrival.
const arrivalSize = 8 + 8 + 8 + 1 + 8 + 4*scenarios.MaxKeyColumns + 4 + 4 + 4 + 4

// encodeArrival appends seq and a to b.
func encodeArrival(b []byte, seq int64, a *scenarios.Arrival) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(seq))
	b = binary.LittleEndian.AppendUint64(b, uint64(a.At))
	b = binary.LittleEndian.AppendUint64(b, uint64(a.Clock))
	var flags byte
	if a.HasResponse {
		flags |= 1
	}
	if a.Failed {
		flags |= 2
	}
	if a.Priority {
		flags |= 4
	}
	b = append(b, flags)
	b = binary.LittleEndian.AppendUint64(b, uint64(a.RT))
	for _, k := range a.Keys {
		b = binary.LittleEndian.AppendUint32(b, uint32(k))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(a.User))
	b = binary.LittleEndian.AppendUint32(b, uint32(a.Cost))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(a.CPU))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(a.Load1))
	return b
}

// decodeArrival reads what encodeArrival wrote.
func decodeArrival(b []byte) (int64, scenarios.Arrival, error) {
	var a scenarios.Arrival
	if len(b) != arrivalSize {
		return 0, a, fmt.Errorf("an encoded arrival of %d bytes, want %d", len(b), arrivalSize)
	}
	u64 := func() uint64 { v := binary.LittleEndian.Uint64(b); b = b[8:]; return v }
	u32 := func() uint32 { v := binary.LittleEndian.Uint32(b); b = b[4:]; return v }
	seq := int64(u64())
	a.At, a.Clock = time.Duration(u64()), time.Duration(u64())
	flags := b[0]
	b = b[1:]
	a.HasResponse, a.Failed, a.Priority = flags&1 != 0, flags&2 != 0, flags&4 != 0
	a.RT = time.Duration(u64())
	for i := range a.Keys {
		a.Keys[i] = int32(u32())
	}
	a.User, a.Cost = int32(u32()), int32(u32())
	a.CPU, a.Load1 = math.Float32frombits(u32()), math.Float32frombits(u32())
	return seq, a, nil
}

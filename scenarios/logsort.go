package scenarios

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// sortChunk is how many arrivals --sort holds in memory (32 bytes each,
// 16 MiB) before it sorts them and spills them as one run to a temporary
// file; a variable so tests can spill small logs.
var sortChunk = 1 << 19

// sortRec is one arrival of an access log as --sort keeps it: its time
// (from the stream's 0) and its key and user ids in the stream's table.
type sortRec struct {
	at   int64
	keys [MaxKeyColumns]int32
	user int32
}

// recSize is the size of a sortRec in a run file (little endian).
const recSize = 8 + 4*MaxKeyColumns + 4

func (r *sortRec) put(b []byte) {
	binary.LittleEndian.PutUint64(b, uint64(r.at))
	for i, k := range r.keys {
		binary.LittleEndian.PutUint32(b[8+4*i:], uint32(k))
	}
	binary.LittleEndian.PutUint32(b[8+4*MaxKeyColumns:], uint32(r.user))
}

func (r *sortRec) get(b []byte) {
	r.at = int64(binary.LittleEndian.Uint64(b))
	for i := range r.keys {
		r.keys[i] = int32(binary.LittleEndian.Uint32(b[8+4*i:]))
	}
	r.user = int32(binary.LittleEndian.Uint32(b[8+4*MaxKeyColumns:]))
}

func byTime(a, b sortRec) int { return cmp.Compare(a.at, b.at) }

// sortedLog replays an access log in time order, equal times in line
// order (--sort, --time start). On its first Next it reads the whole log
// through its logStream (which interns the keys as usual), sorting chunks
// of sortChunk arrivals stably by time; a log that fits one chunk is
// replayed from memory, a larger one is spilled as sorted runs to files in
// a temporary directory under os.TempDir and merged k ways, ties going to
// the earlier run, so the order is stable and memory stays bounded by one
// chunk plus one buffered reader per run. Close removes the directory (an
// error or a cancelled run closes the stream too).
//
// github.com/lanrat/extsort would do the spilling, but its package doc
// says it is an unstable external sort (sort_generic.go: chunks sorted by
// slices.SortFunc on parallel workers), so equal times would need a line
// number in every record and goroutines besides; the merge here is a
// hundred lines with no dependency.
type sortedLog struct {
	*logStream
	started bool
	err     error
	mem     []sortRec
	memPos  int
	dir     string
	runs    []*sortRun
	heap    []int // indices of runs with a record left, by (cur.at, index)
}

// sortRun is one spilled run being merged.
type sortRun struct {
	f   *os.File
	r   *bufio.Reader
	cur sortRec
	buf [recSize]byte
}

func newSortedLog(s *logStream) *sortedLog { return &sortedLog{logStream: s} }

// StepsBack is zero: the replay is in time order.
func (t *sortedLog) StepsBack() (int64, time.Duration) { return 0, 0 }

func (t *sortedLog) Err() error {
	if t.err != nil {
		return t.err
	}
	return t.logStream.Err()
}

func (t *sortedLog) Close() error {
	t.cleanup()
	return t.logStream.Close()
}

// cleanup closes and removes every run file.
func (t *sortedLog) cleanup() {
	for _, r := range t.runs {
		if r.f != nil {
			r.f.Close()
			r.f = nil
		}
	}
	t.heap = t.heap[:0]
	if t.dir != "" {
		os.RemoveAll(t.dir)
		t.dir = ""
	}
}

func (t *sortedLog) Next() (Arrival, bool) {
	if !t.started {
		t.started = true
		if err := t.sort(); err != nil {
			t.err = err
			t.cleanup()
			t.mem = nil
			return Arrival{}, false
		}
	}
	var r sortRec
	if t.runs == nil {
		if t.memPos >= len(t.mem) {
			t.mem = nil
			return Arrival{}, false
		}
		r = t.mem[t.memPos]
		t.memPos++
	} else {
		if len(t.heap) == 0 {
			t.cleanup()
			return Arrival{}, false
		}
		i := t.heap[0]
		r = t.runs[i].cur
		ok, err := t.runs[i].next()
		if err != nil {
			t.err = fmt.Errorf("%s: --sort cannot read back its temporary file (%v); check the space under %s", t.name, err, os.TempDir())
			t.cleanup()
			return Arrival{}, false
		}
		if !ok {
			t.runs[i].f.Close()
			t.runs[i].f = nil
			last := len(t.heap) - 1
			t.heap[0] = t.heap[last]
			t.heap = t.heap[:last]
		}
		t.down(0)
	}
	at := time.Duration(r.at)
	return Arrival{At: at, Clock: at, Keys: r.keys, User: r.user}, true
}

// sort reads the log and leaves it sorted in memory or in runs.
func (t *sortedLog) sort() error {
	chunk := make([]sortRec, 0, min(sortChunk, 4096))
	for {
		a, ok := t.logStream.Next()
		if !ok {
			break
		}
		chunk = append(chunk, sortRec{at: int64(a.At), keys: a.Keys, user: a.User})
		if len(chunk) >= sortChunk {
			if err := t.spill(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
	}
	if err := t.logStream.Err(); err != nil {
		return err
	}
	if t.runs == nil {
		slices.SortStableFunc(chunk, byTime)
		t.mem = chunk
		return nil
	}
	if len(chunk) > 0 {
		if err := t.spill(chunk); err != nil {
			return err
		}
	}
	for i, r := range t.runs {
		if _, err := r.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("%s: --sort cannot read back its temporary file (%v)", t.name, err)
		}
		r.r = bufio.NewReaderSize(r.f, 64<<10)
		ok, err := r.next()
		if err != nil {
			return fmt.Errorf("%s: --sort cannot read back its temporary file (%v)", t.name, err)
		}
		if ok {
			t.heap = append(t.heap, i)
		}
	}
	for i := len(t.heap)/2 - 1; i >= 0; i-- {
		t.down(i)
	}
	return nil
}

// spill sorts chunk and writes it as a new run.
func (t *sortedLog) spill(chunk []sortRec) error {
	slices.SortStableFunc(chunk, byTime)
	fail := func(err error) error {
		return fmt.Errorf("%s: --sort cannot write its temporary run of %d lines (%v); set TMPDIR to a directory with space", t.name, len(chunk), err)
	}
	if t.dir == "" {
		dir, err := os.MkdirTemp("", "ratelimit-lab-sort-*")
		if err != nil {
			return fail(err)
		}
		t.dir = dir
	}
	f, err := os.Create(filepath.Join(t.dir, fmt.Sprintf("run-%d", len(t.runs))))
	if err != nil {
		return fail(err)
	}
	t.runs = append(t.runs, &sortRun{f: f})
	w := bufio.NewWriterSize(f, 64<<10)
	var b [recSize]byte
	for i := range chunk {
		chunk[i].put(b[:])
		w.Write(b[:])
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	return nil
}

// next reads the run's next record into cur.
func (r *sortRun) next() (bool, error) {
	if _, err := io.ReadFull(r.r, r.buf[:]); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	r.cur.get(r.buf[:])
	return true, nil
}

func (t *sortedLog) less(i, j int) bool {
	a, b := t.runs[t.heap[i]], t.runs[t.heap[j]]
	return a.cur.at < b.cur.at || a.cur.at == b.cur.at && t.heap[i] < t.heap[j]
}

func (t *sortedLog) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(t.heap) {
			return
		}
		c := l
		if r := l + 1; r < len(t.heap) && t.less(r, l) {
			c = r
		}
		if !t.less(c, i) {
			return
		}
		t.heap[i], t.heap[c] = t.heap[c], t.heap[i]
		i = c
	}
}

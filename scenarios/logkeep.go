package scenarios

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// Kept arrivals: ScanLog's validating pass reads and parses every line of
// a trace before the replay, and the replay used to read and parse them
// all again (issue 27: a third of a per-address log's run). With
// LogOptions.Keep, the pass interns the keys it reads and keeps each
// arrival (its time and key ids) in a compact form; OpenLog given
// LogInfo.Kept then replays those arrivals, with the pass's key table,
// instead of reading the file again. The ids are the ones the replay's
// own reading would give (both intern in line order into a fresh table),
// so every arrival is the same; only a pass that succeeded keeps anything,
// so a bad line still stops the run before any output.
//
// Kept is taken once: the first OpenLog replays it, later ones read the
// file; a stream closed early, before its first block is let go (a
// --rules run peeks at the first arrival before the replay), gives it
// back for the next OpenLog. The pass keeps nothing (and interns nothing, as before) when the
// trace is likely to hold more than keepLines arrivals, and drops what it
// kept (and stops interning) when the kept bytes pass keepMax: memory for
// the kept arrivals stays bounded and a large trace is read twice as
// before. Sorted logs (--sort, --time start) and CSV traces with columns
// besides t_ms, keys and user are not kept.

// keepLines is the most arrivals a trace is estimated to have for its
// pass to keep them; keepMax bounds the kept bytes (about 4 to 7 bytes an
// arrival). Variables so tests can make them small.
var (
	keepLines = int64(4 << 20)
	keepMax   = 32 << 20
)

// keepChunk is the size of one block of kept bytes (blocks never move).
const keepChunk = 1 << 20

// maxKeptEntry bounds one arrival's encoding: a time and MaxKeyColumns
// key ids and a user id, as varints.
const maxKeptEntry = binary.MaxVarintLen64 + (MaxKeyColumns+1)*binary.MaxVarintLen32

// Kept holds the arrivals of a trace that ScanLog read (LogInfo.Kept), for
// OpenLog (LogOptions.Kept) to replay instead of reading the file again.
type Kept struct {
	taken atomic.Bool

	chunks [][]byte
	size   int
	n      int64
	prev   time.Duration // the last time kept (the delta's base)
	// stored says, per slot (the key columns, then the user), whether the
	// slot is kept (src < 0) or a copy of an earlier slot (src[i] = j):
	// a log keyed --key ip has the columns key and ip, both the address.
	src   [MaxKeyColumns + 1]int8
	slots int // how many key columns the arrivals carry
	user  bool
	shift time.Duration // subtracted from every kept time (ScanLog's Start)

	// What the replay's stream says besides its arrivals.
	table   *KeyTable
	cols    Columns
	keyCols []string
	log     bool  // an access log (steps back are errors, so none are counted)
	plain   bool  // a CSV trace of t_ms alone (its arrivals have ids 0)
	origin  int64 // Unix ns of the log's 0
	reopen  func() (Stream, error)
}

// add keeps one arrival; false once the kept bytes pass keepMax (the
// caller then drops k).
func (k *Kept) add(a *Arrival) bool {
	if len(k.chunks) == 0 || cap(k.chunks[len(k.chunks)-1])-len(k.chunks[len(k.chunks)-1]) < maxKeptEntry {
		if k.size+keepChunk > keepMax {
			return false
		}
		k.chunks = append(k.chunks, make([]byte, 0, keepChunk))
		k.size += keepChunk
	}
	c := &k.chunks[len(k.chunks)-1]
	// The difference wraps like the uint64s it is made of, and zigzag is
	// a bijection of 64 bits: decoding adds it back exactly.
	d := int64(uint64(a.At) - uint64(k.prev))
	b := binary.AppendUvarint(*c, uint64(d<<1)^uint64(d>>63))
	for i := 0; i < k.slots; i++ {
		if k.src[i] < 0 {
			b = binary.AppendUvarint(b, uint64(uint32(a.Keys[i]+1)))
		}
	}
	if k.user && k.src[MaxKeyColumns] < 0 {
		b = binary.AppendUvarint(b, uint64(uint32(a.User+1)))
	}
	*c = b
	k.prev = a.At
	k.n++
	return true
}

// take returns k's arrivals as a stream, once; nil after the first call.
func (k *Kept) take() *keptStream {
	if k == nil || !k.taken.CompareAndSwap(false, true) {
		return nil
	}
	s := &keptStream{k: k, chunks: k.chunks, all: k.chunks, left: k.n}
	k.chunks = nil // the stream holds them: freed as it reads them
	return s
}

// giveBack returns the arrivals of a stream closed before its end and
// before it let go of any block (a caller that peeked at the first arrival, as a --rules run
// checks the columns before the replay): the next OpenLog replays them
// from the start. The table is the same; nothing but a key=* row
// (ReadFile, which gives nothing back) interns into it.
func (k *Kept) giveBack(s *keptStream) {
	if s.released || s.file != nil || s.all == nil || s.left == 0 {
		return
	}
	k.chunks, s.all = s.all, nil
	k.taken.Store(false)
}

// keptStream replays kept arrivals.
type keptStream struct {
	k      *Kept
	file   Stream // the file's stream, after ReadFile
	chunks [][]byte
	// all is every block while none has been let go (released false),
	// for giveBack.
	all      [][]byte
	released bool
	pos      int
	left     int64
	prev     time.Duration // the last time decoded (the delta's base)
	// The steps back of a CSV trace, counted as its stream counts them.
	last    time.Duration
	started bool
	back    int64
	largest time.Duration
}

func uvarintAt(b []byte, pos int) (uint64, int) {
	if c := b[pos]; c < 0x80 {
		return uint64(c), pos + 1
	}
	v, n := binary.Uvarint(b[pos:])
	return v, pos + n
}

func (s *keptStream) Next() (Arrival, bool) {
	if s.left <= 0 {
		if s.file != nil {
			return s.file.Next()
		}
		s.chunks = nil
		return Arrival{}, false
	}
	s.left--
	if s.pos >= len(s.chunks[0]) {
		s.chunks[0] = nil
		s.chunks, s.pos = s.chunks[1:], 0
		s.released, s.all = true, nil
	}
	b := s.chunks[0]
	k := s.k
	z, p := uvarintAt(b, s.pos)
	d := int64(z>>1) ^ -int64(z&1)
	t := time.Duration(uint64(s.prev) + uint64(d))
	s.prev = t
	s.pos = p
	if k.plain {
		// t_ms alone: the file's stream leaves the key and user ids 0.
		return s.emit(Arrival{}, t)
	}
	a := Arrival{Keys: [MaxKeyColumns]int32{NoKey, NoKey, NoKey, NoKey}, User: NoKey}
	for i := 0; i < k.slots; i++ {
		if j := k.src[i]; j >= 0 {
			a.Keys[i] = a.Keys[j]
			continue
		}
		var v uint64
		v, p = uvarintAt(b, p)
		a.Keys[i] = int32(uint32(v)) - 1
	}
	if k.user {
		if j := k.src[MaxKeyColumns]; j >= 0 {
			a.User = a.Keys[j]
		} else {
			var v uint64
			v, p = uvarintAt(b, p)
			a.User = int32(uint32(v)) - 1
		}
	}
	s.pos = p
	return s.emit(a, t)
}

// emit sets a's time from the kept time t and counts a CSV trace's steps
// back.
func (s *keptStream) emit(a Arrival, t time.Duration) (Arrival, bool) {
	k := s.k
	a.At = t - k.shift
	a.Clock = a.At
	if !k.log {
		if s.started && a.At < s.last {
			s.back++
			s.largest = max(s.largest, s.last-a.At)
		}
		s.started, s.last = true, a.At
	}
	return a, true
}

func (s *keptStream) Err() error {
	if s.file != nil {
		return s.file.Err()
	}
	return nil
}

func (s *keptStream) Close() error {
	s.k.giveBack(s)
	s.chunks, s.left = nil, 0
	if s.file != nil {
		return s.file.Close()
	}
	return nil
}

// KeyColumns names the key columns, as the file's stream does.
func (s *keptStream) KeyColumns() []string { return s.k.keyCols }

// KeyTable is the table of ScanLog's pass, which interned the keys (or
// the file's stream's after ReadFile).
func (s *keptStream) KeyTable() *KeyTable {
	if s.file != nil {
		return s.file.(KeyedStream).KeyTable()
	}
	return s.k.table
}

// Columns says what the arrivals carry, as the file's stream does.
func (s *keptStream) Columns() Columns { return s.k.cols }

// StepsBack counts the times below the one before them so far (a log's
// are errors of the pass, so it has none).
func (s *keptStream) StepsBack() (int64, time.Duration) {
	if st, ok := s.file.(interface {
		StepsBack() (int64, time.Duration)
	}); ok {
		return st.StepsBack()
	}
	return s.back, s.largest
}

// Origin is the absolute time of a log's 0.
func (s *keptStream) Origin() time.Time { return time.Unix(0, s.k.origin).UTC() }

// ReadFile has the stream, before its first arrival, read the trace from
// its file again, with a fresh key table, and drop the kept arrivals: for
// a run that interns a key of its own into the stream's table after the
// first arrival (a limiter keyed key=*), as into the file's stream's, so
// every id stays what the file's reading gives.
func (s *keptStream) ReadFile() error {
	if s.file != nil {
		return nil
	}
	if s.left != s.k.n {
		return errors.New("ReadFile after the first arrival")
	}
	f, err := s.k.reopen()
	if err != nil {
		return err
	}
	if _, ok := f.(KeyedStream); !ok {
		f.Close()
		return errors.New("the trace's file stream has no key table")
	}
	s.file, s.chunks, s.all, s.left = f, nil, nil, 0
	return nil
}

// estimateLines guesses how many lines the trace at path holds from its
// size (a gzipped file's uncompressed size from its trailer) and the mean
// length of the sampled lines.
func estimateLines(path string, sample []byte) int64 {
	f, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return -1
	}
	size := fi.Size()
	var magic [2]byte
	if _, err := f.ReadAt(magic[:], 0); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		var tr [4]byte
		if _, err := f.ReadAt(tr[:], size-4); err != nil {
			return -1
		}
		// ISIZE is the last member's size mod 2^32: never below the
		// compressed size for text, else take ten times it.
		if u := int64(binary.LittleEndian.Uint32(tr[:])); u >= size {
			size = u
		} else {
			size *= 10
		}
	}
	lines := int64(1)
	for _, c := range sample {
		if c == '\n' {
			lines++
		}
	}
	if len(sample) == 0 {
		return 0
	}
	return size * lines / int64(len(sample))
}

var _ io.Closer = (*keptStream)(nil)

// keeper returns a Kept for the trace's pass, and has the pass intern its
// cells, or nil when the trace is likely too large to keep or has columns
// besides t_ms, keys and user (its header is read here).
func (t *traceStream) keeper(path, name string, o LogOptions) *Kept {
	in, ok := t.closer.(*input)
	if !ok || t.line != 0 {
		return nil
	}
	if n := estimateLines(path, peekSample(in.br)); n < 0 || n > keepLines {
		return nil
	}
	cols := t.Columns() // reads the header
	if t.done {
		return nil
	}
	k := &Kept{table: t.keys, cols: cols, keyCols: t.KeyColumns()}
	for i := range k.src {
		k.src[i] = -1
	}
	if t.named != nil {
		for _, kind := range t.named.kind {
			if kind != colKey && kind != colUser {
				return nil
			}
		}
		k.slots, k.user = len(cols.Keys), cols.User
	} else if t.cols != 1 {
		return nil // t_ms,rt_ms[,error]
	} else {
		k.plain = true
	}
	k.reopen = func() (Stream, error) { return OpenLog(path, name, o) }
	t.keeping = true
	return k
}

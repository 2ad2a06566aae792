package htmlreport

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math"
)

// How the page stores a series.
//
// A series of n bins is kept as a min–max pyramid: level 0 holds every
// bin's value; level k ≥ 1 holds, for each group of Fanout^k consecutive
// bins, the smallest and the largest of their values. Levels stop at the
// first one with at most TopPoints groups. The page draws, for the range
// on screen, the finest level that gives at most two points per pixel, so
// a first view of a long run reads only the small top level, and a zoom
// down to a few thousand bins reads level 0: the bins themselves.
//
// Each array is stored as little-endian int32 (when every value is a whole
// number that fits) or float32, its bytes regrouped into planes (every
// value's first byte, then every second byte, ...: the high bytes of
// counts are mostly zero and compress to nothing), gzipped and base64'd.
// The page inflates an array with the browser's DecompressionStream only
// when a view needs it. Identical arrays (the arrivals of every limiter,
// the all-zero waits of a limiter that never queues) are stored once.

const (
	// Fanout is the number of groups of one level that make a group of the
	// next.
	Fanout = 8
	// TopPoints is the most groups the top level may have.
	TopPoints = 4096
)

// Array kinds.
const (
	kindInt32   = "i32"
	kindFloat32 = "f32"
)

// blob is one stored array.
type blob struct {
	Kind string `json:"k"`
	N    int    `json:"n"`
	data string // base64 of the gzipped planes; written in its own element
}

// Level is one level of a series' pyramid: indices into the page's arrays.
// Level 0 has V (the bins); higher levels have Min and Max.
type Level struct {
	Group int `json:"g"`
	V     int `json:"v"`
	Min   int `json:"lo"`
	Max   int `json:"hi"`
}

// Series is one stored series: its pyramid and the range of its values.
type Series struct {
	Levels []Level `json:"levels"`
	// Lo and Hi are the smallest and largest value; Zero is true when
	// every value is 0 (the page leaves such series out of its panels).
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	Zero bool    `json:"zero,omitempty"`
}

// store holds the arrays of a page, deduplicated.
type store struct {
	blobs []blob
	index map[[32]byte]int
	buf   bytes.Buffer
	zw    *gzip.Writer
}

func newStore() *store {
	return &store{index: map[[32]byte]int{}}
}

// add stores v and returns its index.
func (s *store) add(v []float64) int {
	kind := kindInt32
	for _, x := range v {
		if x != math.Trunc(x) || x < math.MinInt32 || x > math.MaxInt32 || math.IsNaN(x) {
			kind = kindFloat32
			break
		}
	}
	n := len(v)
	planes := make([]byte, 4*n)
	var word [4]byte
	for i, x := range v {
		if kind == kindInt32 {
			binary.LittleEndian.PutUint32(word[:], uint32(int32(x)))
		} else {
			binary.LittleEndian.PutUint32(word[:], math.Float32bits(float32(x)))
		}
		planes[i], planes[n+i], planes[2*n+i], planes[3*n+i] = word[0], word[1], word[2], word[3]
	}
	key := sha256.Sum256(append([]byte(kind), planes...))
	if i, ok := s.index[key]; ok {
		return i
	}
	s.buf.Reset()
	if s.zw == nil {
		s.zw, _ = gzip.NewWriterLevel(&s.buf, gzip.DefaultCompression)
	} else {
		s.zw.Reset(&s.buf)
	}
	s.zw.Write(planes)
	s.zw.Close()
	s.blobs = append(s.blobs, blob{Kind: kind, N: n, data: base64.StdEncoding.EncodeToString(s.buf.Bytes())})
	s.index[key] = len(s.blobs) - 1
	return len(s.blobs) - 1
}

// addSeries stores v as a pyramid.
func (s *store) addSeries(v []float64) Series {
	out := Series{Zero: true}
	seen := false
	for _, x := range v {
		if math.IsNaN(x) {
			continue
		}
		if !seen || x < out.Lo {
			out.Lo = x
		}
		if !seen || x > out.Hi {
			out.Hi = x
		}
		seen = true
		if x != 0 {
			out.Zero = false
		}
	}
	out.Levels = append(out.Levels, Level{Group: 1, V: s.add(v)})
	lo, hi := v, v
	for g := Fanout; len(lo) > TopPoints; g *= Fanout {
		lo, hi = reduce(lo, hi)
		out.Levels = append(out.Levels, Level{Group: g, Min: s.add(lo), Max: s.add(hi)})
	}
	return out
}

// reduce is one pyramid step: the min of each Fanout values of lo and the
// max of each Fanout values of hi (NaN, a bin without a value, counts only
// when the whole group has none).
func reduce(lo, hi []float64) (nlo, nhi []float64) {
	m := (len(lo) + Fanout - 1) / Fanout
	nlo, nhi = make([]float64, m), make([]float64, m)
	for j := range m {
		a, b := math.NaN(), math.NaN()
		for i := j * Fanout; i < min(len(lo), (j+1)*Fanout); i++ {
			if x := lo[i]; !math.IsNaN(x) && (math.IsNaN(a) || x < a) {
				a = x
			}
			if x := hi[i]; !math.IsNaN(x) && (math.IsNaN(b) || x > b) {
				b = x
			}
		}
		nlo[j], nhi[j] = a, b
	}
	return nlo, nhi
}

// decode reads back a stored array (for tests: the page does this in
// JavaScript).
func decode(b blob) ([]float64, error) {
	raw, err := base64.StdEncoding.DecodeString(b.data)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	var planes bytes.Buffer
	if _, err := planes.ReadFrom(zr); err != nil {
		return nil, err
	}
	p, n := planes.Bytes(), b.N
	out := make([]float64, n)
	for i := range n {
		u := binary.LittleEndian.Uint32([]byte{p[i], p[n+i], p[2*n+i], p[3*n+i]})
		if b.Kind == kindInt32 {
			out[i] = float64(int32(u))
		} else {
			out[i] = float64(math.Float32frombits(u))
		}
	}
	return out, nil
}

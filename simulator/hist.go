package simulator

import (
	"math/bits"
	"slices"
	"time"
)

// waitHist records the waits of the passes without keeping each one.
//
//   - A wait that is a whole number of milliseconds (including the zero wait
//     of an immediate pass, by far the common case, and every wait of the
//     Sentinel limiters, which run on a millisecond clock) is counted
//     exactly: in a dense slice indexed by milliseconds up to 65 535 ms,
//     in a map beyond.
//   - Any other wait goes to an HDR-style log-linear bucket: exact below
//     2048 ns, then 1024 sub-buckets per power of two, so a bucket spans
//     at most 1/1024 of its values; it is reported at its midpoint, within
//     0.05% of every wait it holds (well inside 0.1%).
//
// The maximum is kept exactly. Percentiles use the nearest-rank definition:
// the p-th percentile of n waits is the smallest recorded value v such that
// at least ceil(p/100·n) waits are ≤ v.
type waitHist struct {
	n     int64
	max   time.Duration
	zero  int64
	ms    []int64         // ms[i]: waits of exactly i ms, i ≥ 1
	msBig map[int64]int64 // whole-ms waits of 65 536 ms and more
	hdr   []int64         // log-linear buckets for the other waits
}

const (
	histDenseMs = 1 << 16
	hdrSubBits  = 10
	hdrSub      = 1 << hdrSubBits // sub-buckets per power of two
	hdrExact    = 2 * hdrSub      // values below are their own bucket
)

func (h *waitHist) add(w time.Duration) {
	h.n++
	if w > h.max {
		h.max = w
	}
	if w <= 0 {
		h.zero++
		return
	}
	if w%time.Millisecond == 0 {
		i := int64(w / time.Millisecond)
		if i < histDenseMs {
			if int(i) >= len(h.ms) {
				h.ms = slices.Grow(h.ms, int(i)+1-len(h.ms))[:i+1]
			}
			h.ms[i]++
			return
		}
		if h.msBig == nil {
			h.msBig = make(map[int64]int64)
		}
		h.msBig[i]++
		return
	}
	i := hdrIndex(uint64(w))
	if i >= len(h.hdr) {
		h.hdr = slices.Grow(h.hdr, i+1-len(h.hdr))[:i+1]
	}
	h.hdr[i]++
}

// hdrIndex maps v > 0 to its log-linear bucket.
func hdrIndex(v uint64) int {
	if v < hdrExact {
		return int(v)
	}
	k := bits.Len64(v) - 1 // v in [2^k, 2^(k+1)), k ≥ 11
	shift := k - hdrSubBits
	sub := int(v>>shift) - hdrSub // 0..hdrSub-1
	return hdrExact + (k-hdrSubBits-1)*hdrSub + sub
}

// hdrValue is the value reported for bucket i: its midpoint.
func hdrValue(i int) time.Duration {
	if i < hdrExact {
		return time.Duration(i)
	}
	j := i - hdrExact
	k := j/hdrSub + hdrSubBits + 1
	sub := j % hdrSub
	shift := k - hdrSubBits
	lo := uint64(hdrSub+sub) << shift
	return time.Duration(lo + (uint64(1)<<shift)/2)
}

type histPoint struct {
	v time.Duration
	n int64
}

// points returns the recorded values with their counts, ascending.
func (h *waitHist) points() []histPoint {
	var ps []histPoint
	if h.zero > 0 {
		ps = append(ps, histPoint{0, h.zero})
	}
	for i, c := range h.ms {
		if c > 0 {
			ps = append(ps, histPoint{time.Duration(i) * time.Millisecond, c})
		}
	}
	for i, c := range h.msBig {
		ps = append(ps, histPoint{time.Duration(i) * time.Millisecond, c})
	}
	for i, c := range h.hdr {
		if c > 0 {
			ps = append(ps, histPoint{hdrValue(i), c})
		}
	}
	slices.SortFunc(ps, func(a, b histPoint) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	return ps
}

// quantiles returns the nearest-rank percentiles ps (in percent) in order,
// each capped at the exact maximum; zeros when nothing was recorded.
func (h *waitHist) quantiles(ps ...float64) []time.Duration {
	out := make([]time.Duration, len(ps))
	if h.n == 0 {
		return out
	}
	pts := h.points()
	for k, p := range ps {
		rank := int64(ceilRank(p, h.n))
		var cum int64
		for _, pt := range pts {
			cum += pt.n
			if cum >= rank {
				out[k] = min(pt.v, h.max)
				break
			}
		}
	}
	return out
}

// ceilRank is the 1-based nearest rank ceil(p/100·n), clamped to [1, n].
func ceilRank(p float64, n int64) int64 {
	// Work in integers where possible so 99% of 100 is exactly 99.
	r := int64(p * float64(n) / 100)
	if float64(r)*100 < p*float64(n) {
		r++
	}
	return max(1, min(r, n))
}

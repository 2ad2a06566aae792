package simulator

// KeyStats is a keyed row's per-key statistics by key id: Len ids, each
// at At(id). The entries live in pages of keyStatPage that never move, so
// the table grows by adding a page, never by copying the whole table into
// one twice its size (issue 27: at 10⁶ keys a doubling array allocated
// 112 MB to end at 56, and the copy it left behind was most of the
// difference between the run's peak memory and what it keeps). The first
// page alone grows by doubling up to a full page, so a row with a few
// keys keeps a few entries.
type KeyStats struct {
	pages [][]KeyStat
	n     int
}

const (
	keyStatShift = 12
	keyStatPage  = 1 << keyStatShift
	keyStatMask  = keyStatPage - 1
)

// Len is one more than the largest id recorded (ids the row never saw,
// below it, have Requests 0).
func (s *KeyStats) Len() int { return s.n }

// At returns id's entry; id must be below Len.
func (s *KeyStats) At(id int) *KeyStat {
	return &s.pages[id>>keyStatShift][id&keyStatMask]
}

// grow makes ids below n valid (new entries are zero).
func (s *KeyStats) grow(n int) {
	if n <= s.n {
		return
	}
	s.n = n
	if len(s.pages) == 0 {
		s.pages = [][]KeyStat{nil}
	}
	if p := s.pages[0]; len(p) < min(n, keyStatPage) {
		q := make([]KeyStat, min(max(n, 2*len(p), 256), keyStatPage))
		copy(q, p)
		s.pages[0] = q
	}
	for len(s.pages)<<keyStatShift < n {
		s.pages = append(s.pages, make([]KeyStat, keyStatPage))
	}
}

// KeyStatsOf returns a table holding a copy of stats at ids 0..len-1 (for
// tests and callers that build a result by hand).
func KeyStatsOf(stats []KeyStat) KeyStats {
	var s KeyStats
	s.grow(len(stats))
	for id := range stats {
		*s.At(id) = stats[id]
	}
	return s
}

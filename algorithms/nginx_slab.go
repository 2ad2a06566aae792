package algorithms

// nginxSlab models how nginx's slab allocator (src/core/ngx_slab.c) fills
// a limit_req zone on 64-bit Linux with 4 KiB pages, to the point that
// decides what limit_req sees: whether ngx_slab_alloc_locked finds room
// for one more state.
//
//   - ngx_slab_init: the zone starts with the pool header (200 bytes), 9
//     slot heads and 9 stat records (56 bytes each); the rest is split
//     into pages of 4096 bytes, each with a 24-byte page record, and the
//     first page is aligned to 4096. A 10m zone has 2544 pages, 1m 254,
//     the 32k minimum 7.
//   - ngx_http_limit_req_init_zone allocates the shared context (80 bytes:
//     a 128-byte chunk, kept for ever) and the log context (22 bytes plus
//     the zone name: a small chunk on a page of its own).
//   - A state is 80 bytes plus the key (offsetof color in the rbtree node,
//     32, plus offsetof data in ngx_http_limit_req_node_t, 48), rounded up
//     to a power of two: 128 bytes for keys of at most 48 bytes, 32 to a
//     page; 256 (16 a page) up to 176 bytes, and so on up to 2048.
//   - A chunk comes from the first page on its size's list of pages with a
//     free chunk; a page leaves the list when full, comes back at the head
//     when a chunk of a full page is freed, and returns to the free pages
//     when its last chunk is freed. With no page on the list, a free page
//     is taken; with none, the allocation fails.
//
// States above 2048 bytes (keys over 1968 bytes) take whole pages; the
// model takes them from the free pages without asking for them to be
// contiguous, the one place where it is not exact.
type nginxSlab struct {
	pages     int32
	freePages []int32 // free page numbers (which one is taken does not matter)
	// By page, side by side (one cache line a page's alloc or free).
	page []slabPage
	// heads[shift] is the first page of that size's list, -1 when empty.
	heads [12]int32
}

// slabPage is a page's record in the model: chunks in use, the chunk
// shift, the links of its size's list (-1 ends; onList says whether it is
// on it). bytes counts it as the 14 bytes of its fields.
type slabPage struct {
	used, next, prev int32
	shift            int8
	onList           bool
}

const (
	ngxPageSize      = 4096
	ngxSlabPoolBytes = 200 // sizeof(ngx_slab_pool_t) on 64-bit Linux
	ngxSlabSlots     = 9   // ngx_pagesize_shift - min_shift = 12 - 3
	ngxSlabPageRec   = 24  // sizeof(ngx_slab_page_t)
	ngxSlabStatRec   = 32  // sizeof(ngx_slab_stat_t)
	// ngxNodeBytes is offsetof(ngx_rbtree_node_t, color) +
	// offsetof(ngx_http_limit_req_node_t, data).
	ngxNodeBytes = 80
	// NginxMinZone is the smallest zone nginx accepts: 8 pages.
	NginxMinZone = 8 * ngxPageSize
)

// NginxZonePages is how many slab pages a zone of size bytes holds.
func NginxZonePages(size int64) int64 {
	p := int64(ngxSlabPoolBytes + ngxSlabSlots*(ngxSlabPageRec+ngxSlabStatRec))
	rest := size - p
	pages := rest / (ngxPageSize + ngxSlabPageRec)
	start := (p + pages*ngxSlabPageRec + ngxPageSize - 1) / ngxPageSize * ngxPageSize
	if m := pages - (size-start)/ngxPageSize; m > 0 {
		pages -= m
	}
	return pages
}

// NginxStatesPerZone is how many states with keys of keyLen bytes a fresh
// zone of size bytes holds before it is full.
func NginxStatesPerZone(size int64, keyLen int) int64 {
	s := newNginxSlab(size)
	var n int64
	for {
		if _, ok := s.alloc(ngxNodeBytes + keyLen); !ok {
			return n
		}
		n++
	}
}

func newNginxSlab(size int64) *nginxSlab {
	n := int32(NginxZonePages(size))
	s := &nginxSlab{pages: n, page: make([]slabPage, n)}
	for i := range s.heads {
		s.heads[i] = -1
	}
	for p := n - 1; p >= 0; p-- {
		s.freePages = append(s.freePages, p)
	}
	// The log context: a small chunk on a page of its own, for ever.
	s.freePages = s.freePages[:len(s.freePages)-1]
	// The shared context (rbtree, sentinel, queue: 80 bytes).
	s.alloc(80)
	return s
}

// chunkShift is the shift of the chunk ngx_slab_alloc_locked uses for
// size bytes (size above 8).
func chunkShift(size int) int8 {
	var shift int8 = 1
	for s := size - 1; s > 1; s >>= 1 {
		shift++
	}
	return shift
}

// alloc allocates size bytes and returns the page it went to (for pages
// of their own, -(number of pages)).
func (s *nginxSlab) alloc(size int) (int32, bool) {
	if size > ngxPageSize/2 {
		k := (size + ngxPageSize - 1) / ngxPageSize
		if len(s.freePages) < k {
			return 0, false
		}
		s.freePages = s.freePages[:len(s.freePages)-k]
		return int32(-k), true
	}
	sh := chunkShift(size)
	per := int32(ngxPageSize >> sh)
	if p := s.heads[sh]; p >= 0 {
		pg := &s.page[p]
		pg.used++
		if pg.used == per {
			s.unlist(p)
		}
		return p, true
	}
	if len(s.freePages) == 0 {
		return 0, false
	}
	p := s.freePages[len(s.freePages)-1]
	s.freePages = s.freePages[:len(s.freePages)-1]
	s.page[p].shift, s.page[p].used = sh, 1
	if per > 1 {
		s.list(p)
	}
	return p, true
}

// free releases a chunk on page p (as alloc returned it).
func (s *nginxSlab) free(p int32) {
	if p < 0 {
		for range -p {
			s.freePages = append(s.freePages, 0)
		}
		return
	}
	pg := &s.page[p]
	if !pg.onList {
		s.list(p) // a full page comes back at the head
	}
	pg.used--
	if pg.used == 0 {
		s.unlist(p)
		s.freePages = append(s.freePages, p)
	}
}

func (s *nginxSlab) list(p int32) {
	pg := &s.page[p]
	h := s.heads[pg.shift]
	pg.next, pg.prev = h, -1
	if h >= 0 {
		s.page[h].prev = p
	}
	s.heads[pg.shift] = p
	pg.onList = true
}

func (s *nginxSlab) unlist(p int32) {
	pg := &s.page[p]
	if pg.prev >= 0 {
		s.page[pg.prev].next = pg.next
	} else {
		s.heads[pg.shift] = pg.next
	}
	if pg.next >= 0 {
		s.page[pg.next].prev = pg.prev
	}
	pg.onList = false
}

// bytes is the model's own memory as its figures count it: 14 bytes a
// page (slabPage's fields, unpadded) and the free list.
func (s *nginxSlab) bytes() int { return int(s.pages)*(4+1+4+4+1) + 4*cap(s.freePages) }

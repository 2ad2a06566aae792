package scenarios

import (
	"encoding/binary"
	"hash/maphash"
	"sync/atomic"
	"unsafe"
)

// KeyTable interns key strings: each distinct string gets the next int32
// id (dense, from 0, in first-seen order), once, so arrivals and per-key
// limiters carry ids in flat arrays and the strings are kept exactly once.
// One table serves every key column and the user column of a stream.
//
// Memory (issue 27: sized for the keys actually seen): each id has a
// 16-byte entry, in blocks of entryBlock entries that never move; a key
// of up to 15 bytes is kept in its entry (its bytes, zero-padded, and its
// length in the last byte), a longer one in chunks of an arena that never
// move either, the entry holding where. The lookup is an open-addressing
// table of 16-byte slots (id+1, the top 24 bits of the key's hash, its
// length and its first 8 bytes), at most half full and indexed by the
// hash's top bits, so a doubling moves the slots without hashing a key
// again (up to 2^24 slots). A key of up to 8 bytes is found in its slot
// alone; one of up to 15 bytes in its slot and its entry; a longer one
// reads the arena too. For keys of up to 15 bytes that is 48 to 80
// bytes a key (the slots 32 to 64, the entry 16; 50 at 10⁶ keys), against
// about 64 to 72 for a Go map of strings and a string each. Nothing in the slots, entries or
// arena is a pointer, so the garbage collector walks only the block and
// chunk lists.
//
// One goroutine, the stream's, interns; Name and Len may be called from
// others meanwhile (nginx-limit-req reads a new key's length on a row's
// goroutine while the stream interns the next ones): an intern writes the
// entry (and arena bytes) before it publishes the new count, the block
// and chunk lists are published again whenever one is added, before the
// count, and an entry or a key's bytes once published never change or
// move.
type KeyTable struct {
	seed maphash.Seed
	drop uint64 // hash bits cleared: none, but in tests of collisions

	hashAgain bool      // tests: a doubling hashes every key again
	slots     []keySlot // len a power of two, at most half full
	shift     uint      // 64 - log2(len(slots)): a hash's slot is h >> shift
	n         int32

	blocks [][]keyEntry // entry id is blocks[id>>entryShift][id&entryMask]
	chunks [][]byte     // arena chunks of the keys of 16 bytes or more
	chunk  []byte       // the chunk being filled (nil: none yet)
	cur    uint32       // its index in chunks
	fill   int          // the bytes used in it
	bytes  int64        // key bytes interned

	pubBlocks atomic.Pointer[[][]keyEntry] // blocks as last added to
	pubChunks atomic.Pointer[[][]byte]     // chunks as last added to
	pubN      atomic.Int32                 // n as last published
}

const (
	// keyChunk is the size of an arena chunk; a longer key gets its own.
	keyChunk = 64 << 10
	// entryShift: a block holds 1<<entryShift entries (64 KiB).
	entryShift = 12
	entryBlock = 1 << entryShift
	entryMask  = entryBlock - 1
	// shortKey is the longest key kept in its entry.
	shortKey = 15
	// longKey, in an entry's last byte, marks a key kept in the arena.
	longKey = 0xff
	// initSlots is the first slot table's size.
	initSlots = 1024
)

// keySlot is one lookup slot: id+1 (0: empty), meta (the key's hash's top
// 24 bits above its length, up to 255) and head, its first 8 bytes,
// little-endian, zero-padded.
type keySlot struct {
	id, meta uint32
	head     uint64
}

// keyEntry is an id's key: for up to shortKey bytes, the bytes zero-padded
// and the length in the last byte; for a longer key, the arena chunk's
// index (bytes 0-3), the offset in it (4-7) and the length (8-14, as 56
// bits little-endian), with longKey in the last byte.
type keyEntry [16]byte

// NewKeyTable returns an empty table.
func NewKeyTable() *KeyTable { return &KeyTable{seed: maphash.MakeSeed()} }

// hash is b's hash, as the slots take it.
func (k *KeyTable) hash(b []byte) uint64 { return maphash.Bytes(k.seed, b) &^ k.drop }

// Intern returns s's id, adding s if it is new. The empty string is NoKey.
func (k *KeyTable) Intern(s string) int32 {
	return k.InternBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// InternBytes is Intern for a byte slice; it allocates nothing per key
// (only the entry blocks, the arena's chunks and the slots' growth).
func (k *KeyTable) InternBytes(b []byte) int32 {
	n := len(b)
	if n == 0 {
		return NoKey
	}
	h := k.hash(b)
	meta := uint32(h>>32)&^0xff | uint32(min(n, 255))
	head, tail := keyWords(b)
	if k.slots == nil {
		k.slots, k.shift = make([]keySlot, initSlots), 64-10
	}
	mask := uint64(len(k.slots) - 1)
	i := h >> k.shift
	for {
		v := &k.slots[i]
		if v.id == 0 {
			break
		}
		if v.meta == meta && v.head == head {
			id := int32(v.id - 1)
			// A key of at most 8 bytes is its head and length: found
			// without reading its entry.
			if n <= 8 {
				return id
			}
			e := k.entry(id)
			if n <= shortKey {
				if binary.LittleEndian.Uint64(e[8:]) == tail {
					return id
				}
			} else if string(k.long(e)) == string(b) { // no allocation: a comparison
				return id
			}
		}
		i = (i + 1) & mask
	}
	id := k.add(b, head, tail)
	k.slots[i] = keySlot{id: uint32(id) + 1, meta: meta, head: head}
	if 2*int(k.n) > len(k.slots) {
		k.rehash(2 * len(k.slots))
	}
	return id
}

// keyWords returns b's first 8 bytes (head) and, for up to shortKey bytes,
// its entry's second half (tail): bytes 8 to 14 and the length in the top
// byte; both little-endian and zero-padded.
func keyWords(b []byte) (head, tail uint64) {
	n := len(b)
	switch {
	case n >= 16:
		return binary.LittleEndian.Uint64(b), 0
	case n > 8:
		// The last 8 bytes, shifted so that byte 8 is the lowest.
		t := binary.LittleEndian.Uint64(b[n-8:]) >> (8 * (16 - n))
		return binary.LittleEndian.Uint64(b), t | uint64(n)<<56
	case n == 8:
		return binary.LittleEndian.Uint64(b), uint64(n) << 56
	case n >= 4:
		lo := uint64(binary.LittleEndian.Uint32(b))
		hi := uint64(binary.LittleEndian.Uint32(b[n-4:])) >> (8 * (8 - n))
		return lo | hi<<32, uint64(n) << 56
	}
	for i := n - 1; i >= 0; i-- {
		head = head<<8 | uint64(b[i])
	}
	return head, uint64(n) << 56
}

// entry is id's entry, from the interning goroutine.
func (k *KeyTable) entry(id int32) *keyEntry {
	return &k.blocks[id>>entryShift][id&entryMask]
}

// long is the arena bytes of a key longer than shortKey, given its entry
// and the chunks (the table's, or as published).
func longBytes(e *keyEntry, chunks [][]byte) []byte {
	c := chunks[binary.LittleEndian.Uint32(e[0:])]
	off := int(binary.LittleEndian.Uint32(e[4:]))
	n := int(binary.LittleEndian.Uint64(e[8:]) &^ (longKey << 56))
	return c[off : off+n : off+n]
}

func (k *KeyTable) long(e *keyEntry) []byte { return longBytes(e, k.chunks) }

// add writes b's entry (and arena bytes) and publishes it as the next id.
func (k *KeyTable) add(b []byte, head, tail uint64) int32 {
	id := k.n
	if id&entryMask == 0 {
		k.blocks = append(k.blocks, make([]keyEntry, entryBlock))
		pub := k.blocks
		k.pubBlocks.Store(&pub)
	}
	e := k.entry(id)
	if n := len(b); n <= shortKey {
		binary.LittleEndian.PutUint64(e[0:], head)
		binary.LittleEndian.PutUint64(e[8:], tail)
	} else {
		c, off := k.store(b)
		binary.LittleEndian.PutUint32(e[0:], c)
		binary.LittleEndian.PutUint32(e[4:], off)
		binary.LittleEndian.PutUint64(e[8:], uint64(n)|longKey<<56)
	}
	k.n++
	k.bytes += int64(len(b))
	k.pubN.Store(k.n)
	return id
}

// store copies b into the arena and returns its chunk's index and its
// offset in it; a new chunk is published before it is used.
func (k *KeyTable) store(b []byte) (chunk, off uint32) {
	if len(b) > keyChunk/4 {
		c := make([]byte, len(b))
		copy(c, b)
		return k.addChunk(c), 0
	}
	if len(b) > len(k.chunk)-k.fill {
		k.chunk = make([]byte, keyChunk)
		k.cur, k.fill = k.addChunk(k.chunk), 0
	}
	o := k.fill
	k.fill += copy(k.chunk[o:], b)
	return k.cur, uint32(o)
}

// addChunk appends c to the arena's chunks, publishes them and returns
// c's index.
func (k *KeyTable) addChunk(c []byte) uint32 {
	k.chunks = append(k.chunks, c)
	pub := k.chunks
	k.pubChunks.Store(&pub)
	return uint32(len(k.chunks) - 1)
}

// rehash moves the slots into a table of size slots (a power of two).
func (k *KeyTable) rehash(size int) {
	shift := uint(64)
	for s := size; s > 1; s >>= 1 {
		shift--
	}
	slots := make([]keySlot, size)
	mask := uint64(size - 1)
	for _, v := range k.slots {
		if v.id == 0 {
			continue
		}
		var h uint64
		if shift >= 64-24 && !k.hashAgain {
			// The slot's 24 bits of hash are the top ones the index
			// takes.
			h = uint64(v.meta&^0xff) << 32
		} else {
			name := k.name(int32(v.id - 1))
			h = k.hash(unsafe.Slice(unsafe.StringData(name), len(name)))
		}
		i := h >> shift
		for slots[i].id != 0 {
			i = (i + 1) & mask
		}
		slots[i] = v
	}
	k.slots, k.shift = slots, shift
}

// Reserve sizes the lookup for n keys in all, so that interning up to n
// distinct keys moves no slot (a reader that knows how many keys come
// calls it first).
func (k *KeyTable) Reserve(n int) {
	size := max(len(k.slots), initSlots)
	for size < 2*n {
		size *= 2
	}
	if size > len(k.slots) {
		k.rehash(size)
	}
}

// name is id's key, from the interning goroutine.
func (k *KeyTable) name(id int32) string {
	return entryName(k.entry(id), k.chunks)
}

// entryName is the string an entry holds: its own bytes or the arena's.
func entryName(e *keyEntry, chunks [][]byte) string {
	if n := e[15]; n != longKey {
		return unsafe.String(&e[0], int(n))
	}
	b := longBytes(e, chunks)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Name returns the string behind id ("" for NoKey or an unknown id).
func (k *KeyTable) Name(id int32) string {
	n := k.pubN.Load()
	if id < 0 || id >= n {
		return ""
	}
	e := &(*k.pubBlocks.Load())[id>>entryShift][id&entryMask]
	if e[15] != longKey {
		return unsafe.String(&e[0], int(e[15]))
	}
	return entryName(e, *k.pubChunks.Load())
}

// Len is the number of distinct keys interned so far.
func (k *KeyTable) Len() int { return int(k.pubN.Load()) }

// Bytes is the memory the table takes: the lookup slots (at least twice
// the keys, 16 bytes each), the entry blocks (16 bytes a key, rounded up
// to a block) and the arena's bytes. Call it from the interning goroutine.
func (k *KeyTable) Bytes() int64 {
	if k.pubN.Load() == 0 {
		return 0
	}
	var arena int64
	for _, c := range k.chunks {
		arena += int64(len(c))
	}
	return 16*int64(len(k.slots)) + 16*entryBlock*int64(len(k.blocks)) + arena
}

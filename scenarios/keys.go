package scenarios

import (
	"hash/maphash"
	"sync/atomic"
	"unsafe"
)

// KeyTable interns key strings: each distinct string gets the next int32
// id (dense, from 0, in first-seen order), once, so arrivals and per-key
// limiters carry ids in flat arrays and the strings are kept exactly once.
// One table serves every key column and the user column of a stream.
//
// Memory (issue 27: sized for the keys actually seen): a key's bytes are
// copied into chunks of one arena that never move (no string allocated
// per key), each id has a string header pointing into them (16 bytes),
// and the lookup is an open-addressing table of 8-byte slots (the id and
// 32 bits of the key's hash), at most half full: about 40 bytes a key
// plus its length, against about 200 for a Go map of strings and a string
// each. Nothing in the arena or the slots is a pointer, so the garbage
// collector walks only the headers.
//
// One goroutine, the stream's, interns; Name and Len may be called from
// others meanwhile (nginx-limit-req reads a new key's length on a row's
// goroutine while the stream interns the next ones): an intern writes the
// name before it publishes the new count, the header array is published
// again only when it is reallocated, and a name once published never
// moves.
type KeyTable struct {
	seed  maphash.Seed
	slots []uint64 // id+1 in the low 32 bits (0: empty), hash>>32 in the high; len a power of two
	names []string // len == cap; the first n are interned
	n     int32
	chunk []byte // the arena chunk being filled
	bytes int64  // key bytes interned

	pubNames atomic.Pointer[[]string] // names as last reallocated
	pubN     atomic.Int32             // n as last published
}

// keyChunk is the size of an arena chunk; a longer key gets its own.
const keyChunk = 64 << 10

// NewKeyTable returns an empty table.
func NewKeyTable() *KeyTable { return &KeyTable{seed: maphash.MakeSeed()} }

// Intern returns s's id, adding s if it is new. The empty string is NoKey.
func (k *KeyTable) Intern(s string) int32 {
	return k.InternBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// InternBytes is Intern for a byte slice; it allocates nothing per key
// (only the arena's chunks and the arrays' growth).
func (k *KeyTable) InternBytes(b []byte) int32 {
	if len(b) == 0 {
		return NoKey
	}
	h := maphash.Bytes(k.seed, b)
	tag := h >> 32 << 32
	if len(k.slots) == 0 {
		k.slots = make([]uint64, 1024)
	}
	mask := uint64(len(k.slots) - 1)
	i := h & mask
	for {
		v := k.slots[i]
		if v == 0 {
			break
		}
		if v&^0xffffffff == tag {
			id := int32(uint32(v)) - 1
			if k.names[id] == string(b) { // no allocation: a comparison
				return id
			}
		}
		i = (i + 1) & mask
	}
	id := k.add(b)
	k.slots[i] = tag | uint64(uint32(id+1))
	if 2*int(k.n) > len(k.slots) {
		k.rehash()
	}
	return id
}

// add stores b's bytes in the arena and publishes its name as the next id.
func (k *KeyTable) add(b []byte) int32 {
	var s string
	if len(b) > keyChunk/4 {
		c := make([]byte, len(b))
		copy(c, b)
		s = unsafe.String(&c[0], len(c))
	} else {
		if len(b) > cap(k.chunk)-len(k.chunk) {
			k.chunk = make([]byte, 0, keyChunk)
		}
		off := len(k.chunk)
		k.chunk = append(k.chunk, b...)
		s = unsafe.String(&k.chunk[off], len(b))
	}
	id := k.n
	if int(id) == len(k.names) {
		names := make([]string, max(2*len(k.names), 256))
		copy(names, k.names)
		k.names = names
		k.pubNames.Store(&names)
	}
	k.names[id] = s
	k.n++
	k.bytes += int64(len(b))
	k.pubN.Store(k.n)
	return id
}

// rehash doubles the slots.
func (k *KeyTable) rehash() {
	slots := make([]uint64, 2*len(k.slots))
	mask := uint64(len(slots) - 1)
	for _, v := range k.slots {
		if v == 0 {
			continue
		}
		s := k.names[int32(uint32(v))-1]
		i := maphash.String(k.seed, s) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = v
	}
	k.slots = slots
}

// Name returns the string behind id ("" for NoKey or an unknown id).
func (k *KeyTable) Name(id int32) string {
	n := k.pubN.Load()
	if id < 0 || id >= n {
		return ""
	}
	return (*k.pubNames.Load())[id]
}

// Len is the number of distinct keys interned so far.
func (k *KeyTable) Len() int { return int(k.pubN.Load()) }

// Bytes is the memory the table takes: the keys' bytes, a string header
// each and the lookup slots (at least twice the keys, 8 bytes each). Call
// it from the interning goroutine.
func (k *KeyTable) Bytes() int64 {
	n := int64(k.pubN.Load())
	if n == 0 {
		return 0
	}
	return k.bytes + 16*n + 8*int64(len(k.slots))
}

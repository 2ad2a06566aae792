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
// Memory (issue 27: sized for the keys actually seen): a key's bytes are
// copied into chunks of one arena that never move (no string allocated
// per key), each id has a string header pointing into them (16 bytes),
// and the lookup is an open-addressing table of 16-byte slots (the id, 24
// bits of the key's hash, its length and its first 8 bytes), at most half
// full: about 50 to 80 bytes a key plus its length, against about 200 for
// a Go map of strings and a string each. A key of up to 8 bytes is found
// in its slot alone, without reading its name. Nothing in the arena or the slots is a pointer, so the garbage
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
	slots []keySlot // len a power of two, at most half full
	names []string  // len == cap; the first n are interned
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
	tag := h>>40<<40 | uint64(min(len(b), 255))<<32
	head := keyHead(b)
	if len(k.slots) == 0 {
		k.slots = make([]keySlot, 1024)
	}
	mask := uint64(len(k.slots) - 1)
	i := h & mask
	for {
		v := &k.slots[i]
		if v.meta == 0 {
			break
		}
		if v.meta&^0xffffffff == tag && v.head == head {
			id := int32(uint32(v.meta)) - 1
			// A key of at most 8 bytes is its head: found without
			// reading its name.
			if len(b) <= 8 || k.names[id] == string(b) { // no allocation: a comparison
				return id
			}
		}
		i = (i + 1) & mask
	}
	id := k.add(b)
	k.slots[i] = keySlot{meta: tag | uint64(uint32(id+1)), head: head}
	if 2*int(k.n) > len(k.slots) {
		k.rehash()
	}
	return id
}

// keySlot is one lookup slot: meta holds 24 bits of the key's hash, its
// length (up to 255) and id+1 (0: empty); head is its first 8 bytes.
type keySlot struct {
	meta, head uint64
}

// keyHead is b's first 8 bytes, little-endian, zero-padded.
func keyHead(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.LittleEndian.Uint64(b)
	}
	var h uint64
	for i := len(b) - 1; i >= 0; i-- {
		h = h<<8 | uint64(b[i])
	}
	return h
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
	slots := make([]keySlot, 2*len(k.slots))
	mask := uint64(len(slots) - 1)
	for _, v := range k.slots {
		if v.meta == 0 {
			continue
		}
		s := k.names[int32(uint32(v.meta))-1]
		i := maphash.String(k.seed, s) & mask
		for slots[i].meta != 0 {
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
// each and the lookup slots (at least twice the keys, 16 bytes each). Call
// it from the interning goroutine.
func (k *KeyTable) Bytes() int64 {
	n := int64(k.pubN.Load())
	if n == 0 {
		return 0
	}
	return k.bytes + 16*n + 16*int64(len(k.slots))
}

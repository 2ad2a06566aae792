package scenarios

import "sync/atomic"

// KeyTable interns key strings: each distinct string gets the next int32
// id, once, so arrivals and per-key limiters carry ids in flat arrays and
// the strings are kept exactly once. One table serves every key column and
// the user column of a stream. One goroutine, the stream's, interns; Name
// and Len may be called from others meanwhile (nginx-limit-req reads a new
// key's length on a row's goroutine while the stream interns the next
// ones): each intern publishes the grown list atomically, and a name once
// published never moves in the array a reader holds.
type KeyTable struct {
	ids   map[string]int32
	names []string
	pub   atomic.Pointer[[]string] // names as last published
}

// NewKeyTable returns an empty table.
func NewKeyTable() *KeyTable { return &KeyTable{ids: map[string]int32{}} }

// Intern returns s's id, adding s if it is new. The empty string is NoKey.
func (k *KeyTable) Intern(s string) int32 {
	if s == "" {
		return NoKey
	}
	if id, ok := k.ids[s]; ok {
		return id
	}
	id := int32(len(k.names))
	k.names = append(k.names, s)
	k.ids[s] = id
	names := k.names
	k.pub.Store(&names)
	return id
}

// InternBytes is Intern for a byte slice; it allocates only for a new key.
func (k *KeyTable) InternBytes(b []byte) int32 {
	if len(b) == 0 {
		return NoKey
	}
	if id, ok := k.ids[string(b)]; ok { // no allocation: the compiler's map[string(b)] form
		return id
	}
	return k.Intern(string(b))
}

// Name returns the string behind id ("" for NoKey or an unknown id).
func (k *KeyTable) Name(id int32) string {
	p := k.pub.Load()
	if p == nil || id < 0 || int(id) >= len(*p) {
		return ""
	}
	return (*p)[id]
}

// Len is the number of distinct keys interned so far.
func (k *KeyTable) Len() int {
	if p := k.pub.Load(); p != nil {
		return len(*p)
	}
	return 0
}

// Bytes is the memory the interned strings take (their bytes plus a string
// header and a map entry each, roughly), for peak_state_bytes.
func (k *KeyTable) Bytes() int64 {
	var n int64
	p := k.pub.Load()
	if p == nil {
		return 0
	}
	for _, s := range *p {
		n += int64(len(s)) + 16 + 24
	}
	return n
}

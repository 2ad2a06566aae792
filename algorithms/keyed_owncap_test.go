package algorithms

import (
	"strings"
	"testing"
)

// TestKeyedOwnCapacity: a kind with a capacity of its own (bucket4j) keeps
// it, and bounds its per-key table with key-capacity; the canonical spec
// builds the same limiter again.
func TestKeyedOwnCapacity(t *testing.T) {
	l, err := New("bucket4j:capacity=10,refill-tokens=5,key=ip,key-capacity=3", 0)
	if err != nil {
		t.Fatal(err)
	}
	spec := l.Spec()
	if !strings.Contains(spec, "capacity=10") || !strings.Contains(spec, "key-capacity=3") {
		t.Fatalf("spec %q lost the bucket's capacity or the table bound", spec)
	}
	again, err := New(spec, 0)
	if err != nil || again.Spec() != spec {
		t.Fatalf("New(%q) = %v, %v", spec, again, err)
	}
	if _, err := New("bucket4j:capacity=10,refill-tokens=5", 0); err != nil {
		t.Fatalf("bucket4j's own capacity is refused: %v", err)
	}
	if _, err := New("token-bucket:rate=5,capacity=3", 0); err == nil || !strings.Contains(err.Error(), "add key=COLUMN") {
		t.Fatalf("capacity without key: err = %v", err)
	}
}

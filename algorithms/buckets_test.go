package algorithms

import "testing"

// TestBucketsTable replays Sentinel's LeapArray on hand-computed steps
// (docs/algorithms.md, leap-array): n slots of w ms, a time's slot is
// (t/w) mod n; the count at t sums every stored slot with t − start ≤
// interval, buckets "in the future" included; a time whose slot holds a
// newer bucket gets a throw-away bucket, and a pass added there is lost.
func TestBucketsTable(t *testing.T) {
	const base = 1_600_000_000_000 // a multiple of every w below, as the epoch is
	type op struct {
		kind byte // 'a' add, 's' sum, 'p' previous
		at   int64
		k    int64 // add: passes; sum, previous: the expected answer
	}
	cases := []struct {
		name string
		n    int
		w    int64
		ops  []op
	}{
		{"two 500 ms buckets slide bucket by bucket", 2, 500, []op{
			{'a', 100, 1}, {'a', 200, 1}, {'a', 600, 2},
			{'s', 900, 4},
			{'s', 1100, 2}, // slot 0 reset to [1000, 1500); [500, 1000) holds 2
			{'a', 1100, 1},
			{'s', 1499, 3},
			{'s', 1500, 1}, // slot 1 reset to [1500, 2000)
			{'p', 1500, 1}, // the bucket [1000, 1500)
			{'p', 1700, 1},
			{'p', 2000, 0}, // [1500, 2000) holds none
		}},
		{"clock back: the future counts, a pass in a newer slot is lost", 2, 500, []op{
			{'a', 1000, 1}, {'a', 1600, 3},
			{'s', 700, 4},  // slot 1 holds [1500, 2000), newer than [500, 1000): throw-away; both slots count
			{'a', 700, 5},  // lost
			{'s', 1700, 4}, // [1000, 1500) 1 + [1500, 2000) 3
			{'s', 300, 4},  // slot 0 holds [1000, 1500), newer than [0, 500)
		}},
		{"a jump over the whole interval empties the window", 3, 100, []op{
			{'a', 0, 2}, {'a', 150, 1}, {'a', 250, 1},
			{'s', 299, 4},
			{'s', 300, 2}, // [0, 100) left
			{'s', 5000, 0},
			{'a', 5000, 1},
			{'s', 5299, 1},
			{'s', 5300, 0},
		}},
		{"one bucket is a fixed window", 1, 1000, []op{
			// getPreviousWindow(t) takes the slot of t − w, the only one, and
			// keeps it unless its start + w < t − w: the current bucket.
			{'a', 999, 3}, {'p', 999, 3}, {'s', 999, 3}, {'s', 1000, 0},
			// previousWindowPass first takes currentWindow(t), which
			// resets the only slot: the previous bucket is gone.
			{'p', 1000, 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBuckets(c.n, c.w)
			if got, want := b.stateBytes(), 16*c.n+80; got != want {
				t.Errorf("stateBytes() = %d, want %d", got, want)
			}
			for i, o := range c.ops {
				at := base + o.at
				switch o.kind {
				case 'a':
					b.add(at, o.k)
				case 's':
					if got := b.sum(at); got != o.k {
						t.Fatalf("op %d: sum(%d) = %d, want %d", i, o.at, got, o.k)
					}
				case 'p':
					if got := b.previous(at); got != o.k {
						t.Fatalf("op %d: previous(%d) = %d, want %d", i, o.at, got, o.k)
					}
				}
			}
		})
	}
}

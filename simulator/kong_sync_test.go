package simulator

import (
	"slices"
	"testing"
	"time"
)

// TestKongSyncTable: one row per kong sync-rate row, with the EVALs saved
// against sync_rate = -1 (negative when the syncs cost more than they
// save) and the passes beyond the limit.
func TestKongSyncTable(t *testing.T) {
	r := fixedResult()
	if _, rows := KongSyncTable(r); len(rows) != 0 {
		t.Fatalf("no kong row, rows %v", rows)
	}
	r.Algorithms[1].KongSync = &KongSyncFigures{Reads: 3, Syncs: 1, SyncEvals: 2, Realtime: 10, Beyond: 1, Nodes: 4, SyncRate: time.Second, RTT: 10 * time.Millisecond}
	r.Algorithms[2].KongSync = &KongSyncFigures{Reads: 9, Syncs: 4, SyncEvals: 6, Realtime: 10, Beyond: 0, Nodes: 2, SyncRate: 100 * time.Millisecond}
	header, rows := KongSyncTable(r)
	want := [][]string{
		{r.Algorithms[1].Spec, "4", "1s", "5", "5 (50.0%)", "1", "4", "10ms"},
		{r.Algorithms[2].Spec, "2", "100ms", "15", "-5 (-50.0%)", "0", "13", "0s"},
	}
	if len(header) != len(want[0]) || len(rows) != 2 || !slices.Equal(rows[0], want[0]) || !slices.Equal(rows[1], want[1]) {
		t.Fatalf("table %v %v, want %v", header, rows, want)
	}
}

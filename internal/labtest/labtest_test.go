package labtest

import (
	"bytes"
	"os"
	"testing"
)

// TestRulesTraceIsSeeded: the trace is the same every time, starts with
// its header, holds 6000 arrivals in time order and both key columns.
func TestRulesTraceIsSeeded(t *testing.T) {
	a, err := os.ReadFile(RulesTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(RulesTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two traces differ")
	}
	lines := bytes.Split(bytes.TrimSpace(a), []byte("\n"))
	if string(lines[0]) != "t_ms,rt_ms,error,key,ip" || len(lines) != 6001 {
		t.Fatalf("header %q and %d lines, want t_ms,rt_ms,error,key,ip and 6001", lines[0], len(lines))
	}
	if !bytes.Contains(a, []byte(",vip-42,10.0.0.")) {
		t.Error("no vip-42 key")
	}
}

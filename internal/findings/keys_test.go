package findings

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestKeyTracesUpToDate keeps the per-key findings' traces in testdata
// equal to KeyTraces (-update rewrites them), so that the commands in
// docs/findings.md replay exactly what the findings measured.
func TestKeyTracesUpToDate(t *testing.T) {
	for name, data := range KeyTraces() {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run: make findings)", err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s differs from KeyTraces; run: make findings", path)
		}
	}
}

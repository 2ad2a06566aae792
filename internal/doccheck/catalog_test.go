package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// The README's catalog table has a row for every built-in scenario that
// `ratelimit-lab list` shows (the four keyed ones were missing), and no
// row for a scenario the lab does not have.
func TestReadmeCatalogHasEveryScenario(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "| `"); ok {
			if i := strings.Index(name, "` |"); i > 0 {
				rows[name[:i]] = true
			}
		}
	}
	known := map[string]bool{}
	for _, n := range scenarios.Names() {
		known[n] = true
		if !rows[n] {
			t.Errorf("README.md's catalog has no row for the scenario %s", n)
		}
	}
	if len(known) == 0 {
		t.Fatal("scenarios.Names() is empty")
	}
}

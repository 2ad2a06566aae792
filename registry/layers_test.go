package registry

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The engine links no Redis client and no Lua: simulator, scenarios and
// algorithms sit below the Redis family, which sits on top of them.
func TestEngineLinksNoRedis(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	forbidden := []string{"github.com/redis/go-redis", "github.com/alicebob/miniredis", "github.com/yuin/gopher-lua"}
	for _, pkg := range []string{"./simulator", "./scenarios", "./algorithms"} {
		cmd := exec.Command(goTool, "list", "-deps", pkg)
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s listed only %q", pkg, deps)
		}
		for _, d := range deps {
			for _, f := range forbidden {
				if d == f || strings.HasPrefix(d, f+"/") {
					t.Errorf("%s links %s", pkg, d)
				}
			}
		}
	}
}

// The traffic package is the bottom of the house: scenarios (arrivals,
// traces, logs, key tables, the downstream and client models) links no
// family of limiters, not even the in-memory one, and no engine.
func TestTrafficLinksNoFamily(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goTool, "list", "-deps", "./scenarios")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./scenarios: %v\n%s", err, out)
	}
	const mod = "github.com/ratelimit-lab/ratelimit-lab/"
	allowed := map[string]bool{mod + "scenarios": true, mod + "spec": true, mod + "internal/suggest": true}
	seen := 0
	for _, d := range strings.Fields(string(out)) {
		if !strings.HasPrefix(d, mod) {
			continue
		}
		seen++
		if !allowed[d] {
			t.Errorf("scenarios links %s; the traffic layer imports only spec and internal/suggest", d)
		}
	}
	if seen == 0 {
		t.Fatalf("go list -deps ./scenarios listed none of the module's packages: %q", out)
	}
}

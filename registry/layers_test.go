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

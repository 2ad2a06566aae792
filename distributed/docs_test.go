package distributed

import (
	"os"
	"strings"
	"testing"
)

// docs/redis.md prints every script the lab runs, in full and as run.
func TestDocsPrintEveryScript(t *testing.T) {
	doc, err := os.ReadFile("../docs/redis.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"fixed window": FixedWindowScript, "sliding log": SlidingLogScript,
		"sliding log count=all": SlidingLogAllScript, "bucketed": BucketedScript,
		"gcra": GCRAScript, "measure": measureScript,
		"spring gateway": SpringGatewayScript, "redis-cell": CellScript,
	} {
		if !strings.Contains(string(doc), "```lua\n"+src+"```\n") {
			t.Errorf("docs/redis.md does not print the %s script as it runs", name)
		}
	}
}

package rules

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestEmitNginxAgreesWithNginx runs nginx -t on emitted nginx snippets,
// included in an http block as the header comment says to place them:
// nginx accepts each.
func TestEmitNginxAgreesWithNginx(t *testing.T) {
	bin := nginxForTest(t)
	r := rand.New(rand.NewPCG(31, 6))
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range append(randomSpecs("nginx", r, 20), "nginx-limit-req:rate=1r/m,burst=0,zone=32k,key=*") {
		text, err := EmitText("nginx", s, "api limit")
		if err != nil {
			t.Fatal(err)
		}
		snippet := filepath.Join(root, "emitted.conf")
		main := filepath.Join(root, "main.conf")
		if err := os.WriteFile(snippet, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(main, []byte("events {}\nhttp {\n    include "+snippet+";\n}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if msg := nginxTest(t, bin, root, main); msg != "" {
			t.Errorf("emitted #%d (%s): nginx -t refuses it: %s\n%s", i, s, msg, text)
		}
	}
}

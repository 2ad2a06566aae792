package rules

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestExplainExamples pins what every example file in examples/rules
// becomes: its detected format, rows, specs and notes.
func TestExplainExamples(t *testing.T) {
	files, err := filepath.Glob("../examples/rules/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	formats := map[string]bool{}
	for _, f := range files {
		if filepath.Base(f) == "limits.conf" {
			continue // included by nginx.conf
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			rules, err := Load(f, "")
			if err != nil {
				t.Fatal(err)
			}
			formats[rules[0].Format] = true
			var b bytes.Buffer
			if err := WriteExplain(&b, filepath.ToSlash(f), rules); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", filepath.Base(f)+".golden")
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./rules -update)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("explain changed (go test ./rules -update to accept):\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
	for _, f := range Formats {
		if !formats[f] {
			t.Errorf("no example of format %s in examples/rules", f)
		}
	}
	_ = strings.TrimSpace
}

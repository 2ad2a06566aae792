package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestKeptTraceSameFiles: a trace replayed from the arrivals its validating
// pass kept writes the same files as one read again from its file: an
// access log per address with --user, a keyed CSV trace, and rows keyed
// key=* (whose constant key the run interns after the first arrival: the
// stream then reads its file again, for the same ids).
func TestKeptTraceSameFiles(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("t_ms,ip,route,user\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "%d.%d,10.0.0.%d,/r%d,u%d\n", i*3, i%7, (i*7919)%97, i%3, i%5)
	}
	csv := filepath.Join(dir, "keys.csv")
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const log = "../scenarios/examples/access.log"
	for _, c := range []struct {
		name  string
		src   Source
		specs []string
	}{
		{"log per ip", Source{Trace: log, Keys: []string{"ip"}, User: "user", Limit: 2, LimitSet: true},
			[]string{"nginx-limit-req:rate=2r/s,burst=1,zone=32k", "sentinel-param:count=1,key=ip"}},
		{"log per ip and key=*", Source{Trace: log, Keys: []string{"ip"}, Limit: 2, LimitSet: true},
			[]string{"nginx-limit-req:rate=2r/s,burst=1", "nginx-limit-req:rate=5r/s,burst=2,key=*"}},
		{"keyed csv", Source{Trace: csv, Limit: 50, LimitSet: true},
			[]string{"nginx-limit-req:rate=20r/s,burst=3,key=ip,zone=32k", "token-bucket:rate=5,burst=2,key=route"}},
		{"keyed csv and key=*", Source{Trace: csv, Limit: 50, LimitSet: true},
			[]string{"nginx-limit-req:rate=100r/s,key=*", "token-bucket:rate=5,burst=2,key=ip"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			constKey := strings.Contains(strings.Join(c.specs, " "), "key=*")
			if constKey {
				// A run keyed key=* keeps nothing: its replay would read
				// the file again anyway.
				opts := DefaultOptions()
				opts.Source, opts.Specs = c.src, c.specs
				p, err := NewPlan(t.Context(), opts)
				if err != nil {
					t.Fatal(err)
				}
				if p.src.kept {
					t.Error("a run keyed key=* kept the arrivals")
				}
				p.Close()
			}
			files := map[bool]memFiles{}
			for _, keep := range []bool{false, true} {
				func() {
					defer func(k, c bool) { keepTraces, constKeyNoKeep = k, c }(keepTraces, constKeyNoKeep)
					// Kept anyway for key=*, to check the re-read.
					keepTraces, constKeyNoKeep = keep, false
					opts := DefaultOptions()
					opts.Source, opts.Specs = c.src, c.specs
					if p, err := NewPlan(t.Context(), opts); err != nil {
						t.Fatal(err)
					} else {
						if p.src.kept != keep {
							t.Fatalf("keep %v: kept %v", keep, p.src.kept)
						}
						p.Close()
					}
					files[keep] = replayFiles(t, opts)
				}()
			}
			if len(files[true]) == 0 || !reflect.DeepEqual(files[true], files[false]) {
				for name := range files[false] {
					if string(files[true][name]) != string(files[false][name]) {
						t.Errorf("%s differs when kept:\n%s\nread again:\n%s", name, files[true][name], files[false][name])
					}
				}
				t.Fatalf("kept files %d, read again %d", len(files[true]), len(files[false]))
			}
		})
	}
}

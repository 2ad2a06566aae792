package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The files each command may write into its --out directory. A run
// declares its command's list (output.Dir.Owns), so that its commit removes
// the earlier run's files it does not write this time (decisions.csv after
// a run without --decisions, chart.png after --chart none, report.html
// after --html=false); files not listed here are never touched.
var (
	RunFiles   = []string{"series.csv", "summary.json", "breaker.csv", "keys.csv", "chart.png", "report.html", "decisions.csv"}
	TuneFiles  = []string{"tune.csv", "tune.png", "report.html"}
	BenchFiles = []string{"bench.csv", "bench.json", "bench.png", "report.html"}
)

// commandFiles are the files that tell which command wrote a directory:
// each command's own, not report.html, which all three write.
var commandFiles = []struct {
	cmd   string
	files []string
}{
	{"run", []string{"summary.json", "series.csv"}},
	{"tune", []string{"tune.csv", "tune.png"}},
	{"bench", []string{"bench.csv", "bench.json"}},
}

// checkNotMixing refuses an --out that holds another command's files
// (a run's summary.json when tune is about to write): each command writes
// its own report.html, which would replace the other's and leave the two
// commands' files side by side, the page describing only one. It is
// called before anything runs or is written; a missing directory, or one
// with this command's files or none, is fine.
func checkNotMixing(out, cmd string) error {
	for _, c := range commandFiles {
		if c.cmd == cmd {
			continue
		}
		var found []string
		for _, f := range c.files {
			if st, err := os.Stat(filepath.Join(out, f)); err == nil && st.Mode().IsRegular() {
				found = append(found, f)
			}
		}
		if len(found) > 0 {
			return fmt.Errorf("--out %s holds a %s's files (%s); this %s would replace its report.html and mix the two commands' outputs: give the %s its own --out, or remove that directory first",
				filepath.ToSlash(out), c.cmd, strings.Join(found, ", "), cmd, cmd)
		}
	}
	return nil
}

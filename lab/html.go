package lab

import (
	"io"
	"path/filepath"

	"github.com/ratelimit-lab/ratelimit-lab/concurrent"
	"github.com/ratelimit-lab/ratelimit-lab/internal/htmlreport"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// WriteRunHTML writes a run's report.html: its interactive page, named
// after the scenario, not the directory, so that the same run gives the
// same page wherever it is written.
func WriteRunHTML(w io.Writer, res *Result) error {
	name := res.Scenario
	page := htmlreport.NewPage(htmlreport.TitleOf([]string{name}))
	if err := page.FromResult(name, res.Result, &report.Report{Result: res.Result, Seed: res.Seed, HasSeed: res.HasSeed}); err != nil {
		return err
	}
	return page.Write(w)
}

// WriteTuneHTML writes a tune's report.html.
func WriteTuneHTML(w io.Writer, res *simulator.TuneResult) error {
	name := res.Scenario + " tune"
	page := htmlreport.NewPage(htmlreport.TitleOf([]string{name}))
	if err := page.FromTune(name, res); err != nil {
		return err
	}
	return page.Write(w)
}

// WriteBenchHTML writes a bench's report.html, titled name.
func WriteBenchHTML(w io.Writer, name string, results []concurrent.BenchResult) error {
	page := htmlreport.NewPage(htmlreport.TitleOf([]string{name}))
	if err := page.FromBench(name, results); err != nil {
		return err
	}
	return page.Write(w)
}

// ReportPage reads the output directories dirs of several runs, tunes
// and benches (titled by their base names) and returns the function that
// writes their one page.
func ReportPage(dirs []string) (func(io.Writer) error, error) {
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = filepath.Base(filepath.Clean(d))
	}
	page := htmlreport.NewPage(htmlreport.TitleOf(names))
	for _, d := range dirs {
		if err := page.AddDir(d); err != nil {
			return nil, err
		}
	}
	return page.Write, nil
}

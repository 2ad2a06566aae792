package htmlreport

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// AddDir adds the output directory of a `run` (summary.json and
// series.csv, breaker.csv when present), a `tune` (tune.csv) or a `bench`
// (bench.csv). The error is one line naming the directory or the file and
// what to give instead.
func (p *Page) AddDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s does not exist; give an output directory of run, tune or bench", dir)
		}
		return fmt.Errorf("cannot read %s: %v", dir, unwrap(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is a file, not a directory; give the output directory that holds summary.json (for example out/boundary-burst)", dir)
	}
	name := filepath.Base(filepath.Clean(dir))
	read := func(file string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, file)) }
	prefix := func(err error) error {
		return fmt.Errorf("%s/%s", filepath.ToSlash(filepath.Clean(dir)), err.Error())
	}
	if summary, err := read("summary.json"); err == nil {
		series, err := os.Open(filepath.Join(dir, "series.csv"))
		if err != nil {
			return fmt.Errorf("%s has summary.json but no readable series.csv (%v); give a directory `run` wrote whole", dir, unwrap(err))
		}
		defer series.Close()
		breaker, err := read("breaker.csv")
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot read %s: %v", filepath.Join(dir, "breaker.csv"), unwrap(err))
		}
		if err := p.AddRun(name, Files{Summary: summary, Series: series, Breaker: breaker}); err != nil {
			return prefix(err)
		}
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot read %s: %v", filepath.Join(dir, "summary.json"), unwrap(err))
	}
	if b, err := read("tune.csv"); err == nil {
		if err := p.AddTune(name, b); err != nil {
			return prefix(err)
		}
		return nil
	}
	if b, err := read("bench.csv"); err == nil {
		if err := p.AddBench(name, b); err != nil {
			return prefix(err)
		}
		return nil
	}
	return fmt.Errorf("%s has no summary.json (nor tune.csv or bench.csv); give a directory that run, tune or bench wrote, such as out/boundary-burst", dir)
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// TitleOf is a page title for the given names.
func TitleOf(names []string) string {
	return "ratelimit-lab report · " + strings.Join(names, " · ")
}

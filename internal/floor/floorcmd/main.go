// Command floorcmd runs a floor program of package floor on a file, for
// measuring it beside ratelimit-lab with /usr/bin/time (docs/performance.md):
//
//	floorcmd csv FILE   a CSV trace with the header t_ms,key
//	floorcmd log FILE   an nginx combined or common access log, per address
//	floorcmd poisson LIMIT DURATION
//	                    run poisson's arrivals (1.5·LIMIT a second for
//	                    DURATION, seed 1) through seven fixed windows with
//	                    50 ms bins, writing the bins to poisson-bins.csv
//	floorcmd gen DIR    write DIR/t.csv and DIR/tk.csv (3,000,000 arrivals,
//	                    without and with 100,000 keys) and DIR/access.log
//	                    (1,000,000 combined lines)
//	floorcmd gen DIR ARRIVALS KEYS
//	                    the same with ARRIVALS arrivals over KEYS keys
//	                    (issue 27's per-key run: 10000000 1000000)
//
// csv and log print the lines, keys and passes (rate 10/s, burst 20 a key).
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ratelimit-lab/ratelimit-lab/internal/floor"
)

func main() {
	if len(os.Args) == 4 && os.Args[1] == "poisson" {
		poisson(os.Args[2], os.Args[3])
		return
	}
	gen3 := len(os.Args) == 5 && os.Args[1] == "gen"
	if (len(os.Args) != 3 && !gen3) || (os.Args[1] != "csv" && os.Args[1] != "log" && os.Args[1] != "gen") {
		fmt.Fprintln(os.Stderr, "usage: floorcmd csv|log FILE, floorcmd gen DIR [ARRIVALS KEYS], or floorcmd poisson LIMIT DURATION")
		os.Exit(2)
	}
	if os.Args[1] == "gen" {
		n, k := 3_000_000, 100_000
		if gen3 {
			var err1, err2 error
			n, err1 = strconv.Atoi(os.Args[3])
			k, err2 = strconv.Atoi(os.Args[4])
			if err1 != nil || err2 != nil || n < 0 || k < 1 {
				fmt.Fprintf(os.Stderr, "floorcmd: gen %s %s: ARRIVALS must be a count and KEYS one or more, e.g. floorcmd gen DIR 10000000 1000000\n", os.Args[3], os.Args[4])
				os.Exit(2)
			}
		}
		if err := gen(os.Args[2], n, k); err != nil {
			fmt.Fprintf(os.Stderr, "floorcmd: %v; check the directory\n", err)
			os.Exit(1)
		}
		return
	}
	f, err := os.Open(os.Args[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "floorcmd: %v; check the path\n", err)
		os.Exit(1)
	}
	defer f.Close()
	run := floor.CSVPerKey
	if os.Args[1] == "log" {
		run = floor.LogPerAddress
	}
	res, err := run(f, 10, 20)
	if err != nil {
		fmt.Fprintf(os.Stderr, "floorcmd: %s line %d: %v; check the file's format\n", os.Args[2], res.Lines+1, err)
		os.Exit(1)
	}
	fmt.Printf("%d lines, %d keys, %d passed\n", res.Lines, res.Keys, res.Passed)
}

func gen(dir string, n, keys int) error {
	create := func(name string) (*os.File, error) { return os.Create(filepath.Join(dir, name)) }
	t, err := create("t.csv")
	if err != nil {
		return err
	}
	defer t.Close()
	k, err := create("tk.csv")
	if err != nil {
		return err
	}
	defer k.Close()
	if err := floor.WriteTraces(t, k, n, keys); err != nil {
		return err
	}
	l, err := create("access.log")
	if err != nil {
		return err
	}
	defer l.Close()
	if err := floor.WriteCombined(l, 1_000_000); err != nil {
		return err
	}
	return errors.Join(t.Close(), k.Close(), l.Close())
}

func poisson(limitArg, durationArg string) {
	limit, err := strconv.ParseFloat(limitArg, 64)
	if err != nil || !(limit > 0) {
		fmt.Fprintf(os.Stderr, "floorcmd: limit %q is not a positive number; give e.g. 100000\n", limitArg)
		os.Exit(2)
	}
	d, err := time.ParseDuration(durationArg)
	if err != nil || d <= 0 {
		fmt.Fprintf(os.Stderr, "floorcmd: duration %q is not a positive duration; give e.g. 60s\n", durationArg)
		os.Exit(2)
	}
	f, err := os.Create("poisson-bins.csv")
	if err != nil {
		fmt.Fprintf(os.Stderr, "floorcmd: %v; run it in a writable directory\n", err)
		os.Exit(1)
	}
	res, err := floor.PoissonSevenFixed(f, limit, d)
	if err = errors.Join(err, f.Close()); err != nil {
		fmt.Fprintf(os.Stderr, "floorcmd: poisson-bins.csv: %v; check the disk\n", err)
		os.Exit(1)
	}
	fmt.Printf("%d arrivals, %d passed by each fixed window\n", res.Lines, res.Passed)
}

// Command floorcmd runs a floor program of package floor on a file, for
// measuring it beside ratelimit-lab with /usr/bin/time (docs/performance.md):
//
//	floorcmd csv FILE   a CSV trace with the header t_ms,key
//	floorcmd log FILE   an nginx combined or common access log, per address
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

	"github.com/ratelimit-lab/ratelimit-lab/internal/floor"
)

func main() {
	gen3 := os.Args[1] == "gen" && len(os.Args) == 5
	if (len(os.Args) != 3 && !gen3) || (os.Args[1] != "csv" && os.Args[1] != "log" && os.Args[1] != "gen") {
		fmt.Fprintln(os.Stderr, "usage: floorcmd csv|log FILE, or floorcmd gen DIR [ARRIVALS KEYS]")
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

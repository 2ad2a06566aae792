package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/algorithms"
	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
	"github.com/ratelimit-lab/ratelimit-lab/simulator"
)

// bindKeys resolves every per-key limiter's key columns against the
// stream's, binds the stream's key names, and has each bounded one run an
// unbounded twin beside it (extra_passes_from_eviction). A column the
// stream lacks is a one-line error naming the columns it has; a per-key
// limiter on a stream without keys is an error too. The default column
// name "key" stands for the stream's first key column when no column is
// called key (an access log read with --key ip). It returns the key
// table, or nil when no limiter is keyed.
func bindKeys(st scenarios.Stream, srcName string, limiters []algorithms.Limiter) (*scenarios.KeyTable, error) {
	var table *scenarios.KeyTable
	cols := scenarios.StreamColumns(st).Keys
	ks, keyed := st.(scenarios.KeyedStream)
	if keyed && cols == nil {
		cols = ks.KeyColumns()
	}
	for _, l := range limiters {
		ku, ok := l.(algorithms.KeyColumnUser)
		if !ok || len(ku.KeyColumns()) == 0 {
			continue
		}
		names := ku.KeyColumns()
		if !keyed || len(cols) == 0 {
			return nil, fmt.Errorf("%s reads the key column %q, but %s has no key columns; replay traffic with keys (a trace with a key column, an access log with --key ip, or a scenario with keys:) or drop key=", l.Spec(), names[0], srcName)
		}
		idx := make([]int, len(names))
		for i, n := range names {
			idx[i] = -1
			for j, c := range cols {
				if c == n {
					idx[i] = j
				}
			}
			if idx[i] < 0 && n == "key" {
				idx[i] = 0
			}
			if idx[i] < 0 {
				return nil, fmt.Errorf("%s: key column %q is not in %s; its key columns are: %s (write key=%s)", registryName(l.Spec()), n, srcName, strings.Join(cols, ", "), cols[0])
			}
		}
		if err := ku.BindKeyColumns(idx); err != nil {
			return nil, err
		}
		table = ks.KeyTable()
		if kn, ok := l.(algorithms.KeyNameUser); ok {
			kn.BindKeyNames(table.Name)
		}
		if kr := algorithms.KeyReporterOf(l); kr != nil {
			kr.TrackShadow()
		}
	}
	return table, nil
}

func registryName(spec string) string {
	n, _, _ := strings.Cut(spec, ":")
	return n
}

// keysOutputs writes keys.csv when a row is keyed and returns the file
// names written.
func writeKeysCSV(dir interface {
	WriteFile(string, func(io.Writer) error) error
}, res *simulator.Result, table *scenarios.KeyTable) ([]string, error) {
	if table == nil || !simulator.HasKeys(res) {
		return nil, nil
	}
	if err := dir.WriteFile("keys.csv", func(w io.Writer) error { return simulator.WriteKeysCSV(w, res, table.Name) }); err != nil {
		return nil, err
	}
	return []string{"keys.csv"}, nil
}

// printTopKeys writes, under the table, each keyed row's top keys by
// rejections and the share the top 1% of keys took.
func printTopKeys(w io.Writer, res *simulator.Result, table *scenarios.KeyTable, top int) error {
	if table == nil || top <= 0 {
		return nil
	}
	return report.WriteTopKeys(w, res, table.Name, top)
}

package report

import (
	"slices"
	"strings"
)

// genericColumns are the run table's columns that say the same for every
// scenario, in the order a narrow terminal drops them: before the columns
// that carry a scenario's point (a breaker's opens, errors and RT p99, a
// per-key row's keys hurt, ...), which go only after these, from the
// right. A trailing "/" matches the window or bin suffix ("peak/50ms").
var genericColumns = []string{"smooth bound", "peak/", "wait p99", "passed", "max/", "pass %"}

// tuneGeneric are the tune table's columns dropped first: the table is
// about the overshoot against the state size for each N.
var tuneGeneric = []string{"peak/", "passed", "bucket", "max/", "pass %"}

// FitTableDropping is FitTable dropping the columns named in first (in
// that order; "name/" matches "name/1s") before any other, and then the
// last ones. hidden lists the dropped columns in table order.
func FitTableDropping(header []string, rows [][]string, fit int, wide bool, first []string) (table []byte, hidden []string, err error) {
	// The drop order: the named columns, then the others from the right;
	// never the first.
	var order []int
	for _, name := range first {
		for i, h := range header {
			if i > 0 && (h == name || strings.HasSuffix(name, "/") && strings.HasPrefix(h, name)) && !slices.Contains(order, i) {
				order = append(order, i)
			}
		}
	}
	for i := len(header) - 1; i > 0; i-- {
		if !slices.Contains(order, i) {
			order = append(order, i)
		}
	}
	keep := make([]bool, len(header))
	for i := range keep {
		keep[i] = true
	}
	for k := 0; ; k++ {
		h, rs := pick(header, rows, keep)
		table, _, err = FitTable(h, rs, 1<<30, true) // render only
		if err != nil {
			return nil, nil, err
		}
		if wide || len(h) <= 2 || maxWidth(string(table)) <= fit || k >= len(order) {
			for i, kept := range keep {
				if !kept {
					hidden = append(hidden, header[i])
				}
			}
			return table, hidden, nil
		}
		keep[order[k]] = false
	}
}

// pick returns the kept columns of a table.
func pick(header []string, rows [][]string, keep []bool) ([]string, [][]string) {
	var h []string
	for i, x := range header {
		if keep[i] {
			h = append(h, x)
		}
	}
	rs := make([][]string, len(rows))
	for r, row := range rows {
		for i, x := range row {
			if keep[i] {
				rs[r] = append(rs[r], x)
			}
		}
	}
	return h, rs
}

// FitTuneTable fits the tune table, dropping its generic columns first.
func FitTuneTable(header []string, rows [][]string, fit int) (table []byte, hidden []string, err error) {
	return FitTableDropping(header, rows, fit, false, tuneGeneric)
}

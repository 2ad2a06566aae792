package scenarios

import (
	"bytes"
	"strings"
)

// Response columns of a trace: a header t_ms,rt_ms or t_ms,rt_ms,error
// gives every arrival the response time its pass spends downstream (rt_ms,
// decimal milliseconds, the same syntax as t_ms) and whether it fails
// (error, 0 or 1; 0 when the column is absent). A pass then exits at
// arrival + wait + rt_ms. A trace with the header t_ms alone has no
// responses.

// responseColumns returns 2 or 3 for the headers with response columns,
// 1 for t_ms, and 0 for anything else.
func responseColumns(h string) int {
	switch strings.ReplaceAll(h, " ", "") {
	case TraceHeader:
		return 1
	case TraceHeader + ",rt_ms":
		return 2
	case TraceHeader + ",rt_ms,error":
		return 3
	}
	return 0
}

func (t *traceStream) responseLine(s []byte) (Arrival, bool) {
	// Cells are cut from the scanner's bytes and parsed there: nothing is
	// allocated or formatted unless the line is bad.
	if n := bytes.Count(s, comma) + 1; n != t.cols {
		header := "t_ms,rt_ms"
		if t.cols == 3 {
			header += ",error"
		}
		return t.fail("%d columns where the header %s has %d; write one arrival per line, for example %s", n, header, t.cols, map[int]string{2: "1000.5,20", 3: "1000.5,20,0"}[t.cols])
	}
	var f [3][]byte
	rest := s
	for i := 0; i < t.cols; i++ {
		c, after, _ := bytes.Cut(rest, comma)
		f[i], rest = bytes.TrimSpace(c), after
	}
	d, err := cellMillis(f[0])
	if err != nil {
		return t.fail("t_ms: %v", err)
	}
	rt, err := cellRT(f[1], d)
	if err != nil {
		return t.fail("rt_ms: %v", err)
	}
	a := Arrival{At: d, Clock: d, HasResponse: true, RT: rt}
	if t.cols == 3 {
		switch string(f[2]) {
		case "0":
		case "1":
			a.Failed = true
		default:
			return t.fail("error is %q; write 0 (the call succeeded) or 1 (it failed)", clip(string(f[2])))
		}
	}
	return a, true
}

var comma = []byte{','}

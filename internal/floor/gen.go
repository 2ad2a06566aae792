package floor

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"
)

// WriteTraces writes n Poisson arrivals (50,000/s, seed 27) twice: to
// times as a CSV trace with the header t_ms, and to keyed with the header
// t_ms,key and keys drawn uniformly from k (k0 to k99999 for 100,000).
// These are the "same arrivals, without and with keys".
func WriteTraces(times, keyed io.Writer, n, k int) error {
	r := rand.New(rand.NewPCG(27, 1))
	a, b := bufio.NewWriterSize(times, 64<<10), bufio.NewWriterSize(keyed, 64<<10)
	a.WriteString("t_ms\n")
	b.WriteString("t_ms,key\n")
	var buf []byte
	us := int64(0)
	for i := 0; i < n; i++ {
		us += int64(r.ExpFloat64() * 20)
		buf = strconv.AppendInt(buf[:0], us/1000, 10)
		buf = append(buf, '.', byte('0'+us%1000/100), byte('0'+us%100/10), byte('0'+us%10))
		a.Write(buf)
		a.WriteByte('\n')
		b.Write(buf)
		b.WriteString(",k")
		b.WriteString(strconv.Itoa(r.IntN(k)))
		b.WriteByte('\n')
	}
	if err := a.Flush(); err != nil {
		return err
	}
	return b.Flush()
}

// WriteCombined writes n nginx combined lines, one every 3 ms from
// 2026-11-30 10:00:00 +0100 (seed 27), from client addresses 10.0-3.x.y
// drawn uniformly (about 250,000 distinct over 10^6 lines).
func WriteCombined(w io.Writer, n int) error {
	r := rand.New(rand.NewPCG(27, 2))
	bw := bufio.NewWriterSize(w, 64<<10)
	base := time.Date(2026, 11, 30, 10, 0, 0, 0, time.FixedZone("", 3600))
	for i := 0; i < n; i++ {
		ts := base.Add(time.Duration(i) * 3 * time.Millisecond).Format(TimeLocal)
		fmt.Fprintf(bw, `10.%d.%d.%d - - [%s] "GET /api/v1/items/%d HTTP/1.1" 200 %d "-" "Mozilla/5.0 (X11; Linux x86_64) curl/8.5"`+"\n",
			r.IntN(4), r.IntN(250), r.IntN(250), ts, r.IntN(1000), 100+r.IntN(5000))
	}
	return bw.Flush()
}

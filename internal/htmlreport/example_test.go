package htmlreport_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/internal/htmlreport"
)

// A page from a run's files: every numeric column of series.csv becomes a
// series of each limiter, a column the page has no name for included, and
// the trailing window is added.
func ExamplePage_AddRun() {
	summary := []byte(`{"scenario":"demo","limit":10,"bin_ms":50,"window_ms":100,"duration_ms":100,
"algorithms":[{"algorithm":"fixed-window:limit=10,window=1s","name":"fixed-window","rate":10,"arrived":3,"passed":2}]}`)
	series := `algorithm,bin_start_ms,arrived,passed,blocked,in_flight
"fixed-window:limit=10,window=1s",0,2,1,1,3
"fixed-window:limit=10,window=1s",50,1,1,0,1
`
	page := htmlreport.NewPage("demo")
	if err := page.AddRun("demo", htmlreport.Files{Summary: summary, Series: strings.NewReader(series)}); err != nil {
		fmt.Println(err)
		return
	}
	r := page.Runs[0]
	fmt.Println(r.Context)
	fmt.Println(strings.Join(r.Columns, " "))
	fmt.Println(r.Limiters[0].Label, r.Limiters[0].Color, len(r.Limiters[0].Series))
	fmt.Println(page.Write(io.Discard))
	// Output:
	// demo · 100ms · 3 arrivals · limit 10/s · bin 50ms · window 100ms
	// arrived passed blocked in_flight window_passed
	// fixed-window #d62728 5
	// <nil>
}

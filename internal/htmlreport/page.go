// Package htmlreport writes report.html: one self-contained page, opened
// from disk with no network, that shows one or more runs (and `tune` and
// `bench` results) with interactive charts.
//
// A run's page has its context line, its summary table (summary.json's
// fields, sortable), its specs, and one time chart per kind of series, with
// every limiter on it: arrivals and passes per second against each limit,
// the passes in the trailing window against the limit, blocks and errors,
// waits, response times, the breakers' states, and one more panel per
// column of series.csv the page has no name for. The charts zoom (drag
// across one, or ctrl+wheel) and pan (shift+wheel, the arrow buttons)
// together, show each bin's values under the cursor, and each limiter can
// be switched off.
//
// The package draws and computes nothing: every series is a column of
// series.csv (or the trailing window, from simulator.TrailingWindow), every
// figure a field of summary.json, tune.csv or bench.csv, read from the bytes
// the simulator writes — the same whether the page is made by `run` from
// its result or later by `report` from the files. The one reduction is the
// min–max pyramid of long series (see Series), which keeps every bin.
//
// Charts are drawn by uPlot (MIT, https://github.com/leeoniya/uPlot),
// vendored from its npm package in uplot/ with its LICENSE and embedded in
// every page.
package htmlreport

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"html"
	"io"
	"strconv"
	"strings"
)

var (
	//go:embed uplot/uPlot.iife.min.js
	uplotJS string
	//go:embed uplot/uPlot.min.css
	uplotCSS string
	//go:embed uplot/LICENSE
	uplotLicense string
	//go:embed assets/page.js
	pageJS string
	//go:embed assets/page.css
	pageCSS string
)

// Page is one report.html being assembled.
type Page struct {
	Title string
	Runs  []*Run
	XY    []*XYSection
	store *store
}

// NewPage starts a page.
func NewPage(title string) *Page {
	return &Page{Title: title, store: newStore()}
}

// pageData is the JSON the page's script reads.
type pageData struct {
	Title string       `json:"title"`
	Runs  []*Run       `json:"runs"`
	XY    []*XYSection `json:"xy"`
	Blobs []blob       `json:"blobs"`
	// Fanout is the pyramid's fan-out (Fanout).
	Fanout int `json:"fanout"`
}

// Write writes the page.
func (p *Page) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	data, err := json.Marshal(pageData{Title: p.Title, Runs: p.Runs, XY: p.XY, Blobs: p.store.blobs, Fanout: Fanout})
	if err != nil {
		return err
	}
	// json.Marshal escapes <, > and &, so no "</script>" can end the
	// element early.
	bw.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	bw.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	// No request may leave the page: scripts and styles are inline, images
	// are data: URLs, and the policy forbids anything else.
	bw.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n")
	bw.WriteString("<title>" + html.EscapeString(p.Title) + "</title>\n")
	bw.WriteString("<style>\n" + uplotCSS + "\n" + pageCSS + "</style>\n</head>\n<body>\n")
	bw.WriteString("<noscript>This report draws its charts with JavaScript; allow scripts for this file.</noscript>\n")
	bw.WriteString("<div id=\"report\"></div>\n")
	bw.WriteString("<script type=\"application/json\" id=\"report-data\">")
	bw.Write(data)
	bw.WriteString("</script>\n")
	for i, b := range p.store.blobs {
		bw.WriteString("<script type=\"application/octet-stream\" id=\"b" + strconv.Itoa(i) + "\">")
		bw.WriteString(b.data)
		bw.WriteString("</script>\n")
	}
	bw.WriteString("<!--\nuPlot v1.6.32, https://github.com/leeoniya/uPlot, vendored from its npm package:\n")
	bw.WriteString(strings.ReplaceAll(uplotLicense, "--", "- -"))
	bw.WriteString("-->\n<script>\n" + uplotJS + "\n</script>\n")
	bw.WriteString("<script>\n" + pageJS + "</script>\n</body>\n</html>\n")
	return bw.Flush()
}

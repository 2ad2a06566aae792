package htmlreport

// AddFront adds a recommendation (tune --vary): every point tried as a
// sortable table, and the chart of its objective against its slack with
// the Pareto front, whose points with a link open that point's run.
func (p *Page) AddFront(name string, header []string, rows [][]string, chart XYChart) {
	p.XY = append(p.XY, &XYSection{Kind: "tune", Name: name, Header: header, Rows: rows,
		Numeric: numericColumns(header, rows), Charts: []XYChart{chart}})
}

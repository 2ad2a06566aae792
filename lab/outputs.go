package lab

// The files each command may write into its --out directory. A run
// declares its command's list (output.Dir.Owns), so that its commit removes
// the earlier run's files it does not write this time (decisions.csv after
// a run without --decisions, chart.png after --chart none, report.html
// after --html=false); files not listed here are never touched.
var (
	RunFiles   = []string{"series.csv", "summary.json", "breaker.csv", "keys.csv", "chart.png", "report.html", "decisions.csv"}
	TuneFiles  = []string{"tune.csv", "tune.png", "report.html"}
	BenchFiles = []string{"bench.csv", "bench.json", "bench.png", "report.html"}
)

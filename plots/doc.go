// Package plots draws the PNG charts of ratelimit-lab: chart.png for `run`
// (one panel per limiter, or all pass rates overlaid) and tune.png for
// `tune` (leap-array's overshoot and state size against its sample count).
//
// The package only draws. It turns simulator results into plot data — rates
// from counts, durations into seconds or milliseconds — and computes nothing
// else; every figure printed on a chart comes from the result as given.
//
// The data behind each chart is exposed (ChartData, TuneData) so that tests
// can check that what is drawn is exactly what the simulator measured.
package plots

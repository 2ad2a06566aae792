package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/ratelimit-lab/ratelimit-lab/internal/report"
	"github.com/ratelimit-lab/ratelimit-lab/internal/suggest"
	"github.com/ratelimit-lab/ratelimit-lab/lab"
)

// IOStreams is where a command reads and writes, so tests can fake it.
type IOStreams struct {
	Out, ErrOut io.Writer
	// ErrTTY reports whether ErrOut is a terminal (progress bars go there).
	ErrTTY bool
	// Width is the number of columns tables must fit; 0 means 100.
	Width int
	// In is where --trace - reads from.
	In io.Reader
}

func systemIO() *IOStreams {
	return &IOStreams{Out: os.Stdout, ErrOut: os.Stderr, ErrTTY: term.IsTerminal(int(os.Stderr.Fd())), Width: terminalWidth(), In: os.Stdin}
}

// terminalWidth is $COLUMNS if set, else the width of the terminal on
// stdout, else 0 (tables then fit 100 columns).
func terminalWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
		return w
	}
	return 0
}

// version is set with -ldflags "-X main.version=v1.2.3"; otherwise it comes
// from the module's build information.
var version = ""

func versionString() string {
	v := version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	return "ratelimit-lab " + v + " " + runtime.Version()
}

func newRootCmd(io *IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "ratelimit-lab",
		Short: "Replay traffic through rate limiters on a virtual clock",
		Long:  rootLong(),
		Example: `  ratelimit-lab run boundary-burst
  ratelimit-lab run poisson --limit 1000 --algo leap-array:sample-count=10 --algo sliding-log
  ratelimit-lab run --trace access.csv --limit 200
  ratelimit-lab tune poisson
  ratelimit-lab report out/boundary-burst out/poisson
  ratelimit-lab list`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		NewCmdRun(io, nil),
		NewCmdTune(io, nil),
		NewCmdBench(io, nil),
		NewCmdReport(io, nil),
		NewCmdList(io, nil),
		NewCmdRules(io, nil),
		NewCmdWhy(io, nil),
		&cobra.Command{
			Use:   "version",
			Short: "Print the version and the Go version",
			Args:  cobra.NoArgs,
			Run: func(cmd *cobra.Command, _ []string) {
				cmd.Println(versionString())
			},
		},
	)
	return root
}

// familyBlurbs describes each family of the registry (algorithms.Info's
// Family) for the root --help. rootLong lists the families in the
// registry's order, so a family the registry gains shows up by itself
// (with only its limiters' names until it is described here).
var familyBlurbs = map[string]string{
	"windows": "a fixed window, Sentinel's LeapArray sliding window (its " +
		"prioritized requests borrowing from the next bucket), a sliding log, a " +
		"sliding-window counter, and the seed articles' ring, decaying window " +
		"and layered (hierarchical) window",
	"buckets": "a token bucket (golang.org/x/time/rate), Guava's SmoothBursty " +
		"and SmoothWarmingUp, uber-go/ratelimit",
	"Sentinel": "its throttling (leaky bucket) and its two warm-up controllers, " +
		"Java 1.8 or sentinel-golang (flavor=go), and its cluster flow control " +
		"(a token server, its clients and their fallback when it is away)",
	"breakers": "Sentinel's circuit breakers (slow ratio, error ratio, error " +
		"count), alone or last in a chain A+B+...",
	"gateways": "the limiters of Envoy (local_ratelimit), Traefik, HAProxy, Kong, " +
		"resilience4j and Bucket4j, each exact to its current source",
	"per-key": "nginx's limit_req with its zone, Sentinel's hot-parameter rules, " +
		"and any single-key spec with key=COLUMN (one limiter per key, an LRU " +
		"of capacity=N keys)",
	"adaptive": "concurrency limits and adaptive protection on a closed loop " +
		"(timeouts, retries, a downstream that slows): Sentinel's thread and " +
		"system rules, aegis BBR, Netflix's AIMD, Vegas and Gradient2, Envoy's " +
		"adaptive concurrency, and none (no protection, to compare with)",
	"Redis": "limiters shared by several instances through one Redis (fixed " +
		"window, sliding log, bucketed, GCRA, or your own Lua script)",
}

// rootLong is the root command's description: what the lab does, its
// families of limiters, and every limiter the registry builds (listed from
// the registry, so a new one shows up here by itself).
func rootLong() string {
	var names []string
	members := map[string][]string{}
	for _, a := range lab.Limiters() {
		names = append(names, a.Name)
		members[a.Family] = append(members[a.Family], a.Name)
	}
	var fams strings.Builder
	for _, f := range lab.Families() {
		blurb := familyBlurbs[f]
		if blurb == "" {
			blurb = strings.Join(members[f], ", ")
		}
		var b strings.Builder
		report.WriteWrapped(&b, blurb, 78-14)
		for i, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			head := ""
			if i == 0 {
				head = f
			}
			fmt.Fprintf(&fams, "  %-11s %s\n", head, line)
		}
	}
	var every strings.Builder
	report.WriteWrapped(&every, "Every limiter: "+strings.Join(names, ", ")+".", 78)
	return `ratelimit-lab replays traffic through rate limiters and load-protection
algorithms on a virtual clock and shows, 50 ms by 50 ms, what each one lets
through. For the same arrivals each limiter makes exactly the decisions its
reference makes. The families:

` + fams.String() + `
` + every.String() + `'ratelimit-lab list' gives their parameters and references.
'ratelimit-lab rules explain FILE' reads the rules you already run
(Sentinel, sentinel-golang, nginx, Ingress, Envoy, Spring, Traefik, Kong,
resilience4j) and says what each becomes; run and tune take them with
--rules FILE.

Each run prints a table and writes series.csv, summary.json, chart.png and
report.html (an interactive page); 'ratelimit-lab report' puts several runs
on one page.`
}

// flagError adds the nearest flag name and where to read about the flags
// to pflag's "unknown flag: --limt", and rewrites pflag's "invalid
// argument" messages as what the flag expects.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := invalidArgRE.FindStringSubmatch(msg); m != nil {
		if f := cmd.Flags().Lookup(m[2]); f != nil {
			if want := expects(f); want != "" {
				msg = fmt.Sprintf("--%s %q: %s", m[2], m[1], want)
			}
		}
	}
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		msg += suggest.DidYouMean(name, names)
	}
	return fmt.Errorf("%s (see '%s --help')", msg, cmd.CommandPath())
}

// invalidArgRE matches pflag's `invalid argument "-1" for "--seed" flag: ...`
// (the flag may read "-q, --quiet").
var invalidArgRE = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag: `)

// expects says what a flag takes, by its type, with an example.
func expects(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "uint64", "uint":
		return fmt.Sprintf("--%s takes a whole number of 0 or more, for example --%s 42", f.Name, f.Name)
	case "int", "int64", "int32":
		return fmt.Sprintf("--%s takes a whole number, for example --%s 10", f.Name, f.Name)
	case "intSlice":
		return fmt.Sprintf("--%s takes whole numbers separated by commas, for example --%s 1,2,10,100", f.Name, f.Name)
	case "float64", "float32":
		return fmt.Sprintf("--%s takes a number, for example --%s 100 or --%s 2.5", f.Name, f.Name, f.Name)
	case "duration":
		return fmt.Sprintf("--%s takes a Go duration with a unit, at most 2562047h, for example --%s 500ms or --%s 1s", f.Name, f.Name, f.Name)
	case "bool":
		return fmt.Sprintf("--%s takes true or false (or nothing)", f.Name)
	}
	return ""
}

// completeAlgo completes --algo with the registry's spec names; after a
// '+', the next stage of a chain.
func completeAlgo(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	prefix := ""
	if i := strings.LastIndex(toComplete, "+"); i >= 0 {
		prefix = toComplete[:i+1]
	}
	var out []string
	for _, n := range lab.LimiterNames() {
		if strings.HasPrefix(prefix+n, toComplete) {
			out = append(out, prefix+n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeScenario completes a command's argument with the catalog's
// scenario names, and files for a scenario file.
func completeScenario(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, n := range lab.ScenarioNames() {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveDefault
}

// Package doccheck checks that every ratelimit-lab command shown in the
// documentation runs: it extracts the commands from the ```sh and
// ```console blocks of README.md and docs/*.md and runs each one with the
// real binary, built once in TestMain.
package doccheck

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// root is the module root, relative to this package.
const root = "../.."

// bin is the ratelimit-lab binary built by TestMain.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "doccheck-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "ratelimit-lab")
	build := exec.Command("go", "build", "-o", bin, "./cmd/ratelimit-lab")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd/ratelimit-lab: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// command is one ratelimit-lab invocation found in a document.
type command struct {
	file string
	line int
	text string   // as written
	args []string // after "ratelimit-lab"
}

// docFiles returns README.md and docs/*.md.
func docFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// extract returns the ratelimit-lab commands of the sh and console blocks
// of one markdown file. Lines that pipe or redirect are left out (they are
// not commands the lab alone can run); "go run ./cmd/ratelimit-lab" counts
// as ratelimit-lab.
func extract(t *testing.T, path string) []command {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []command
	inBlock, runnable := false, false
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") {
			if inBlock {
				inBlock = false
				continue
			}
			inBlock = true
			lang := strings.TrimSpace(strings.TrimPrefix(trim, "```"))
			runnable = lang == "sh" || lang == "console"
			continue
		}
		if !inBlock || !runnable {
			continue
		}
		trim = strings.TrimPrefix(trim, "$ ")
		words, err := split(trim)
		if err != nil {
			t.Errorf("%s:%d: %v", path, n, err)
			continue
		}
		words = stripComment(words)
		var args []string
		switch {
		case len(words) >= 1 && words[0] == "ratelimit-lab":
			args = words[1:]
		case len(words) >= 3 && words[0] == "go" && words[1] == "run" && strings.TrimSuffix(words[2], "/") == "./cmd/ratelimit-lab":
			args = words[3:]
		default:
			continue
		}
		if redirects(args) {
			continue
		}
		cmds = append(cmds, command{file: path, line: n, text: trim, args: args})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// split splits a shell line into words, honouring single and double quotes
// and marking unquoted shell operators as words of their own.
func split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("|<>;&", r):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			words = append(words, "\x00"+string(r))
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// stripComment drops a trailing "# ..." comment.
func stripComment(words []string) []string {
	for i, w := range words {
		if strings.HasPrefix(w, "#") {
			return words[:i]
		}
	}
	return words
}

// redirects reports whether the command pipes, redirects or chains.
func redirects(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "\x00") {
			return true
		}
	}
	return false
}

// workDir prepares a directory where the documented commands find the
// files they name: the repository's scenarios and internal folders, and two
// small traces under the names the docs use.
func workDir(t *testing.T) string {
	dir := t.TempDir()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"scenarios", "internal", "examples"} {
		if err := os.Symlink(filepath.Join(abs, d), filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	b.WriteString("t_ms\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "%d.%03d\n", i*3, (i*37)%1000) // about 333 per second for 9 s
	}
	for _, name := range []string{"access.csv", "requests.csv"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// flagValue returns the value of a --name flag in args, or "".
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

func has(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// missingFile returns the first argument that looks like a file (.yaml,
// .yml, .csv) and does not exist in dir.
func missingFile(dir string, args []string) string {
	for _, a := range args {
		switch strings.ToLower(filepath.Ext(a)) {
		case ".yaml", ".yml", ".csv":
			if _, err := os.Stat(filepath.Join(dir, a)); err != nil {
				return a
			}
		}
	}
	return ""
}

// EnvSoak names the environment variable that turns on the long variants
// of the tests (.ci/run sets it): here, every documented run also draws
// its chart.png, which is three quarters of a run's CPU. Without it the
// runs pass --chart none; the charts of the catalog are pinned byte for
// byte by cmd/ratelimit-lab's golden test and the layouts by package plots.
const EnvSoak = "RATELIMIT_LAB_SOAK"

func soak() bool { return os.Getenv(EnvSoak) == "1" }

// benchDuration replaces the --duration of a documented bench command:
// bench hammers each limiter for --duration of wall time on every core,
// and the check is that the command runs and writes its files, not what it
// measures.
const benchDuration = "5ms"

// workers is how many documented commands run at once: each is a process
// of its own that spends most of its time on the CPU or waiting for it, so
// a few more than the cores keep them busy on a loaded machine.
func workers() int {
	return max(4, 2*runtime.NumCPU())
}

// prepared is one distinct documented command, ready to run: its final
// arguments and the files it must write.
type prepared struct {
	c     command
	name  string   // file:line of its first occurrence
	also  []string // file:line of the same command elsewhere
	args  []string
	want  []string
	note  string
	order bool   // writes or reads a directory another command names: runs in document order
	skip  string // why the quick check leaves it to another test
}

// goldenCovered says why a documented command need not run here without
// EnvSoak: cmd/ratelimit-lab's TestCatalogOutputsGolden runs it (or it
// with --decisions) and pins every byte it writes. The runs are read from
// the golden file's "# ratelimit-lab ARGS" headers, so a run the golden
// test drops runs here again. With -short the golden test skips, so
// nothing is left to it.
func goldenCovered(t *testing.T, args []string) string {
	if soak() || testing.Short() || len(args) == 0 || (args[0] != "run" && args[0] != "tune") {
		return ""
	}
	key := strings.Join(args, " ")
	if goldenRuns(t)[key] || goldenRuns(t)[key+" --decisions"] {
		return fmt.Sprintf("%s: cmd/ratelimit-lab's TestCatalogOutputsGolden runs and pins it; %s=1 runs it here too", key, EnvSoak)
	}
	return ""
}

var (
	goldenOnce sync.Once
	golden     map[string]bool
	goldenErr  error
)

// goldenRuns returns the commands of cmd/ratelimit-lab/testdata/
// catalog.golden, their paths relative to the module root.
func goldenRuns(t *testing.T) map[string]bool {
	goldenOnce.Do(func() {
		var b []byte
		b, goldenErr = os.ReadFile(filepath.Join(root, "cmd", "ratelimit-lab", "testdata", "catalog.golden"))
		golden = map[string]bool{}
		for _, line := range strings.Split(string(b), "\n") {
			if cmd, ok := strings.CutPrefix(line, "# ratelimit-lab "); ok {
				golden[strings.ReplaceAll(cmd, "../../", "")] = true
			}
		}
	})
	if goldenErr != nil {
		t.Fatal(goldenErr)
	}
	return golden
}

// prepare turns a documented command into the one the check runs. A
// command naming a file that is not in the repository runs with --help
// instead, which checks that it parses; run and tune get --quiet and a
// temporary --out (unless the document names one), and run --chart none
// unless EnvSoak is set; bench gets a temporary --out and a short
// --duration.
func prepare(t *testing.T, dir string, c command, n int) prepared {
	rel, _ := filepath.Rel(root, c.file)
	p := prepared{c: c, name: fmt.Sprintf("%s:%d", filepath.ToSlash(rel), c.line), skip: goldenCovered(t, c.args)}
	args := append([]string(nil), c.args...)
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	if f := missingFile(dir, args); f != "" {
		p.note = fmt.Sprintf("%s names %s, which the repository does not have: checking that it parses", c.text, f)
		p.args = append(args, "--help")
		return p
	}
	named := flagValue(args, "--out") != "" || flagValue(args, "-o") != ""
	p.order = named || sub == "report"
	switch sub {
	case "run", "tune":
		out := flagValue(args, "--out")
		if out == "" {
			out = filepath.Join(dir, fmt.Sprintf("out-%d", n))
			args = append(args, "--out", out)
		} else if !filepath.IsAbs(out) {
			out = filepath.Join(dir, out)
		}
		if !has(args, "--quiet") && !has(args, "-q") {
			args = append(args, "--quiet")
		}
		if sub == "run" && !soak() && !has(args, "--chart") {
			args = append(args, "--chart", "none")
		}
		if sub == "run" {
			p.want = []string{"series.csv", "summary.json"}
			if flagValue(args, "--chart") != "none" {
				p.want = append(p.want, "chart.png")
			}
			if has(args, "--decisions") {
				p.want = append(p.want, "decisions.csv")
			}
		} else if has(args, "--layers") {
			p.want = []string{"tune-layers.csv"}
		} else if strings.Count(" "+strings.Join(args, " ")+" ", " --rule ") > 1 || flagValue(args, "--rule") == "all" {
			// Several rules: each rule's files under N-RULE/, an index.
			p.want = []string{"report.html"}
		} else {
			p.want = []string{"tune.csv", "tune.png"}
		}
		for k, w := range p.want {
			p.want[k] = filepath.Join(out, w)
		}
	case "bench":
		if !named {
			args = append(args, "--out", filepath.Join(dir, fmt.Sprintf("out-%d", n)))
		}
		args = append(args, "--duration", benchDuration)
	}
	p.args = args
	return p
}

// result is what one command did.
type result struct {
	out []byte
	err error
}

func (p prepared) run(dir string) result {
	cmd := exec.Command(bin, p.args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return result{out, err}
}

// TestDocumentedCommandsRun runs every documented ratelimit-lab command
// and checks that it exits 0 and writes its files. A command the documents
// show more than once runs once. The commands run several at a time; those
// that name an --out directory, or read one (report), run in document
// order, one after the other, since a later one reads what an earlier one
// wrote.
func TestDocumentedCommandsRun(t *testing.T) {
	dir := workDir(t)
	var cmds []prepared
	seen := map[string]int{}
	for _, file := range docFiles(t) {
		for _, c := range extract(t, file) {
			key := strings.Join(c.args, "\x00")
			if i, ok := seen[key]; ok {
				rel, _ := filepath.Rel(root, c.file)
				cmds[i].also = append(cmds[i].also, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), c.line))
				continue
			}
			seen[key] = len(cmds)
			cmds = append(cmds, prepare(t, dir, c, len(cmds)))
		}
	}
	if len(cmds) == 0 {
		t.Fatal("found no ratelimit-lab command in README.md and docs/*.md")
	}
	results := make([]result, len(cmds))
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers())
	var ordered []int
	for i, p := range cmds {
		if p.skip != "" {
			continue
		}
		if p.order {
			ordered = append(ordered, i)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = p.run(dir)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, i := range ordered {
			sem <- struct{}{}
			results[i] = cmds[i].run(dir)
			<-sem
		}
	}()
	wg.Wait()
	for i, p := range cmds {
		t.Run(p.name, func(t *testing.T) {
			if len(p.also) > 0 {
				t.Logf("also at %s", strings.Join(p.also, ", "))
			}
			if p.skip != "" {
				t.Skip(p.skip)
			}
			if p.note != "" {
				t.Log(p.note)
			}
			r := results[i]
			if r.err != nil {
				t.Fatalf("%s\n  ran: ratelimit-lab %s\n  %v\n%s", p.c.text, strings.Join(p.args, " "), r.err, r.out)
			}
			for _, w := range p.want {
				if fi, err := os.Stat(w); err != nil || fi.Size() == 0 {
					t.Errorf("%s: %s was not written", p.c.text, filepath.Base(w))
				}
			}
		})
	}
}

// TestExtract checks the extraction on a small document.
func TestExtract(t *testing.T) {
	doc := "text\n```sh\nratelimit-lab list   # the catalog\n" +
		"go run ./cmd/ratelimit-lab run boundary-burst\n" +
		"awk '{print}' x | ratelimit-lab run --trace /dev/stdin\n" +
		"ratelimit-lab run poisson > out.txt\n" +
		"ratelimit-lab run poisson --algo 'leap-array:sample-count=10'\n```\n" +
		"```yaml\nratelimit-lab list\n```\n```console\n$ ratelimit-lab version\n```\n"
	path := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range extract(t, path) {
		got = append(got, strings.Join(c.args, " "))
	}
	want := []string{"list", "run boundary-burst", "run poisson --algo leap-array:sample-count=10", "version"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("extracted\n%q\nwant\n%q", got, want)
	}
}

// quotedRE matches a quoted output in the prose of a document:
// "`ratelimit-lab ARGS` prints `TEXT`".
var quotedRE = regexp.MustCompile("`ratelimit-lab ([^`]+)` prints `([^`]+)`")

// quote is one output the prose says a command prints.
type quote struct {
	line       int
	args, text string
}

// quotes returns the quoted outputs of one markdown file, outside code
// blocks, a paragraph's lines joined so that a quote may wrap.
func quotes(t *testing.T, path string) []quote {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []quote
	var para []string
	start, inBlock := 0, false
	flush := func() {
		for _, m := range quotedRE.FindAllStringSubmatch(strings.Join(para, " "), -1) {
			out = append(out, quote{line: start, args: m[1], text: strings.Join(strings.Fields(m[2]), " ")})
		}
		para = nil
	}
	for i, line := range strings.Split(string(b), "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "```"):
			flush()
			inBlock = !inBlock
		case inBlock:
		case trim == "":
			flush()
		default:
			if para == nil {
				start = i + 1
			}
			para = append(para, trim)
		}
	}
	flush()
	return out
}

// TestQuotedOutputs runs every command whose output the prose quotes
// ("`ratelimit-lab run boundary-burst --decisions` prints `decisions.csv:
// about ...`") and checks that it prints the quote, on stdout or stderr,
// so a quoted number cannot drift from what the lab prints.
func TestQuotedOutputs(t *testing.T) {
	dir := workDir(t)
	total := 0
	for _, file := range docFiles(t) {
		for i, q := range quotes(t, file) {
			total++
			rel, _ := filepath.Rel(root, file)
			t.Run(fmt.Sprintf("%s:%d", filepath.ToSlash(rel), q.line), func(t *testing.T) {
				args, err := split(q.args)
				if err != nil || redirects(args) {
					t.Fatalf("%q is not a command the check can run", q.args)
				}
				if len(args) > 0 && (args[0] == "run" || args[0] == "tune" || args[0] == "bench") && !has(args, "--out") {
					args = append(args, "--quiet", "--out", filepath.Join(dir, fmt.Sprintf("quote-%d-%d", q.line, i)))
				}
				cmd := exec.Command(bin, args...)
				cmd.Dir = dir
				out, _ := cmd.CombinedOutput()
				if !strings.Contains(strings.Join(strings.Fields(string(out)), " "), q.text) {
					t.Errorf("ratelimit-lab %s does not print %q; it prints:\n%s", q.args, q.text, out)
				}
			})
		}
	}
	if total == 0 {
		t.Fatal("found no quoted output in README.md and docs/*.md")
	}
}

// TestQuotes checks the extraction of quoted outputs on a small document.
func TestQuotes(t *testing.T) {
	doc := "A run (`ratelimit-lab run poisson --decisions` prints\n`decisions.csv: about\n1 KiB`) and\n\n" +
		"```sh\n`ratelimit-lab list` prints `x`\n```\n`ratelimit-lab list` prints the catalog.\n"
	path := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	got := quotes(t, path)
	if len(got) != 1 || got[0] != (quote{line: 1, args: "run poisson --decisions", text: "decisions.csv: about 1 KiB"}) {
		t.Errorf("quotes = %+v", got)
	}
}

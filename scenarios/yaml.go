package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// rawFile is a scenario file as written. Pointers tell a key left out from
// a key set to zero.
type rawFile struct {
	Name        *string        `yaml:"name"`
	Description string         `yaml:"description"`
	Limit       *float64       `yaml:"limit"`
	Duration    *time.Duration `yaml:"duration"`
	Seed        *uint64        `yaml:"seed"`
	Algorithms  []string       `yaml:"algorithms"`
	Phases      []rawPhase     `yaml:"phases"`
	Downstream  *rawDownstream `yaml:"downstream"`
	Clients     *rawClients    `yaml:"clients"`
}

// rawPhase is one phase as written: the union of every type's keys.
type rawPhase struct {
	Type      string         `yaml:"type"`
	Start     *time.Duration `yaml:"start"`
	Duration  *time.Duration `yaml:"duration"`
	Rate      *float64       `yaml:"rate"`
	TimeUnit  *time.Duration `yaml:"timeUnit"`
	StartRate *float64       `yaml:"startRate"`
	Stages    []rawStage     `yaml:"stages"`
	Count     *int64         `yaml:"count"`
	From      *time.Duration `yaml:"from"`
	To        *time.Duration `yaml:"to"`
	Every     *time.Duration `yaml:"every"`
	Until     *time.Duration `yaml:"until"`
	Seed      *uint64        `yaml:"seed"`
	At        *time.Duration `yaml:"at"`
	Offset    *time.Duration `yaml:"offset"`
	// Keys, users and priority (population_yaml.go).
	rawPhaseKeys `yaml:",inline"`
}

type rawStage struct {
	Target   *float64       `yaml:"target"`
	Duration *time.Duration `yaml:"duration"`
}

var (
	topKeys   = []string{"name", "description", "limit", "duration", "seed", "algorithms", "phases", "downstream", "clients"}
	phaseKeys = []string{"type", "start", "duration", "rate", "timeUnit", "startRate", "stages", "count", "from", "to", "every", "until", "seed", "at", "offset"}
	stageKeys = []string{"target", "duration"}

	// keysByType lists the keys each phase type accepts.
	keysByType = map[string][]string{
		PhaseConstant:  {"type", "start", "duration", "rate", "timeUnit"},
		PhaseRamping:   {"type", "start", "startRate", "timeUnit", "stages"},
		PhasePoisson:   {"type", "start", "duration", "rate", "timeUnit", "seed"},
		PhaseBurst:     {"type", "start", "from", "to", "duration", "count", "every", "until"},
		PhaseIdle:      {"type", "start", "duration"},
		PhaseClockStep: {"type", "at", "offset"},
	}
	// requiredByType lists the keys each phase type needs.
	requiredByType = map[string][]string{
		PhaseConstant:  {"rate"},
		PhaseRamping:   {"stages"},
		PhasePoisson:   {"rate"},
		PhaseBurst:     {"count"},
		PhaseIdle:      {"duration"},
		PhaseClockStep: {"at", "offset"},
	}
	// typeAliases maps k6's executor names to phase types.
	typeAliases = map[string]string{
		"constant-arrival-rate": PhaseConstant,
		"ramping-arrival-rate":  PhaseRamping,
	}
	exampleByType = map[string]string{
		PhaseConstant:  "{type: constant, rate: 200, duration: 10s}",
		PhaseRamping:   "{type: ramping, startRate: 0, stages: [{target: 200, duration: 10s}]}",
		PhasePoisson:   "{type: poisson, rate: 150}",
		PhaseBurst:     "{type: burst, count: 500, from: 900ms, to: 1s}",
		PhaseIdle:      "{type: idle, duration: 5s}",
		PhaseClockStep: "{type: clock-step, at: 5s, offset: -800ms}",
	}
)

// Loader reads scenario files and checks their limiter specs with Check.
// The package's LoadFile and Parse are a Loader with no checker.
type Loader struct {
	// Check checks each limiter spec with the scenario's limit; nil is
	// SyntaxCheck, which checks the spec syntax only (the lab loads with
	// registry.Check, which knows every family).
	Check SpecChecker
}

// LoadFile reads and parses a YAML scenario file (see Parse), checking
// its limiter specs' syntax only.
func LoadFile(path string) (Scenario, error) { return Loader{}.LoadFile(path) }

// Parse parses a YAML scenario file (see Loader.Parse), checking its
// limiter specs' syntax only.
func Parse(data []byte, name string) (Scenario, error) { return Loader{}.Parse(data, name) }

// LoadFile reads and parses a YAML scenario file (see Parse).
func (l Loader) LoadFile(path string) (Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, fmt.Errorf("%s: cannot read the scenario file (%v); check the path", path, oneLine(err.Error()))
	}
	return l.Parse(data, path)
}

// Parse parses a YAML scenario file; name is the file's name, used in
// errors and as the scenario's name when the file has no name key.
// Unknown keys, keys that do not apply to a phase's type, and values out of
// range are errors. Every error is one line: "NAME:LINE: problem; fix".
// The result is valid (Validate returns nil).
func (l Loader) Parse(data []byte, name string) (s Scenario, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = Scenario{}, fmt.Errorf("%s: cannot parse the file (%v); check that it is a YAML scenario file", name, oneLine(fmt.Sprint(r)))
		}
	}()
	p := &parser{file: name, check: l.Check}
	return p.parse(data)
}

type parser struct {
	file  string
	root  *yaml.Node  // the document's top mapping
	check SpecChecker // nil: SyntaxCheck
}

// errAt formats a one-line error at a node's line (line 0: no line).
func (p *parser) errAt(line int, format string, args ...any) error {
	msg := oneLine(fmt.Sprintf(format, args...))
	if line > 0 {
		return fmt.Errorf("%s:%d: %s", p.file, line, msg)
	}
	return fmt.Errorf("%s: %s", p.file, msg)
}

func (p *parser) parse(data []byte) (Scenario, error) {
	// Pass 1: the node tree, for syntax errors and line numbers.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Scenario{}, p.errAt(0, "the file is empty; write at least limit:, duration: and phases: (see docs/scenarios.md)")
		}
		return Scenario{}, p.syntaxError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return Scenario{}, p.errAt(extra.Line, "a second YAML document starts here; keep one scenario per file and remove the '---'")
	} else if !errors.Is(err, io.EOF) {
		return Scenario{}, p.syntaxError(err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		line := doc.Line
		if len(doc.Content) > 0 {
			line = doc.Content[0].Line
		}
		return Scenario{}, p.errAt(line, "the file is not a mapping of keys; write keys such as limit: 100 and phases: at the top level")
	}
	p.root = doc.Content[0]

	// Pass 2: the typed decode, strict about keys.
	var raw rawFile
	dec = yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return Scenario{}, p.decodeError(err)
	}
	return p.build(&raw)
}

var lineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError rewrites a YAML syntax error as one line.
func (p *parser) syntaxError(err error) error {
	msg := oneLine(err.Error())
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return p.errAt(n, "YAML syntax error: %s; check the indentation, colons and quotes on this line and the one before", m[2])
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	return p.errAt(0, "YAML syntax error: %s; check the indentation, colons and quotes", msg)
}

var (
	unknownRE = regexp.MustCompile(`^line (\d+): field (.+) not found in type \S*\.(\w+)$`)
	typeRE    = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")
	dupRE     = regexp.MustCompile(`^line (\d+): mapping key "(.*)" already defined at line (\d+)$`)
)

// decodeError rewrites the first error of the strict decode as one line.
func (p *parser) decodeError(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) || len(te.Errors) == 0 {
		return p.syntaxError(err)
	}
	e := te.Errors[0]
	if m := unknownRE.FindStringSubmatch(e); m != nil {
		line, _ := strconv.Atoi(m[1])
		key := m[2]
		where, keys := "at the top level", topKeys
		switch m[3] {
		case "rawPhase":
			where, keys = "in a phase", phaseKeys
		case "rawStage":
			where, keys = "in a stage", stageKeys
		case "rawDownstream":
			where, keys = "in downstream", downstreamKeys
		case "rawDownstreamPhase":
			where, keys = "in a downstream phase", downstreamPhaseKeys
		case "rawPopulation":
			where, keys = "in keys or users", populationFieldKeys
		case "rawClients":
			where, keys = "in clients", clientsKeys
		}
		if near := nearest(key, keys); near != "" {
			return p.errAt(line, "unknown key %q %s; did you mean %q?", key, where, near)
		}
		return p.errAt(line, "unknown key %q %s; remove it or use one of: %s", key, where, strings.Join(keys, ", "))
	}
	if m := dupRE.FindStringSubmatch(e); m != nil {
		line, _ := strconv.Atoi(m[1])
		return p.errAt(line, "key %q is set twice (first at line %s); keep one", m[2], m[3])
	}
	if m := typeRE.FindStringSubmatch(e); m != nil {
		line, _ := strconv.Atoi(m[1])
		tag, shown, goType := m[2], m[3], m[4]
		key, value := findValue(p.root, line, tag, shown)
		if value == "" {
			value = shown
		}
		subject := "the value"
		if key != "" {
			subject = key
		}
		what := "a " + tag
		switch tag {
		case "seq":
			what = "a list"
		case "map":
			what = "a mapping"
		default:
			if value != "" {
				what = strconv.Quote(value)
			}
		}
		switch {
		case goType == "float64" || goType == "uint64" || goType == "int64":
			kind := map[string]string{"float64": "a number", "uint64": "a whole number of 0 or more", "int64": "a whole number"}[goType]
			ex := numberExamples[key]
			if ex == "" {
				ex = map[string]string{"float64": "100 or 1.5", "uint64": "1", "int64": "1"}[goType]
			} else {
				ex = key + ": " + ex
			}
			return p.errAt(line, "%s: %s is not %s; write e.g. %s", subject, what, kind, ex)
		case goType == "time.Duration":
			return p.errAt(line, "%s: %s is not a duration; write a Go duration with a unit, e.g. 800ms, 1s or 1m30s", subject, what)
		case goType == "string":
			return p.errAt(line, "%s: %s is not text; write a single value on the line", subject, what)
		case goType == "[]string":
			return p.errAt(line, "%s: %s is not a list; write a list of spec strings, e.g. [fixed-window, \"leap-array:sample-count=10\"]", subject, what)
		case strings.HasSuffix(goType, "[]scenarios.rawPhase"):
			return p.errAt(line, "%s: %s is not a list of phases; start each phase with '- ', e.g. - %s", subject, what, exampleByType[PhaseConstant])
		case strings.HasSuffix(goType, "[]scenarios.rawStage"):
			return p.errAt(line, "%s: %s is not a list of stages; write e.g. [{target: 100, duration: 10s}]", subject, what)
		case strings.HasSuffix(goType, "rawPhase"):
			return p.errAt(line, "a phase is %s, not a mapping; write e.g. - %s", what, exampleByType[PhaseConstant])
		case strings.HasSuffix(goType, "rawPopulation"):
			return p.errAt(line, "%s: %s is not a mapping; write e.g. {count: 1000, dist: zipf, s: 1.1}", subject, what)
		case strings.HasSuffix(goType, "rawStage"):
			return p.errAt(line, "a stage is %s, not a mapping; write e.g. {target: 100, duration: 10s}", what)
		case strings.HasSuffix(goType, "rawFile"):
			return p.errAt(line, "the file is %s, not a mapping of keys; write keys such as limit: 100 at the top level", what)
		}
		return p.errAt(line, "%s: %s has the wrong type (%s expected); see docs/scenarios.md", subject, what, goType)
	}
	if m := regexp.MustCompile(`^line (\d+): (.*)$`).FindStringSubmatch(e); m != nil {
		line, _ := strconv.Atoi(m[1])
		return p.errAt(line, "%s; see docs/scenarios.md for the format", m[2])
	}
	return p.errAt(0, "%s; see docs/scenarios.md for the format", e)
}

// numberExamples are valid values of the numeric keys, for the hint of a
// value that is not a number: each within its key's range (retries 0–100,
// a share 0–1).
var numberExamples = map[string]string{
	"limit": "100", "rate": "100", "startRate": "10", "target": "100", "count": "500", "seed": "1",
	"users": "50", "retries": "3", "ratio": "0.1", "max": "10", "servers": "4", "io": "0.5",
	"cores": "4", "kappa": "0.01", "errors": "0.1", "priority": "0.1", "s": "1.1",
}

// findValue finds, in the tree under n, the key whose value starts on line
// with the YAML tag and (possibly truncated, "abc...") text shown, and
// returns the key and the full value.
func findValue(n *yaml.Node, line int, tag, shown string) (key, value string) {
	if n == nil {
		return "", ""
	}
	prefix := strings.TrimSuffix(shown, "...")
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Line == line && strings.TrimPrefix(v.ShortTag(), "!!") == tag {
				if v.Kind != yaml.ScalarNode || strings.HasPrefix(v.Value, prefix) {
					return k.Value, v.Value
				}
			}
		}
	}
	for _, c := range n.Content {
		if k, v := findValue(c, line, tag, shown); k != "" {
			return k, v
		}
	}
	return "", ""
}

// get returns the key and value nodes of key in mapping m (nil if absent).
func get(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// keyLine is the line of key in mapping m, or m's own line.
func keyLine(m *yaml.Node, keys ...string) int {
	for _, k := range keys {
		if kn, _ := get(m, k); kn != nil {
			return kn.Line
		}
	}
	if m != nil {
		return m.Line
	}
	return 0
}

// phaseNode returns the mapping node of phase i, as the decoder reads it:
// an alias (- *base) is the phase it names, and merge keys (<<: *base) are
// expanded.
func (p *parser) phaseNode(i int) *yaml.Node {
	_, seq := get(p.root, "phases")
	seq = resolve(seq)
	if seq == nil || seq.Kind != yaml.SequenceNode || i >= len(seq.Content) {
		return nil
	}
	return flatten(seq.Content[i])
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// isMerge reports whether a mapping key is YAML's merge key <<.
func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && (k.ShortTag() == "!!merge" || k.Tag == "" && k.Value == "<<")
}

// flatten returns a mapping with its merge keys expanded as the decoder
// expands them: keys written in the mapping win, then the merged mappings
// in order (the first one of a sequence wins). Keys keep the line where
// they are written, in the anchored mapping for merged ones.
func flatten(n *yaml.Node) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return n
	}
	merges := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		merges = merges || isMerge(n.Content[i])
	}
	if !merges {
		return n
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: n.Tag, Line: n.Line, Column: n.Column}
	seen := map[string]bool{}
	add := func(k, v *yaml.Node) {
		if !seen[k.Value] {
			seen[k.Value] = true
			out.Content = append(out.Content, k, v)
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !isMerge(n.Content[i]) {
			add(n.Content[i], n.Content[i+1])
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !isMerge(n.Content[i]) {
			continue
		}
		v := resolve(n.Content[i+1])
		var sources []*yaml.Node
		if v != nil && v.Kind == yaml.SequenceNode {
			sources = v.Content
		} else {
			sources = []*yaml.Node{v}
		}
		for _, src := range sources {
			if m := flatten(src); m != nil && m.Kind == yaml.MappingNode {
				for j := 0; j+1 < len(m.Content); j += 2 {
					add(m.Content[j], m.Content[j+1])
				}
			}
		}
	}
	return out
}

// wholeNumber checks that an integer key was written as a whole number
// (the YAML decoder truncates 2.5 to 2 silently).
func (p *parser) wholeNumber(m *yaml.Node, key string) error {
	kn, v := get(m, key)
	if v == nil || v.Kind != yaml.ScalarNode {
		return nil
	}
	s := strings.ReplaceAll(v.Value, "_", "")
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return nil
	}
	if _, err := strconv.ParseUint(s, 0, 64); err == nil {
		return nil
	}
	return p.errAt(kn.Line, "%s: %q is not a whole number; write e.g. %s: 1", key, v.Value, key)
}

// build turns the decoded file into a Scenario, resolving defaults and
// sequential starts, and checks it with the offending line.
func (p *parser) build(raw *rawFile) (Scenario, error) {
	s := Scenario{Description: oneLine(raw.Description), Seed: 1}
	if raw.Name != nil && strings.TrimSpace(*raw.Name) != "" {
		s.Name = strings.TrimSpace(*raw.Name)
	} else {
		base := filepath.Base(p.file)
		s.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if raw.Limit == nil {
		return s, p.errAt(p.root.Line, "limit is missing; add limit: with the limit in requests per second, e.g. limit: 100")
	}
	if l := *raw.Limit; !(l > 0) || math.IsInf(l, 0) {
		return s, p.errAt(keyLine(p.root, "limit"), "limit %v is not a positive number; write the limit in requests per second, e.g. limit: 100", l)
	}
	s.Limit = *raw.Limit
	if err := p.wholeNumber(p.root, "seed"); err != nil {
		return s, err
	}
	if raw.Seed != nil {
		s.Seed = *raw.Seed
	}
	if len(raw.Phases) == 0 {
		return s, p.errAt(keyLine(p.root, "phases"), "no phases; add phases: with at least one, e.g. phases: [%s]", exampleByType[PhaseConstant])
	}

	cursor := time.Duration(0) // where the previous phase ended
	openPhase := -1            // the previous phase, when it never ends
	lastEnd := time.Duration(0)
	for i := range raw.Phases {
		ph, err := p.phase(i, &raw.Phases[i], &cursor, &openPhase)
		if err != nil {
			return s, err
		}
		if !ph.openEnded() && ph.Type != PhaseClockStep {
			lastEnd = max(lastEnd, ph.needs())
		}
		s.Phases = append(s.Phases, ph)
	}

	if raw.Duration != nil {
		line := keyLine(p.root, "duration")
		if *raw.Duration <= 0 {
			return s, p.errAt(line, "duration %v is not positive; write the run's length, e.g. duration: 10s", *raw.Duration)
		}
		if *raw.Duration > MaxTime {
			return s, p.errAt(line, "duration %v is longer than %v; shorten it", *raw.Duration, MaxTime)
		}
		s.Duration = *raw.Duration
	} else {
		for i, ph := range s.Phases {
			if ph.openEnded() {
				return s, p.errAt(keyLine(p.phaseNode(i), "type"), "this %s phase has no end and the file has no top-level duration; add duration: at the top level or to the phase", ph.Type)
			}
		}
		if lastEnd <= 0 {
			return s, p.errAt(p.root.Line, "the phases take no time, so the run's length is unknown; add a top-level duration:, e.g. duration: 3s")
		}
		// Round up to a whole second, which keeps bins and plots tidy.
		s.Duration = (lastEnd + time.Second - 1) / time.Second * time.Second
		if s.Duration > MaxTime {
			return s, p.errAt(p.root.Line, "the phases run past %v; shorten them", MaxTime)
		}
	}

	if fe := checkClock(s.Phases); fe != nil {
		return s, p.errAt(keyLine(p.phaseNode(fe.phase), fe.key), "%s", fe.msg)
	}

	if raw.Algorithms == nil {
		s.Algorithms = append([]string(nil), DefaultAlgorithms...)
	} else {
		if len(raw.Algorithms) == 0 {
			return s, p.errAt(keyLine(p.root, "algorithms"), "algorithms is empty; list at least one spec such as fixed-window, or remove the key for all seven")
		}
		_, seq := get(p.root, "algorithms")
		for i, a := range raw.Algorithms {
			a = strings.TrimSpace(a)
			if err := checkSpec(p.check, a, s.Limit); err != nil {
				line := keyLine(p.root, "algorithms")
				if seq != nil && i < len(seq.Content) {
					line = seq.Content[i].Line
				}
				return s, p.errAt(line, "%v", err)
			}
			s.Algorithms = append(s.Algorithms, a)
		}
	}
	if err := p.downstream(raw.Downstream, &s); err != nil {
		return s, err
	}
	if err := p.clients(raw.Clients, &s); err != nil {
		return s, err
	}
	if err := (Loader{Check: p.check}).Validate(s); err != nil {
		return s, p.errAt(0, "%v", err)
	}
	return s, nil
}

// phase converts phase i, placing it at *cursor when it has no start.
func (p *parser) phase(i int, r *rawPhase, cursor *time.Duration, openPhase *int) (Phase, error) {
	node := p.phaseNode(i)
	line := 0
	if node != nil {
		line = node.Line
	}
	typ := strings.TrimSpace(r.Type)
	if alias, ok := typeAliases[typ]; ok {
		typ = alias
	}
	allowed, ok := keysByType[typ]
	if !ok {
		tl := keyLine(node, "type")
		if typ == "" {
			return Phase{}, p.errAt(tl, "phase %d has no type; add type: with one of %s", i+1, strings.Join(phaseTypes, ", "))
		}
		if near := nearest(typ, phaseTypes); near != "" {
			return Phase{}, p.errAt(tl, "unknown phase type %q; did you mean %q?", typ, near)
		}
		return Phase{}, p.errAt(tl, "unknown phase type %q; use one of %s", typ, strings.Join(phaseTypes, ", "))
	}
	if node != nil {
		for j := 0; j+1 < len(node.Content); j += 2 {
			k := node.Content[j]
			if !slices.Contains(allowed, k.Value) {
				return Phase{}, p.errAt(k.Line, "key %q does not apply to a %s phase; remove it (a %s phase takes %s)", k.Value, typ, typ, strings.Join(allowed[1:], ", "))
			}
		}
		for _, k := range requiredByType[typ] {
			if kn, _ := get(node, k); kn == nil {
				return Phase{}, p.errAt(line, "this %s phase has no %s; add it, e.g. %s", typ, k, exampleByType[typ])
			}
		}
		if err := p.wholeNumber(node, "count"); err != nil {
			return Phase{}, err
		}
		if err := p.wholeNumber(node, "seed"); err != nil {
			return Phase{}, err
		}
		_, stages := get(node, "stages")
		for j, st := range r.Stages {
			sl := line
			if stages != nil && j < len(stages.Content) {
				sl = stages.Content[j].Line
			}
			if st.Target == nil || st.Duration == nil {
				return Phase{}, p.errAt(sl, "stage %d needs both target and duration; write e.g. {target: 100, duration: 10s}", j+1)
			}
		}
	}

	ph := Phase{Type: typ, Seed: r.Seed}
	d := func(v *time.Duration) time.Duration {
		if v == nil {
			return 0
		}
		return *v
	}
	f := func(v *float64) float64 {
		if v == nil {
			return 0
		}
		return *v
	}
	ph.Duration = d(r.Duration)
	ph.Rate = f(r.Rate)
	ph.TimeUnit = d(r.TimeUnit)
	ph.StartRate = f(r.StartRate)
	for _, st := range r.Stages {
		ph.Stages = append(ph.Stages, Stage{Target: *st.Target, Duration: *st.Duration})
	}
	if r.Count != nil {
		ph.Count = *r.Count
		if ph.Count < 1 {
			return Phase{}, p.errAt(keyLine(node, "count"), "count %d is less than 1; a burst needs at least one arrival", ph.Count)
		}
	}
	ph.Every = d(r.Every)
	ph.Until = d(r.Until)
	ph.Offset = d(r.Offset)
	if r.TimeUnit != nil && *r.TimeUnit <= 0 {
		return Phase{}, p.errAt(keyLine(node, "timeUnit"), "timeUnit %v is not positive; use e.g. timeUnit: 1s or 1m", *r.TimeUnit)
	}
	if r.Duration != nil && *r.Duration <= 0 && typ != PhaseBurst {
		return Phase{}, p.errAt(keyLine(node, "duration"), "duration %v is not positive; give the phase a length such as 10s, or leave duration out to run until the end", *r.Duration)
	}

	// Where the phase starts.
	start := r.Start
	if typ == PhaseBurst && r.From != nil {
		if r.Start != nil {
			return Phase{}, p.errAt(keyLine(node, "from"), "a burst has both start and from; they mean the same, keep one")
		}
		start = r.From
	}
	if typ == PhaseClockStep {
		ph.Start = *r.At
	} else if start != nil {
		ph.Start = *start
	} else {
		if *openPhase >= 0 {
			return Phase{}, p.errAt(line, "phase %d would start after phase %d, which runs until the scenario's end; give this phase a start:, or phase %d a duration:", i+1, *openPhase+1, *openPhase+1)
		}
		ph.Start = *cursor
	}
	if typ == PhaseBurst && r.To != nil {
		if r.Duration != nil {
			return Phase{}, p.errAt(keyLine(node, "to"), "a burst has both to and duration; keep one (to is a time in the run, duration the width)")
		}
		if *r.To < ph.Start {
			return Phase{}, p.errAt(keyLine(node, "to"), "to %v is before from %v; a burst spreads its arrivals over [from, to)", *r.To, ph.Start)
		}
		ph.Duration = *r.To - ph.Start
	}

	if err := p.phaseKeys(i, &r.rawPhaseKeys, &ph); err != nil {
		return Phase{}, err
	}
	if e := ph.check(); e != nil {
		l := line
		if e.key == "stages" && e.stage >= 0 {
			if _, stages := get(node, "stages"); stages != nil && e.stage < len(stages.Content) {
				l = stages.Content[e.stage].Line
			}
		} else {
			keys := []string{e.key}
			switch e.key {
			case "from":
				keys = []string{"from", "start"}
			case "duration":
				keys = []string{"duration", "to"}
			}
			l = keyLine(node, keys...)
		}
		return Phase{}, p.errAt(l, "%s", e.msg)
	}

	if typ != PhaseClockStep {
		if ph.openEnded() {
			*openPhase = i
		} else {
			*openPhase = -1
			*cursor = ph.end(0)
		}
	}
	return ph, nil
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// needs returns the time a run must reach to include every arrival of a
// phase that ends (for the default duration): its end, or just after the
// last arrival of a burst.
func (p Phase) needs() time.Duration {
	if p.Type != PhaseBurst {
		return p.end(0)
	}
	last := p.Start
	if p.Every > 0 && p.Until > p.Start {
		last += (p.Until - p.Start - 1) / p.Every * p.Every
	}
	return last + max(p.Duration, 1)
}

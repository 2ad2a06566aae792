package spec

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitChainRule(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"fixed-window", []string{"fixed-window"}},
		{"leap-array+circuit-breaker", []string{"leap-array", "circuit-breaker"}},
		// A '+' before a digit is a number's exponent, not a stage.
		{"token-bucket:limit=3e+08", []string{"token-bucket:limit=3e+08"}},
		{"token-bucket:limit=3e+08+uber", []string{"token-bucket:limit=3e+08", "uber"}},
		// Spaces before the name still start a stage.
		{"a + b", []string{"a ", " b"}},
		// A trailing '+' and a doubled '+' give empty stages.
		{"a+", []string{"a", ""}},
		{"a++b", []string{"a", "", "b"}},
		{"A+B", []string{"A", "B"}},
		{"", []string{""}},
	} {
		sp := Split(c.in)
		var got []string
		for _, st := range sp.Stages {
			got = append(got, st.Text)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Split(%q) stages %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSplitStage(t *testing.T) {
	sp := Split(" Leap-Array : Limit = 100 ,window=1s,bad, =x,key=ip ")
	if len(sp.Stages) != 1 {
		t.Fatalf("got %d stages, want 1", len(sp.Stages))
	}
	st := sp.Stages[0]
	if st.Name != "leap-array" || st.Rest != " Limit = 100 ,window=1s,bad, =x,key=ip" {
		t.Errorf("name %q rest %q", st.Name, st.Rest)
	}
	want := []Param{
		{Text: " Limit = 100 ", Key: "limit", Value: "100", OK: true},
		{Text: "window=1s", Key: "window", Value: "1s", OK: true},
		{Text: "bad", Key: "bad", OK: false},
		{Text: " =x", Key: "", Value: "x", OK: false},
		{Text: "key=ip", Key: "key", Value: "ip", OK: true},
	}
	if !reflect.DeepEqual(st.Params, want) {
		t.Errorf("params %+v\nwant %+v", st.Params, want)
	}
	if st.Key() != "ip" {
		t.Errorf("Key() = %q, want ip", st.Key())
	}
	if v, ok := st.Get("window"); !ok || v != "1s" {
		t.Errorf("Get(window) = %q, %v", v, ok)
	}
	if _, ok := st.Get("bad"); ok {
		t.Error("Get(bad) found a parameter that is not key=value")
	}
	if got := (Spec{Stages: []Stage{st}}).String(); got != "leap-array:limit=100,window=1s,bad,=x,key=ip" {
		t.Errorf("String() = %q", got)
	}
}

func TestSplitNoParams(t *testing.T) {
	for _, in := range []string{"uber", "uber:", "uber:  ", " UBER "} {
		st := Split(in).Stages[0]
		if st.Name != "uber" || len(st.Params) != 0 || st.String() != "uber" {
			t.Errorf("Split(%q): name %q params %v string %q", in, st.Name, st.Params, st.String())
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `empty algorithm spec "": write NAME[:key=value,...], for example leap-array:sample-count=10`},
		{" :limit=1", `empty algorithm spec " :limit=1": write NAME[:key=value,...], for example leap-array:sample-count=10`},
		{"a++b", `chain "a++b" has an empty stage; write A+B, for example leap-array:limit=100+circuit-breaker:strategy=error-count,threshold=5`},
		{"a+", `chain "a+" has an empty stage; write A+B, for example leap-array:limit=100+circuit-breaker:strategy=error-count,threshold=5`},
		{"a:limit", `a: parameter "limit" is not key=value (for example a:key=value)`},
		{"a:limit=", `a: parameter "limit=" is not key=value (for example a:key=value)`},
		{"a:limit=1,LIMIT=2", `a: parameter "limit" is given twice`},
		{"a:limit=1+b:x", `b: parameter "x" is not key=value (for example b:key=value)`},
	} {
		_, err := Parse(c.in)
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v\nwant %s", c.in, err, c.want)
		}
	}
}

func TestParseChain(t *testing.T) {
	sp, err := Parse("leap-array:limit=100 + circuit-breaker:strategy=error-count,threshold=5,key=user")
	if err != nil {
		t.Fatal(err)
	}
	if !sp.IsChain() || !reflect.DeepEqual(sp.Names(), []string{"leap-array", "circuit-breaker"}) {
		t.Errorf("names %v", sp.Names())
	}
	if sp.Stages[0].Key() != "" || sp.Stages[1].Key() != "user" {
		t.Errorf("keys %q %q", sp.Stages[0].Key(), sp.Stages[1].Key())
	}
	if got := sp.String(); got != "leap-array:limit=100+circuit-breaker:strategy=error-count,threshold=5,key=user" {
		t.Errorf("String() = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"fixed-window", "leap-array:limit=100,sample-count=10,interval=1s",
		"token-bucket:limit=3e+08+circuit-breaker:strategy=error-ratio,threshold=0.5",
		"nginx-limit-req:rate=10r/s,burst=20+nginx-limit-req:rate=1r/s,key=ip",
		"sentinel-param:items=a:1|b:2,key=user", "a++b", "a+", ":", ",", "x:=,=", " A + B : K = V ",
		"redis-sliding-log:instances=4,rtt=4ms",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp := Split(s)
		if len(sp.Stages) == 0 {
			t.Fatalf("Split(%q) has no stage", s)
		}
		texts := make([]string, len(sp.Stages))
		for i, st := range sp.Stages {
			texts[i] = st.Text
			if strings.Contains(st.Name, ":") {
				t.Fatalf("stage %q: name %q holds a ':'", st.Text, st.Name)
			}
			if len(st.Params) > 0 {
				var kvs []string
				for _, p := range st.Params {
					kvs = append(kvs, p.Text)
				}
				if strings.Join(kvs, ",") != st.Rest {
					t.Fatalf("stage %q: params %q do not join to rest %q", st.Text, kvs, st.Rest)
				}
			}
			for _, p := range st.Params {
				if p.OK && (p.Key == "" || p.Value == "" || strings.Contains(p.Key, "=")) {
					t.Fatalf("stage %q: param %+v is OK but malformed", st.Text, p)
				}
			}
		}
		if strings.Join(texts, "+") != s {
			t.Fatalf("stages %q do not join to %q", texts, s)
		}
		parsed, err := Parse(s)
		if err != nil {
			return
		}
		if !reflect.DeepEqual(parsed, sp) {
			t.Fatalf("Parse and Split differ on %q", s)
		}
		// The canonical form parses to itself, except where trimming bares
		// a '+' at the end of a name or value (so a '+' that was followed
		// by a tab now ends the text) or lower-casing turns a non-ASCII
		// letter into an ASCII one (the Kelvin sign into 'k'): either moves
		// a stage boundary.
		if !isASCII(s) || endsInPlus(parsed) {
			return
		}
		c := parsed.String()
		again, err := Parse(c)
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", c, s, err)
		}
		if again.String() != c || !reflect.DeepEqual(again.Names(), parsed.Names()) {
			t.Fatalf("canonical %q of %q reparses as %q", c, s, again.String())
		}
	})
}

func endsInPlus(sp Spec) bool {
	for _, st := range sp.Stages {
		if strings.HasSuffix(st.String(), "+") || strings.HasSuffix(st.Name, "+") {
			return true
		}
		for _, p := range st.Params {
			if strings.HasSuffix(p.Value, "+") || strings.HasSuffix(p.Key, "+") {
				return true
			}
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

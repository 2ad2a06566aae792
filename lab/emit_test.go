package lab

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

// TestEmitPatchesTheUsersFile: from a --rules rule, Emit writes the user's
// file with only the tuned value changed; in another format, or without a
// rule, a new file; a spec the rule's fields cannot reach is refused.
func TestEmitPatchesTheUsersFile(t *testing.T) {
	const file = "../examples/rules/traefik-dynamic.yml"
	rs, err := rules.Load(file, "")
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(file)
	var b bytes.Buffer
	if err := Emit(&b, "", "traefik:average=80,period=1s,burst=50,key=ip", &rs[0], nil); err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(orig), "average: 100", "average: 80", 1); b.String() != want {
		t.Errorf("patched file:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := Emit(&b, "kong", "kong:second=5,policy=local,key=ip", &rs[0], nil); err != nil || !strings.Contains(b.String(), "  - name: api-ratelimit\n") {
		t.Errorf("another format: %v\n%s", err, b.String())
	}
	b.Reset()
	err = Emit(&b, "traefik", "traefik:average=80,period=1s,burst=50,key=x-user", &rs[0], nil)
	if err == nil || !strings.Contains(err.Error(), "key=x-user") || b.Len() != 0 {
		t.Errorf("a key change is no field patch: %v, wrote %q", err, b.String())
	}
	if err := Emit(&b, "", "traefik:average=1", nil, nil); err == nil || !strings.Contains(err.Error(), "needs a format") {
		t.Errorf("no format, no rule: %v", err)
	}
	// ingress-nginx: no field to patch, a new Ingress in its format.
	ing, err := rules.Load("../examples/rules/ingress.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := Emit(&b, "", "nginx-limit-req:rate=20r/s,burst=60,nodelay=true,zone=5m,key=ip", &ing[1], nil); err != nil || !strings.Contains(b.String(), `limit-rps: "20"`) {
		t.Errorf("ingress-nginx: %v\n%s", err, b.String())
	}
}

package rules

import (
	"strings"
	"testing"
)

// TestExplainShowsLints: explain prints each rule's trap under that rule
// (the traefik file's second rule has one, its first none), in one line.
func TestExplainShowsLints(t *testing.T) {
	const file = "../examples/rules/traefik-dynamic.yml"
	rs, err := Load(file, "auto")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteExplain(&b, file, rs, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	blocks := strings.Split(out, "\n\n")
	if len(blocks) != 3 || strings.Contains(blocks[1], "lint:") {
		t.Fatalf("explain:\n%s\nwant a header and two rules, the first without a lint", out)
	}
	want := "\n  lint:  [traefik-burst-1] average=6 period=1m0s with burst 1 admits one request per 10s: a second request 1s after the first gets 429, although the period allows 6; fix: set burst to the requests a client may send together, up to average (burst: 6) (rules lint " + file + " replays it)\n"
	if !strings.HasPrefix(blocks[2], "login-ratelimit") || !strings.Contains(blocks[2], want) {
		t.Errorf("the login rule's block:\n%s\nwant%s", blocks[2], want)
	}
}

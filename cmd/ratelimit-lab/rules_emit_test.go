package main

import (
	"strings"
	"testing"
)

// rules emit writes a spec in the product's syntax on stdout, and refuses
// a spec the format cannot hold in one line on stderr, exit status 1.
func TestRulesEmit(t *testing.T) {
	out, errOut, code := binary(t, "rules", "emit", "--format", "kong", "--algo", "kong:minute=100,policy=local,key=ip", "--name", "orders")
	if code != 0 || !strings.Contains(out, "      - name: rate-limiting\n        config:\n          minute: 100\n          policy: local\n          limit_by: ip\n") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	out, errOut, code = binary(t, "rules", "emit", "--format", "sentinel", "--algo", "leap-array:limit=100,sample-count=10")
	if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "sample-count=10") {
		t.Errorf("exit %d, stdout %q, stderr %q; want one line naming sample-count=10", code, out, errOut)
	}
}

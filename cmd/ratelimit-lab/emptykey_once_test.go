package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An access log whose --key field is "-" on every line gets one warning
// (the reader's, counted over the lines), not a second per keyed row; a
// CSV trace's empty cells get the per-row one.
func TestEmptyKeyWarnsOnce(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "a.log")
	line := `1.2.3.4 - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 2326 "-" "curl"` + "\n"
	os.WriteFile(log, []byte(strings.Repeat(line, 3)), 0o644)
	csv := filepath.Join(dir, "e.csv")
	os.WriteFile(csv, []byte("t_ms,ip\n0,\n1,\n2,\n3,1.2.3.4\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--trace", log, "--key", "user", "--limit", "1", "--algo", "nginx-limit-req:rate=1,key=user", "-q", "--out", filepath.Join(dir, "a")}, `--key user is empty or "-" on 3 of 3 requests`},
		{[]string{"run", "--trace", csv, "--limit", "1", "--algo", "nginx-limit-req:rate=1,key=ip", "-q", "--out", filepath.Join(dir, "b")}, `3 of 4 requests (75%) have an empty key column "ip"`},
	} {
		stdout, stderr, code := binary(t, c.args...)
		all := stdout + stderr
		if code != 0 || strings.Count(all, "warning:") != 1 || !strings.Contains(all, c.want) {
			t.Errorf("%v: exit %d, %d warnings, output %q; want exit 0 and one warning %q", c.args[1:3], code, strings.Count(all, "warning:"), all, c.want)
		}
	}
}

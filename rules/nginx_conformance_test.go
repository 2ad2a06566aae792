package rules

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nginxForTest is the nginx binary the conformance tests run: it fails
// under CI without one (.ci/nginx.sh installs nginx-light and sets
// RATELIMIT_LAB_NGINX), and skips elsewhere.
func nginxForTest(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("RATELIMIT_LAB_NGINX")
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("the nginx -t checks need RATELIMIT_LAB_NGINX; .ci/nginx.sh installs nginx-light and sets it")
		}
		t.Skip("the nginx -t checks run nginx: set RATELIMIT_LAB_NGINX=/usr/sbin/nginx (apt-get install nginx-light), or run .ci/run")
	}
	return bin
}

// copyForNginx copies testdata dir into a fresh directory for nginx -t:
// /etc/nginx becomes the copy, the logs and the pid file go beside it, and
// the user line is commented out (nginx -t as a user other than root
// would only warn, but a CI container may lack www-data). Lines keep their
// numbers.
func copyForNginx(t *testing.T, dir string) (root string) {
	t.Helper()
	root = t.TempDir()
	conf := filepath.Join(root, "conf")
	if err := os.MkdirAll(filepath.Join(root, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out := filepath.Join(conf, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := strings.NewReplacer("/etc/nginx", conf, "/var/log/nginx", filepath.Join(root, "logs"), "/run/nginx.pid", filepath.Join(root, "nginx.pid")).Replace(string(b))
		s = regexp.MustCompile(`(?m)^user `).ReplaceAllString(s, "# user ")
		return os.WriteFile(out, []byte(s), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// nginxTest runs nginx -t on main and returns its emergency line ("" when
// nginx accepts the configuration).
func nginxTest(t *testing.T, bin, root, main string) string {
	t.Helper()
	cmd := exec.Command(bin, "-t", "-q", "-p", root+"/", "-c", main, "-e", filepath.Join(root, "logs", "error.log"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		return ""
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if _, msg, ok := strings.Cut(line, "[emerg] "); ok {
			return msg
		}
	}
	t.Fatalf("nginx -t %s failed without an [emerg] line: %s", main, stderr.String())
	return ""
}

// TestNginxAgreesWithNginx holds the lab's nginx testdata to nginx
// itself: each configuration the lab reads is one nginx -t accepts (the
// files given together joined as the lab joins them: the others included
// at the end of the main file's http block, or a lone http block around
// them), and each one the lab refuses as nginx does is refused by nginx
// with the same line. nginx-stream needs the stream module, which
// nginx-light does not build in, and nginx-missing shows where the lab is
// deliberately more lenient (stock files it was not given).
func TestNginxAgreesWithNginx(t *testing.T) {
	bin := nginxForTest(t)
	t.Run("accepted", func(t *testing.T) {
		for _, c := range []struct {
			dir, main string
			together  []string
		}{
			{"testdata/nginx-tree", "nginx.conf", nil},
			{"testdata/nginx-conn", "nginx.conf", nil},
			{"testdata/nginx-syntax", "nginx.conf", nil},
			{"testdata/nginx-split", "nginx.conf", []string{"api.conf"}},
			{"testdata/nginx-confd", "", []string{"00-zones.conf", "api.conf"}},
		} {
			root := copyForNginx(t, c.dir)
			conf := filepath.Join(root, "conf")
			main := filepath.Join(conf, c.main)
			var incs strings.Builder
			for _, f := range c.together {
				incs.WriteString("    include " + filepath.Join(conf, f) + ";\n")
			}
			if c.main == "" {
				main = filepath.Join(root, "wrap.conf")
				if err := os.WriteFile(main, []byte("events {}\nhttp {\n"+incs.String()+"}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if len(c.together) > 0 {
				b, _ := os.ReadFile(main)
				at := bytes.LastIndexByte(b, '}')
				b = append(b[:at:at], append([]byte(incs.String()), b[at:]...)...)
				if err := os.WriteFile(main, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if msg := nginxTest(t, bin, root, main); msg != "" {
				t.Errorf("%s: the lab reads it, nginx -t refuses it: %s", c.dir, msg)
			}
		}
	})
	t.Run("refused", func(t *testing.T) {
		root := copyForNginx(t, "testdata/nginx-refused")
		for name, want := range nginxRefused {
			msg := nginxTest(t, bin, root, filepath.Join(root, "conf", name))
			msg = strings.ReplaceAll(msg, filepath.Join(root, "conf"), "testdata/nginx-refused")
			if msg != want {
				t.Errorf("%s: nginx -t says %q, the lab %q", name, msg, want)
			}
		}
	})
	t.Run("missing", func(t *testing.T) {
		root := copyForNginx(t, "testdata/nginx-missing")
		conf := filepath.Join(root, "conf")
		// The include that matters: both refuse, at the same line.
		if msg := nginxTest(t, bin, root, filepath.Join(conf, "matters.conf")); !strings.HasSuffix(msg, "matters.conf:5") || !strings.Contains(msg, "limits/zones.conf") {
			t.Errorf("matters.conf: nginx -t says %q, want a failed open of limits/zones.conf at matters.conf:5", msg)
		}
		// A stock file: nginx cannot open it either; the lab notes it.
		if msg := nginxTest(t, bin, root, filepath.Join(conf, "stock.conf")); !strings.HasSuffix(msg, "stock.conf:6") || !strings.Contains(msg, "mime.types") {
			t.Errorf("stock.conf: nginx -t says %q, want a failed open of mime.types at stock.conf:6", msg)
		}
	})
}

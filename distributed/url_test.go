package distributed

import (
	"context"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
)

// No message about a --redis URL prints its credentials: not the URL that
// does not parse (url.Parse and go-redis echo it, or the piece they
// stumbled on), not the server that is unreachable or refuses them.
func TestURLErrorsHideCredentials(t *testing.T) {
	const secret = "s3cret"
	locked := miniredis.RunT(t)
	locked.RequireAuth("right")
	for _, c := range []struct{ url, want string }{
		{"redis://user:" + secret + "@127.0.0.1:notaport/0", `--redis redis://xxx@127.0.0.1:notaport/0 is not a Redis URL (invalid port ":notaport" after host)`},
		{"http://user:" + secret + "@host/0", "--redis http://xxx@host/0 is not a Redis URL (redis: invalid URL scheme: http)"},
		{"redis://:" + secret + "@127.0.0.1:6379/x", "is not a Redis URL"},
		{"redis://:s3/cret@127.0.0.1:6379/0", "--redis redis://xxx@127.0.0.1:6379/0 is not a Redis URL;"},
		{"redis://:" + secret + "%zz@127.0.0.1/0", "a % in the credentials is not followed by two hex digits"},
		{"redis://:" + secret + "@bad host:1/0", `invalid character " " in host name`},
		{"user:" + secret + "@127.0.0.1:6379", "--redis xxx@127.0.0.1:6379 is not a Redis URL"},
		{"redis://:" + secret + "@127.0.0.1:6379/0?max_retries=many", "redis: invalid max_retries number"},
		{"redis://user:" + secret + "@127.0.0.1:1/0", "is unreachable"},
		{"redis://:" + secret + "@" + locked.Addr() + "/0", "refused the password"},
	} {
		_, err := OpenURL(context.Background(), c.url, 0)
		if err == nil {
			t.Errorf("%s: no error", c.url)
			continue
		}
		msg := err.Error()
		for _, s := range []string{secret, "s3/cret", `"s3"`, "cret"} {
			if strings.Contains(msg, s) {
				t.Errorf("%s: the message shows the credentials (%s): %s", c.url, s, msg)
			}
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q lacks %q", c.url, msg, c.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for raw, want := range map[string]string{
		"redis://127.0.0.1:6379/0":       "redis://127.0.0.1:6379/0",
		"redis://:pw@127.0.0.1:6379/0":   "redis://xxx@127.0.0.1:6379/0",
		"redis://u:p@w@127.0.0.1:6379/0": "redis://xxx@127.0.0.1:6379/0",
		"rediss://u:p/w#x@h:1/0":         "rediss://xxx@h:1/0",
		"u:p@h:1":                        "xxx@h:1",
		"lua":                            "lua",
	} {
		if got := RedactURL(raw); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

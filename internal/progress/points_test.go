package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestPointsBar(t *testing.T) {
	if got := PointsLine(12, 40, "burst=20 (passed 4123)"); got != "points 12 / 40   30% [######              ]  best: burst=20 (passed 4123)" {
		t.Errorf("line %q", got)
	}
	if got := PointsLine(5, 0, "none feasible yet"); got != "points 5  best: none feasible yet" {
		t.Errorf("bisecting: %q", got)
	}
	var out bytes.Buffer
	p := NewPoints(&out, true, 40)
	at := p.start
	p.now = func() time.Time { return at }
	p.Update(1, 4, "x")
	if out.Len() != 0 {
		t.Errorf("drew before a second: %q", out.String())
	}
	at = at.Add(2 * time.Second)
	p.Update(2, 4, "burst=1")
	if !strings.HasPrefix(out.String(), "\rpoints 2 / 4") || len([]rune(strings.TrimPrefix(out.String(), "\r"))) > 39 {
		t.Errorf("frame %q", out.String())
	}
	p.Finish()
	if !strings.HasSuffix(out.String(), "\r") {
		t.Errorf("not cleared: %q", out.String())
	}
}

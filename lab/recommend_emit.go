package lab

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

// emitExt is the extension of a new file in each --emit format.
var emitExt = map[string]string{
	"nginx": ".conf", "sentinel": ".json", "traefik": ".yaml", "kong": ".yaml",
}

// checkEmit refuses an --emit format the lab cannot write, before any
// point runs.
func checkEmit(format string) error {
	if format == "" || slices.Contains(rules.EmitFormatNames(), strings.ToLower(format)) {
		return nil
	}
	return fmt.Errorf("--emit %s: not a format the lab writes; use one of %s", format, strings.Join(rules.EmitFormatNames(), ", "))
}

// emitName is the file --emit writes: the user's own file's name after
// "recommended-" when the recommendation patches it (a --rules row in its
// own format), else recommended with the format's extension.
func emitName(format string, rule *rules.Rule) string {
	format = strings.ToLower(format)
	if rule != nil && format == rule.Format && len(rules.TunableFields(*rule)) > 0 {
		file := rule.Source
		if i := strings.LastIndexByte(file, ':'); i > 0 {
			file = file[:i]
		}
		return "recommended-" + filepath.Base(file)
	}
	ext, ok := emitExt[format]
	if !ok {
		ext = ".yaml"
	}
	return "recommended" + ext
}

// emitRecommended is the recommended configuration in format's syntax
// (Emit), or nil when no point meets the goals.
func (rec *Recommendation) emitRecommended(format string) (name string, data []byte, err error) {
	if format == "" || rec.Best == nil {
		return "", nil, nil
	}
	var buf bytes.Buffer
	if err := Emit(&buf, format, rec.Spec(), rec.Rule, nil); err != nil {
		return "", nil, fmt.Errorf("--emit %s: %w", format, err)
	}
	return emitName(format, rec.Rule), buf.Bytes(), nil
}

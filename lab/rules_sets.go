package lab

import (
	"fmt"
	"strings"

	"github.com/ratelimit-lab/ratelimit-lab/rules"
)

// LoadRuleSets reads the --rules arguments together (rules.LoadFiles:
// directories expanded, nginx files combined into one configuration, the
// other files one by one) and checks, as LoadRules does, that every rule
// with a row becomes a spec the lab builds. An nginx configuration of
// zones alone comes back as a Set with its Fragment.
func LoadRuleSets(files []string, format, nginxPrefix string) ([]rules.Set, error) {
	sets, err := rules.LoadFiles(files, format, rules.Options{NginxPrefix: nginxPrefix})
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		for _, r := range s.Rules {
			if r.Spec == "" && !r.Active() {
				continue // no row: nothing to build
			}
			if err := checkSpec(r.Spec); err != nil {
				return nil, fmt.Errorf("%s: rule %q becomes %s, which the lab cannot build (%s); remove the rule, or run its nearest spec with --algo", r.Source, r.Name, r.Spec, strings.TrimSpace(err.Error()))
			}
		}
	}
	return sets, nil
}

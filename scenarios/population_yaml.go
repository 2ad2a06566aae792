package scenarios

import (
	"strings"
)

// rawPhaseKeys are a phase's key settings as written (see PhaseKeys).
type rawPhaseKeys struct {
	Keys     *rawPopulation `yaml:"keys"`
	Key      *string        `yaml:"key"`
	Spray    *bool          `yaml:"spray"`
	Users    *rawPopulation `yaml:"users"`
	Priority *float64       `yaml:"priority"`
}

type rawPopulation struct {
	Count *int64   `yaml:"count"`
	Dist  *string  `yaml:"dist"`
	S     *float64 `yaml:"s"`
}

var populationFieldKeys = []string{"count", "dist", "s"}

func init() {
	phaseKeys = append(phaseKeys, populationKeys...)
	for _, t := range []string{PhaseConstant, PhaseRamping, PhasePoisson, PhaseBurst} {
		keysByType[t] = append(keysByType[t], populationKeys...)
	}
}

// phaseKeys converts a phase's key settings into ph, checking what the
// typed decode cannot: counts written as whole numbers, a count present,
// and a key that is not empty. Range checks are Phase.checkKeys's.
func (p *parser) phaseKeys(i int, r *rawPhaseKeys, ph *Phase) error {
	node := p.phaseNode(i)
	pop := func(key string, rp *rawPopulation, out *Population) error {
		if rp == nil {
			return nil
		}
		_, v := get(node, key)
		if err := p.wholeNumber(v, "count"); err != nil {
			return err
		}
		if rp.Count == nil {
			return p.errAt(keyLine(node, key), "%s has no count; write e.g. %s: {count: 1000, dist: zipf, s: 1.1}", key, key)
		}
		out.Count = *rp.Count
		if out.Count < 1 {
			return p.errAt(keyLine(node, key), "%s: count %d is out of range; give 1 to %d, e.g. %s: {count: 1000}", key, out.Count, int64(MaxPopulation), key)
		}
		if rp.Dist != nil {
			out.Dist = strings.TrimSpace(*rp.Dist)
			if out.Dist == "" {
				return p.errAt(keyLine(node, key), "%s: dist is empty; write dist: uniform or dist: zipf", key)
			}
		}
		if rp.S != nil {
			out.S = *rp.S
			if out.S == 0 {
				return p.errAt(keyLine(node, key), "%s: s is 0; give a Zipf exponent above 0, e.g. s: 1.1", key)
			}
		}
		return nil
	}
	if err := pop("keys", r.Keys, &ph.Keys); err != nil {
		return err
	}
	if err := pop("users", r.Users, &ph.Users); err != nil {
		return err
	}
	if r.Key != nil {
		ph.Key = strings.TrimSpace(*r.Key)
		if ph.Key == "" {
			return p.errAt(keyLine(node, "key"), "key is empty; name the client, e.g. key: office-nat (an arrival without a key is not accounted)")
		}
	}
	if r.Spray != nil {
		ph.Spray = *r.Spray
	}
	if r.Priority != nil {
		ph.Priority = *r.Priority
	}
	return nil
}

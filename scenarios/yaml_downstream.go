package scenarios

import (
	"time"

	"go.yaml.in/yaml/v3"
)

// rawDownstream is the downstream: block as written.
type rawDownstream struct {
	Servers *int64               `yaml:"servers"`
	Service *time.Duration       `yaml:"service"`
	Timeout *time.Duration       `yaml:"timeout"`
	Seed    *uint64              `yaml:"seed"`
	Phases  []rawDownstreamPhase `yaml:"phases"`
	Cancel  *bool                `yaml:"cancel-on-timeout"`
	IO      *float64             `yaml:"io"`
	Disc    *string              `yaml:"discipline"`
	Cores   *float64             `yaml:"cores"`
	Kappa   *float64             `yaml:"kappa"`
}

type rawDownstreamPhase struct {
	From    *time.Duration `yaml:"from"`
	To      *time.Duration `yaml:"to"`
	Service *time.Duration `yaml:"service"`
	Errors  *float64       `yaml:"errors"`
	IO      *float64       `yaml:"io"`
	Cores   *float64       `yaml:"cores"`
	Servers *int64         `yaml:"servers"`
}

var (
	downstreamKeys      = []string{"servers", "service", "timeout", "seed", "phases", "cancel-on-timeout", "io", "discipline", "cores", "kappa"}
	downstreamPhaseKeys = []string{"from", "to", "service", "errors", "io", "cores", "servers"}
)

// downstream converts the downstream: block (absent: none).
func (p *parser) downstream(r *rawDownstream, s *Scenario) error {
	if r == nil {
		return nil
	}
	kn, node := get(p.root, "downstream")
	line := func(keys ...string) int {
		if len(keys) == 0 && kn != nil {
			return kn.Line
		}
		return keyLine(node, keys...)
	}
	if err := p.durationsInRange("downstream", r, node); err != nil {
		return err
	}
	if err := p.wholeNumber(node, "servers"); err != nil {
		return err
	}
	d := &Downstream{Servers: 1, Seed: s.Seed}
	if r.Servers != nil {
		if *r.Servers < 1 || *r.Servers > 1_000_000 {
			return p.errAt(line("servers"), "downstream servers %d is out of range; write how many requests are served at once, 1 to 1000000, e.g. servers: 8", *r.Servers)
		}
		d.Servers = int(*r.Servers)
	}
	if r.Service == nil {
		return p.errAt(line(), "downstream has no service; add the time to serve one request, e.g. service: 20ms")
	}
	if *r.Service < 0 {
		return p.errAt(line("service"), "downstream service %v is negative; write e.g. service: 20ms", *r.Service)
	}
	d.Service = *r.Service
	if r.Timeout != nil {
		if *r.Timeout <= 0 {
			return p.errAt(line("timeout"), "downstream timeout %v is not positive; write e.g. timeout: 1s, or leave it out for none", *r.Timeout)
		}
		d.Timeout = *r.Timeout
	}
	if err := p.wholeNumber(node, "seed"); err != nil {
		return err
	}
	if r.Seed != nil {
		d.Seed = *r.Seed
	}
	_, seq := get(node, "phases")
	for i, rp := range r.Phases {
		var pn *yaml.Node
		if seq != nil && i < len(seq.Content) {
			pn = seq.Content[i]
		}
		pl := func(keys ...string) int { return keyLine(pn, keys...) }
		if rp.From == nil || rp.To == nil {
			return p.errAt(pl(), "a downstream phase needs from: and to:, e.g. {from: 10s, to: 20s, service: 400ms, errors: 0.3}")
		}
		ph := DownstreamPhase{From: *rp.From, To: *rp.To, Service: d.Service}
		if ph.From < 0 {
			return p.errAt(pl("from"), "downstream phase: from %v is negative; phases are times from the start of the run, e.g. from: 10s", ph.From)
		}
		if ph.To <= ph.From {
			return p.errAt(pl("to"), "downstream phase: to (%v) is not after from (%v)", ph.To, ph.From)
		}
		if rp.Service != nil {
			if *rp.Service < 0 {
				return p.errAt(pl("service"), "downstream phase: service %v is negative; write e.g. service: 400ms", *rp.Service)
			}
			ph.Service = *rp.Service
		}
		if rp.Errors != nil {
			if e := *rp.Errors; !(e >= 0 && e <= 1) {
				return p.errAt(pl("errors"), "downstream phase: errors %v is not a share between 0 and 1; write e.g. errors: 0.3", e)
			}
			ph.Errors = *rp.Errors
		}
		if rp.IO != nil {
			if e := *rp.IO; !(e >= 0 && e <= 1) {
				return p.errAt(pl("io"), "downstream phase: io %v is not a share between 0 and 1; write e.g. io: 0.9 (90%% of the service waits on I/O)", e)
			}
			ph.IOShare, ph.HasIO = *rp.IO, true
		}
		if rp.Servers != nil {
			if *rp.Servers < 1 || *rp.Servers > 1_000_000 {
				return p.errAt(pl("servers"), "downstream phase: servers %d is out of range; write 1 to 1000000, e.g. servers: 4", *rp.Servers)
			}
			ph.Servers = int(*rp.Servers)
		}
		if rp.Cores != nil {
			if !(*rp.Cores > 0) || *rp.Cores > 1e6 {
				return p.errAt(pl("cores"), "downstream phase: cores %v is not positive; write e.g. cores: 2 (discipline: ps)", *rp.Cores)
			}
			ph.Cores = *rp.Cores
		}
		d.Phases = append(d.Phases, ph)
	}
	if i, j, ok := d.Overlap(); ok {
		a, b := d.Phases[i], d.Phases[j]
		at := func(k int) int {
			if seq != nil && k < len(seq.Content) {
				return seq.Content[k].Line
			}
			return line("phases")
		}
		return p.errAt(at(j), "downstream phase %d [%v, %v) overlaps phase %d [%v, %v) at line %d; end one before the other starts (phases may not overlap)", j+1, b.From, b.To, i+1, a.From, a.To, at(i))
	}
	if r.Cancel != nil {
		d.CancelOnTimeout = *r.Cancel
	}
	if r.Disc != nil {
		switch *r.Disc {
		case "fifo":
		case "ps":
			d.PS = true
			d.Cores = float64(d.Servers)
		default:
			return p.errAt(line("discipline"), "downstream discipline %q does not exist; use fifo (servers and a queue) or ps (processor sharing on cores)", *r.Disc)
		}
	}
	if r.Cores != nil {
		if !(*r.Cores > 0) || *r.Cores > 1e6 {
			return p.errAt(line("cores"), "downstream cores %v is not positive; write e.g. cores: 4", *r.Cores)
		}
		if !d.PS {
			return p.errAt(line("cores"), "downstream cores applies to discipline: ps; add discipline: ps or use servers:")
		}
		d.Cores = *r.Cores
	}
	if r.Kappa != nil {
		if !(*r.Kappa >= 0 && *r.Kappa <= 1) {
			return p.errAt(line("kappa"), "downstream kappa %v is out of range; write a contention factor from 0 to 1, e.g. kappa: 0.01", *r.Kappa)
		}
		if !d.PS {
			return p.errAt(line("kappa"), "downstream kappa applies to discipline: ps; add discipline: ps")
		}
		d.Kappa = *r.Kappa
	}
	for i := range d.Phases {
		if d.Phases[i].Servers > 0 && d.PS {
			return p.errAt(line("phases"), "downstream phase %d sets servers, which applies to discipline: fifo; with ps write cores:", i+1)
		}
		if d.Phases[i].Cores > 0 && !d.PS {
			return p.errAt(line("phases"), "downstream phase %d sets cores, which applies to discipline: ps; add discipline: ps", i+1)
		}
	}
	if r.IO != nil {
		if e := *r.IO; !(e >= 0 && e <= 1) {
			return p.errAt(line("io"), "downstream io %v is not a share between 0 and 1; write e.g. io: 0.5", e)
		}
		d.IOShare = *r.IO
	}
	if err := d.Validate(); err != nil {
		return p.errAt(line(), "%v", err)
	}
	s.Downstream = d
	return nil
}

package scenarios

import (
	"strings"
	"time"
)

// rawClients is the clients: block as written.
type rawClients struct {
	Timeout *time.Duration `yaml:"timeout"`
	Users   *int64         `yaml:"users"`
	Think   *time.Duration `yaml:"think"`
	Retries *int64         `yaml:"retries"`
	Backoff *struct {
		Base   *time.Duration `yaml:"base"`
		Cap    *time.Duration `yaml:"cap"`
		Jitter *string        `yaml:"jitter"`
	} `yaml:"backoff"`
	RetryOn []string `yaml:"retry-on"`
	Budget  *struct {
		Ratio *float64 `yaml:"ratio"`
		Max   *float64 `yaml:"max"`
	} `yaml:"budget"`
}

var clientsKeys = []string{"timeout", "users", "think", "retries", "backoff", "retry-on", "budget"}

// clients converts the clients: block (absent: none). It needs the
// downstream (the service the clients call); clients: timeout sets the
// downstream's timeout.
func (p *parser) clients(r *rawClients, s *Scenario) error {
	if r == nil {
		return nil
	}
	kn, node := get(p.root, "clients")
	line := func(keys ...string) int {
		if len(keys) == 0 && kn != nil {
			return kn.Line
		}
		return keyLine(node, keys...)
	}
	if err := p.durationsInRange("clients", r, node); err != nil {
		return err
	}
	if s.Downstream == nil {
		return p.errAt(line(), "clients: needs a downstream: block (the service they call), e.g. downstream: {servers: 8, service: 20ms}")
	}
	c := &Clients{RetryOnReject: true, RetryOnError: true, RetryOnTimeout: true}
	c.Backoff = Backoff{Base: 100 * time.Millisecond, Cap: 10 * time.Second, Jitter: JitterNone}
	if r.Timeout != nil {
		if *r.Timeout <= 0 {
			return p.errAt(line("timeout"), "clients timeout %v is not positive; write e.g. timeout: 1s", *r.Timeout)
		}
		// One caller gives up at one time: two different timeouts would
		// leave one silently unused, so they are a conflict as to: with
		// duration: is (issue 34). The same value twice is no conflict.
		if d := s.Downstream.Timeout; d > 0 && d != *r.Timeout {
			_, dn := get(p.root, "downstream")
			return p.errAt(line("timeout"), "clients timeout %v conflicts with downstream timeout %v (line %d): the caller gives up at one time; keep one of them (clients: timeout sets the downstream's)",
				*r.Timeout, d, keyLine(dn, "timeout"))
		}
		s.Downstream.Timeout = *r.Timeout
	}
	if err := p.wholeNumber(node, "users"); err != nil {
		return err
	}
	if r.Users != nil {
		if *r.Users == 0 {
			return p.errAt(line("users"), "clients users 0 is no population; leave users out for open-loop arrivals (the phases' rates), or write 1 to 1000000, e.g. users: 50")
		}
		if *r.Users < 0 || *r.Users > 1_000_000 {
			return p.errAt(line("users"), "clients users %d is out of range; write 1 to 1000000, e.g. users: 50", *r.Users)
		}
		c.Users = int(*r.Users)
		switch {
		case r.Think == nil:
			return p.errAt(line("users"), "clients users need a think time; add think: 100ms (the mean pause between a user's requests)")
		case *r.Think <= 0:
			return p.errAt(line("think"), "clients think %v is not positive: a user without a pause would send its next request the instant it has an answer; write e.g. think: 100ms (the mean pause between a user's requests)", *r.Think)
		}
		c.Think = *r.Think
	} else if r.Think != nil {
		return p.errAt(line("think"), "clients think applies to a closed population; add users: N or drop think")
	}
	if err := p.wholeNumber(node, "retries"); err != nil {
		return err
	}
	if r.Retries != nil {
		if *r.Retries < 0 || *r.Retries > 100 {
			return p.errAt(line("retries"), "clients retries %d is out of range; write 0 to 100, e.g. retries: 3", *r.Retries)
		}
		c.Retries = int(*r.Retries)
	}
	if b := r.Backoff; b != nil {
		_, bn := get(node, "backoff")
		if b.Base != nil {
			if *b.Base < 0 {
				return p.errAt(keyLine(bn, "base"), "clients backoff base %v is negative; write e.g. base: 100ms", *b.Base)
			}
			c.Backoff.Base = *b.Base
		}
		if b.Cap != nil {
			if *b.Cap < 0 {
				return p.errAt(keyLine(bn, "cap"), "clients backoff cap %v is negative; write e.g. cap: 10s", *b.Cap)
			}
			c.Backoff.Cap = *b.Cap
		}
		if b.Jitter != nil {
			j, ok := ParseJitter(*b.Jitter)
			if !ok {
				return p.errAt(keyLine(bn, "jitter"), "clients backoff jitter %q does not exist; use none, full, equal or decorrelated", *b.Jitter)
			}
			c.Backoff.Jitter = j
		}
	}
	if r.RetryOn != nil {
		c.RetryOnReject, c.RetryOnError, c.RetryOnTimeout = false, false, false
		for _, o := range r.RetryOn {
			switch strings.ToLower(strings.TrimSpace(o)) {
			case "reject":
				c.RetryOnReject = true
			case "error":
				c.RetryOnError = true
			case "timeout":
				c.RetryOnTimeout = true
			default:
				return p.errAt(line("retry-on"), "clients retry-on %q is not an outcome; use reject, error and timeout, e.g. retry-on: [error, timeout]", o)
			}
		}
	}
	if b := r.Budget; b != nil {
		_, bn := get(node, "budget")
		c.Budget.Ratio, c.Budget.Max = 0.1, 10
		if b.Ratio != nil {
			if !(*b.Ratio > 0 && *b.Ratio <= 1000) {
				return p.errAt(keyLine(bn, "ratio"), "clients budget ratio %v is out of range; write a positive share, e.g. ratio: 0.1 (each success earns a tenth of a retry)", *b.Ratio)
			}
			c.Budget.Ratio = *b.Ratio
		}
		if b.Max != nil {
			if !(*b.Max >= 1) {
				return p.errAt(keyLine(bn, "max"), "clients budget max %v is below 1; write e.g. max: 10", *b.Max)
			}
			c.Budget.Max = *b.Max
		}
	}
	if c.Retries > 0 && s.Downstream.Timeout <= 0 && c.RetryOnTimeout {
		return p.errAt(line("retries"), "clients retries need a timeout (the caller gives up and retries); add timeout: 1s to clients:")
	}
	if err := c.Validate(s.Downstream.Timeout); err != nil {
		return p.errAt(line(), "%v", err)
	}
	s.Downstream.Clients = c
	return nil
}

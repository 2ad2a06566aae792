package algorithms

import (
	"fmt"
	"time"
)

// reader reads a spec's parameters one after another and keeps the first
// error: a constructor reads every parameter it needs, then asks err once.
//
//	r := a.reader()
//	c.Limit = r.float("limit")
//	c.Window = r.duration("window")
//	if err := r.err(); err != nil {
//		return nil, err
//	}
//
// The error is the one of the first parameter, in the order they are read,
// that does not parse, so the order of the reads is the order in which a
// spec's mistakes are reported. A read after an error still parses its
// parameter (the parsers have no side effects) and returns its value, or
// the zero value when it does not parse.
type reader struct {
	a     *args
	first error
}

// reader starts reading a's parameters.
func (a *args) reader() *reader { return &reader{a: a} }

// fail records err unless an earlier error is kept already; a nil err is
// ignored. Constructors use it for checks of their own between reads.
func (r *reader) fail(err error) {
	if r.first == nil {
		r.first = err
	}
}

// err is the first error of the reads, or nil.
func (r *reader) err() error { return r.first }

func (r *reader) float(key string) float64 {
	v, err := r.a.float(key)
	r.fail(err)
	return v
}

func (r *reader) int(key string) int {
	v, err := r.a.int(key)
	r.fail(err)
	return v
}

func (r *reader) int64(key string) int64 {
	v, err := r.a.int64(key)
	r.fail(err)
	return v
}

func (r *reader) duration(key string) time.Duration {
	v, err := r.a.duration(key)
	r.fail(err)
	return v
}

func (r *reader) goFlavor() bool {
	v, err := r.a.goFlavor()
	r.fail(err)
	return v
}

func (r *reader) boolean(key string) bool {
	v, err := r.a.boolean(key)
	r.fail(err)
	return v
}

func (r *reader) percent(key string) float64 {
	v, err := r.a.percent(key)
	r.fail(err)
	return v
}

func (r *reader) guavaTimeout() time.Duration {
	v, err := r.a.guavaTimeout()
	r.fail(err)
	return v
}

func (r *reader) wholeRate(key string) int {
	v, err := r.a.wholeRate(key)
	r.fail(err)
	return v
}

func (r *reader) wholeCount(key string, maxV int64) int64 {
	v, err := r.a.wholeCount(key, maxV)
	r.fail(err)
	return v
}

func (r *reader) choice(key, no, yes string) bool {
	v, err := r.a.choice(key, no, yes)
	r.fail(err)
	return v
}

// nginxRate reads an nginx rate, Nr/s or Nr/m, in milli-requests per
// second (ParseNginxRate).
func (r *reader) nginxRate(key string) int64 {
	v, err := ParseNginxRate(r.a.str(key))
	r.fail(err)
	return v
}

// size reads a size with an optional k, m or g (ParseSize); its error
// names the spec and the parameter.
func (r *reader) size(key string) int64 {
	v, err := ParseSize(r.a.str(key))
	if err != nil {
		r.fail(fmt.Errorf("%s: %s: %v", r.a.name, key, err))
	}
	return v
}

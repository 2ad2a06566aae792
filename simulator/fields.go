package simulator

import (
	"reflect"
	"strings"
)

// SummaryNumberFields lists, in file order, the keys of a limiter's object
// in summary.json whose value is a number (or null), whether or not a given
// run writes them (late_admissions is left out when 0; the breaker and
// response fields appear for evented rows only, the redis_* ones for Redis
// limiters only): the fields a threshold such as --fail-if
// 'overshoot>1.05' or 'breaker_opens>3' may test.
func SummaryNumberFields() []string {
	return numberFields(reflect.TypeOf(algoSummaryJS{}), nil)
}

// numberFields appends the number fields of struct type t, walking into its
// embedded structs (encoding/json inlines them).
func numberFields(t reflect.Type, out []string) []string {
	num := reflect.TypeOf(jsonNum(""))
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = numberFields(ft, out)
				continue
			}
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer { // an optional number (epoch_ms)
			ft = ft.Elem()
		}
		switch k := ft.Kind(); {
		case ft == num,
			k >= reflect.Int && k <= reflect.Uint64,
			k == reflect.Float32 || k == reflect.Float64:
			out = append(out, name)
		}
	}
	return out
}

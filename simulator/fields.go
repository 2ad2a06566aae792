package simulator

import (
	"reflect"
	"strings"
)

// SummaryNumberFields lists, in file order, the keys of a limiter's object
// in summary.json whose value is a number (or null), whether or not a given
// run writes them (late_admissions is left out when 0): the fields a
// threshold such as --fail-if 'overshoot>1.05' may test.
func SummaryNumberFields() []string {
	num := reflect.TypeOf(jsonNum(""))
	t := reflect.TypeOf(algoSummaryJS{})
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		switch k := f.Type.Kind(); {
		case f.Type == num,
			k >= reflect.Int && k <= reflect.Uint64,
			k == reflect.Float32 || k == reflect.Float64:
			out = append(out, name)
		}
	}
	return out
}

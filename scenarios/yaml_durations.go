package scenarios

import (
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

var durationType = reflect.TypeOf(time.Duration(0))

// durationsInRange is the one bound on the times of a block as written
// (downstream:, clients:): every time.Duration field of r, a pointer to
// the raw struct, in nested mappings (backoff:) and lists (phases:) too,
// must be at most MaxTime, one year, as every time of a scenario is. A
// longer one would push the service, timeout or retry times of a run past
// the int64 nanoseconds they are summed in. The error names the field, its
// line and the bound. Signs are left to each field's own check, which
// knows what 0 or a negative value would mean there.
func (p *parser) durationsInRange(where string, r any, node *yaml.Node) error {
	v := reflect.ValueOf(r)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		f := v.Field(i)
		_, child := get(node, name)
		switch {
		case f.Kind() == reflect.Pointer && f.Type().Elem() == durationType:
			if f.IsNil() {
				continue
			}
			if d := time.Duration(f.Elem().Int()); d > MaxTime {
				return p.errAt(keyLine(node, name), "%s %s %v is longer than %v (one year), the longest time the lab takes; shorten it", where, name, d, MaxTime)
			}
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct:
			if err := p.durationsInRange(where+" "+name, f.Interface(), child); err != nil {
				return err
			}
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct:
			for j := 0; j < f.Len(); j++ {
				var en *yaml.Node
				if child != nil && child.Kind == yaml.SequenceNode && j < len(child.Content) {
					en = child.Content[j]
				}
				if err := p.durationsInRange(where+" "+strings.TrimSuffix(name, "s"), f.Index(j).Addr().Interface(), en); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

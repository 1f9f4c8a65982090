package spec

import "fmt"

// PrivilegedGrant is the detail of the privileged grant, in Widening and
// Origin.
const PrivilegedGrant = "requests privileged execution"

// Origin is where one grant of a permission surface is declared.
type Origin struct {
	// Category and Value name the grant as Surface.String and Widening
	// do ("network.runtime.allow", "api.example.com").
	Category string `json:"category"`
	Value    string `json:"value"`
	// Field is the dotted path of the declaration: the network policy
	// list item for network grants, the capability entry otherwise (e.g.
	// "capabilities[2].config.runtime.allow[1]"). Kit.PosOf maps it to a
	// source range.
	Field string `json:"field"`
}

// SurfaceOrigins returns where every grant of SurfaceOf(d) is declared,
// in declaration order; a grant declared twice has two origins.
func SurfaceOrigins(d *Descriptor) []Origin {
	var out []Origin
	for _, e := range d.Entries() {
		if e.Type == TypeNetworkPolicy || e.Type == TypeNetworkPolicy2 {
			if o, ok := networkOrigins(e); ok {
				out = append(out, o...)
				continue
			}
		}
		out = append(out, grantsOf(e.Capability, e.Field())...)
	}
	return out
}

// networkOrigins attributes each grant of a network policy to its list
// item; ok is false when the config does not have the policy's shape.
func networkOrigins(e Entry) ([]Origin, bool) {
	var out []Origin
	for _, phase := range []string{"install", "runtime"} {
		if e.Config[phase] == nil {
			continue
		}
		rules, ok := e.Config[phase].(map[string]any)
		if !ok {
			return nil, false
		}
		for _, list := range []string{"allow", "deny"} {
			if rules[list] == nil {
				continue
			}
			items, ok := rules[list].([]any)
			if !ok {
				return nil, false
			}
			for j, item := range items {
				one := Capability{Type: e.Type, Config: map[string]any{phase: map[string]any{list: []any{item}}}}
				out = append(out, grantsOf(one, fmt.Sprintf("%s.config.%s.%s[%d]", e.Field(), phase, list, j))...)
			}
		}
	}
	return out, true
}

// grantsOf lists the grants one capability contributes, attributed to
// field.
func grantsOf(c Capability, field string) []Origin {
	var b atomBuilder
	b.add(c)
	s := b.surface()
	var out []Origin
	for _, l := range s.lists() {
		for _, x := range *l.list {
			out = append(out, Origin{Category: l.name, Value: x, Field: field})
		}
	}
	if s.Privileged {
		out = append(out, Origin{Category: "privileged", Value: PrivilegedGrant, Field: field})
	}
	return out
}

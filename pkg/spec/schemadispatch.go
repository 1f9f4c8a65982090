package spec

import (
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The descriptor schema checks each capability entry's config with a
// chain of "if type is T then config is T's schema" conditions, one per
// well-known type. Evaluating every condition for every entry is most of
// the schema's cost, so the chain is taken out of the compiled entry
// schema and applied by type here instead: the same then-schemas, on the
// same entries, only the one that applies. The result is the same set of
// violations.

// dispatchKey is where the then-schemas are kept in the compiled
// descriptor schema.
const dispatchKey = "kitsmithEntryByType"

// splitEntryChain moves the "if type const T then X" conditions of the
// entry schema of the descriptor schema document doc into
// $defs/kitsmithEntryByType (keyed "0", "1", …) and returns, by type,
// their key. Conditions of another shape stay where they are.
func splitEntryChain(doc any) map[string]string {
	root, _ := doc.(map[string]any)
	defs, _ := root["$defs"].(map[string]any)
	entry, _ := defs["entry"].(map[string]any)
	chain, _ := entry["allOf"].([]any)
	if len(chain) == 0 {
		return nil
	}
	byType := map[string]string{}
	thens := map[string]any{}
	var rest []any
	for _, c := range chain {
		typ, then, ok := typeCondition(c)
		if _, dup := byType[typ]; !ok || dup {
			rest = append(rest, c)
			continue
		}
		key := strconv.Itoa(len(thens))
		byType[typ] = key
		thens[key] = then
	}
	if len(rest) == 0 {
		delete(entry, "allOf")
	} else {
		entry["allOf"] = rest
	}
	defs[dispatchKey] = thens
	return byType
}

// typeCondition recognizes {"if": {"required": ["type"], "properties":
// {"type": {"const": T}}}, "then": X} and returns T and X.
func typeCondition(c any) (string, any, bool) {
	m, _ := c.(map[string]any)
	if len(m) != 2 || m["then"] == nil {
		return "", nil, false
	}
	cond, _ := m["if"].(map[string]any)
	req, _ := cond["required"].([]any)
	props, _ := cond["properties"].(map[string]any)
	typ, _ := props["type"].(map[string]any)
	t, ok := typ["const"].(string)
	if len(cond) != 2 || len(req) != 1 || req[0] != "type" || len(props) != 1 || len(typ) != 1 || !ok {
		return "", nil, false
	}
	return t, m["then"], true
}

// entryChecks validates every capability entry of v (top-level entries
// and group members, as the descriptor schema reaches them) against the
// then-schema of its type, and returns the violations with locations in
// the whole document. The error is an embedded schema that does not
// compile.
func (s *schemaSet) entryChecks(v any) ([]*jsonschema.ValidationError, error) {
	root, _ := v.(map[string]any)
	items, _ := root["capabilities"].([]any)
	var out []*jsonschema.ValidationError
	var cerr error
	check := func(e any, loc []string) {
		m, _ := e.(map[string]any)
		t, _ := m["type"].(string)
		sch, err := s.entrySchema(CanonicalType(t))
		if err != nil {
			cerr = err
		}
		if sch == nil {
			return
		}
		if err := sch.Validate(m); err != nil {
			if ve, ok := err.(*jsonschema.ValidationError); ok {
				out = append(out, relocate(ve, loc))
			}
		}
	}
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		at := []string{"capabilities", strconv.Itoa(i)}
		g, grouped := m["group"]
		if !grouped {
			check(m, at)
			continue
		}
		gm, _ := g.(map[string]any)
		members, _ := gm["capabilities"].([]any)
		for j, mem := range members {
			check(mem, append(append([]string{}, at...), "group", "capabilities", strconv.Itoa(j)))
		}
	}
	return out, cerr
}

// relocate prefixes the instance locations of a violation tree with loc.
func relocate(e *jsonschema.ValidationError, loc []string) *jsonschema.ValidationError {
	c := *e
	c.InstanceLocation = append(append([]string{}, loc...), e.InstanceLocation...)
	c.Causes = make([]*jsonschema.ValidationError, len(e.Causes))
	for i, cause := range e.Causes {
		c.Causes[i] = relocate(cause, loc)
	}
	return &c
}

package spec

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// violation is one leaf schema violation being turned into errors.
type violation struct {
	s    *schemaSet
	doc  *document
	root any // the document in the JSON data model
	l    *jsonschema.ValidationError
	loc  []string // the violation's JSON pointer
	what string   // how messages name the field
}

// schemaError turns one leaf violation into positioned errors with a
// message that says what to change.
func schemaError(s *schemaSet, doc *document, root any, l *jsonschema.ValidationError) Errors {
	vi := &violation{s: s, doc: doc, root: root, l: l, loc: l.InstanceLocation, what: describeField(fieldOf(root, l.InstanceLocation))}
	switch k := l.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		return vi.unknownFields(k)
	case *kind.Required:
		return vi.missing(k.Missing, "")
	case *kind.DependentRequired:
		return vi.missing(k.Missing, k.Prop)
	case *kind.PropertyNames:
		return Errors{vi.invalidKey(k)}
	}
	e := &Error{Range: vi.at(vi.loc, false), Field: fieldOf(root, vi.loc), Code: "invalid-value", Ref: refFor(vi.loc, l)}
	vi.describe(e)
	return Errors{e}
}

// child returns the pointer of key under the violation's location.
func (vi *violation) child(key string) []string {
	return append(append([]string{}, vi.loc...), key)
}

// at returns the range of the value (or, with onKey, the key) at toks.
func (vi *violation) at(toks []string, onKey bool) Range {
	key, val, ok := vi.doc.find(toks)
	if onKey && ok && key != nil {
		return vi.doc.rangeOf(key)
	}
	if val == nil {
		return Range{Start: Pos{File: vi.doc.file}}
	}
	return vi.doc.rangeOf(val)
}

func (vi *violation) unknownFields(k *kind.AdditionalProperties) Errors {
	var out Errors
	allowed := allowedKeys(vi.s, vi.l.SchemaURL)
	ref := refFor(vi.loc, vi.l)
	for _, p := range k.Properties {
		toks := vi.child(p)
		msg := fmt.Sprintf("unknown field %q in %s", p, vi.what)
		hint, alt := fieldHint(vi.loc, p, allowed)
		if hint != "" {
			msg += "; " + hint
		}
		out = append(out, &Error{Range: vi.at(toks, true), Field: fieldOf(vi.root, toks), Code: "unknown-field", Ref: ref, Msg: msg, Suggest: alt})
	}
	return out
}

// missing reports each missing field on its own path; prop is the field
// whose presence requires them (dependentRequired), or "".
func (vi *violation) missing(names []string, prop string) Errors {
	ref := refFor(vi.loc, vi.l)
	why := ""
	if prop == "" && strings.Contains(vi.l.SchemaURL, "/then") {
		// a conditional requirement: say why, from the schema
		if d := describeSchema(vi.s, vi.l.SchemaURL); d != "" {
			why = ": " + d
		}
	}
	var out Errors
	for _, m := range names {
		e := &Error{Range: vi.at(vi.loc, prop == ""), Field: fieldOf(vi.root, vi.child(m)), Code: "missing-field", Ref: ref}
		switch {
		case prop != "":
			e.Msg = fmt.Sprintf("%s states %q, which requires %q; add it or remove %q", vi.what, prop, m, prop)
		case why == "" && requiredHints[m] != "":
			e.Msg = fmt.Sprintf("%s is missing required field %q; %s", vi.what, m, requiredHints[m])
		default:
			e.Msg = fmt.Sprintf("%s is missing required field %q%s", vi.what, m, why)
		}
		out = append(out, e)
	}
	return out
}

// invalidKey explains a key that breaks propertyNames. jsonschema
// reports a wrong instance location for it, so the object holding the
// key is looked up instead.
func (vi *violation) invalidKey(k *kind.PropertyNames) *Error {
	loc := findKeyOwner(vi.root, k.Property, propertyOf(vi.l.SchemaURL))
	toks := append(append([]string{}, loc...), k.Property)
	e := &Error{Range: vi.at(toks, true), Field: fieldOf(vi.root, toks), Code: "invalid-value", Ref: refFor(toks, nil),
		Msg: fmt.Sprintf("%s has an invalid key %q: %s", describeField(fieldOf(vi.root, loc)), k.Property, nameHint(loc))}
	if len(loc) == 1 && loc[0] == "args" {
		e.Ref = "SPEC-v3 §6/arg-key-grammar"
	}
	return e
}

// describe sets the code and message of a single-field violation.
func (vi *violation) describe(e *Error) {
	what := vi.what
	switch k := vi.l.ErrorKind.(type) {
	case *kind.Type:
		e.Code = "wrong-type"
		e.Msg = vi.typeMsg(k)
	case *kind.Enum:
		e.Msg = fmt.Sprintf("%s is %s; it must be one of %s", what, display(k.Got), displayList(k.Want))
	case *kind.Const:
		e.Msg = fmt.Sprintf("%s is %s; it must be %s", what, display(k.Got), display(k.Want))
	case *kind.Pattern:
		e.Msg = fmt.Sprintf("%s %q is not valid: %s", what, k.Got, patternHint(vi.s, vi.l.SchemaURL, k.Want))
	case *kind.FalseSchema:
		e.Code = "unknown-field"
		e.Range = vi.at(vi.loc, true)
		e.Msg = falseSchemaMsg(vi.root, vi.loc, what)
	case *kind.MinItems:
		e.Msg = fmt.Sprintf("%s must have at least %d item%s", what, k.Want, plural(k.Want))
	case *kind.MaxItems:
		e.Msg = fmt.Sprintf("%s must have at most %d item%s", what, k.Want, plural(k.Want))
	case *kind.MinProperties:
		e.Msg = fmt.Sprintf("%s must state at least %d field%s", what, k.Want, plural(k.Want))
	case *kind.UniqueItems:
		e.Code = "duplicate-item"
		e.Msg = fmt.Sprintf("%s lists the same value twice (items %d and %d); remove the repeat", what, k.Duplicates[0], k.Duplicates[1])
	case *kind.MinLength:
		e.Msg = fmt.Sprintf("%s must not be empty", what)
	case *kind.Not:
		vi.notMsg(e)
	case *kind.OneOf:
		e.Msg = fmt.Sprintf("%s matches more than one allowed form; state only one of them", what)
	default: // minimum, maximum and the rest
		e.Msg = fmt.Sprintf("%s is not valid: %s", what, vi.l.ErrorKind.LocalizedString(defaultPrinter))
	}
}

func (vi *violation) typeMsg(k *kind.Type) string {
	msg := fmt.Sprintf("%s must be %s, not %s", vi.what, typeList(k.Want), article(k.Got))
	if k.Got == "null" {
		msg = fmt.Sprintf("%s is null; write %s, or remove the key", vi.what, typeList(k.Want))
	}
	loc := vi.loc
	switch {
	case k.Got == "string" && (contains(k.Want, "integer") || contains(k.Want, "number")):
		msg += "; write the number without quotes"
	case k.Got == "string" && contains(k.Want, "boolean"):
		if s, _ := valueAt(vi.root, loc).(string); s != "" && !strings.EqualFold(s, "true") && !strings.EqualFold(s, "false") {
			if _, ok := yaml11Bool(s); ok {
				msg += fmt.Sprintf("; write true or false (%s is a boolean only to YAML 1.1 readers)", s)
				break
			}
		}
		msg += "; write true or false without quotes"
	case contains(k.Want, "string") && (k.Got == "number" || k.Got == "integer" || k.Got == "boolean"):
		msg += "; quote the value"
	case contains(k.Want, "array") && len(k.Want) == 1:
		msg += "; write a list, as in [a, b]"
	case k.Got == "object" && len(loc) == 6 && loc[0] == "capabilities" && loc[2] == "config" &&
		valueAt(vi.root, append(append([]string{}, loc[:2]...), "type")) == TypeNetworkPolicy:
		msg += "; network-policy@1 lists hosts as strings, and bounded entries need network-policy@2"
	}
	return msg
}

// notMsg explains a value a "not" forbids; "not: {required: [k]}" means
// the key k may not be stated here.
func (vi *violation) notMsg(e *Error) {
	e.Msg = notMsg(vi.s, vi.l.SchemaURL, vi.what, valueAt(vi.root, vi.loc))
	if sch := vi.s.lookup(vi.l.SchemaURL); sch != nil && sch.Not != nil && len(sch.Not.Required) == 1 {
		toks := vi.child(sch.Not.Required[0])
		e.Code = "unknown-field"
		e.Field = fieldOf(vi.root, toks)
		e.Range = vi.at(toks, true)
		e.Msg = falseSchemaMsg(vi.root, toks, describeField(e.Field))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func article(t string) string {
	switch t {
	case "integer", "object", "array":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

func typeList(want []string) string {
	parts := make([]string, len(want))
	for i, w := range want {
		parts[i] = article(w)
	}
	return strings.Join(parts, " or ")
}

func display(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func displayList(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = display(v)
	}
	return strings.Join(parts, ", ")
}

// allowedKeys lists the properties the schema at loc declares.
func allowedKeys(s *schemaSet, loc string) []string {
	sch := s.lookup(loc)
	if sch == nil {
		return nil
	}
	var keys []string
	for k := range sch.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// propertyOf returns the property a "…/properties/<p>/propertyNames"
// schema location constrains, or "".
func propertyOf(schemaURL string) string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	toks := strings.Split(frag, "/")
	for i := len(toks) - 1; i >= 2; i-- {
		if toks[i] == "propertyNames" && toks[i-2] == "properties" {
			return toks[i-1]
		}
	}
	return ""
}

// findKeyOwner returns the location of the first object (breadth-first)
// holding key, preferring one stored under the property parent.
func findKeyOwner(root any, key, parent string) []string {
	type item struct {
		v   any
		loc []string
	}
	queue := []item{{root, nil}}
	var fallback []string
	found := false
	for n := 0; len(queue) > 0 && n < 100000; n++ {
		it := queue[0]
		queue = queue[1:]
		switch v := it.v.(type) {
		case map[string]any:
			if _, ok := v[key]; ok {
				if parent == "" || len(it.loc) > 0 && it.loc[len(it.loc)-1] == parent {
					return it.loc
				}
				if !found {
					fallback, found = it.loc, true
				}
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				queue = append(queue, item{v[k], append(append([]string{}, it.loc...), k)})
			}
		case []any:
			for i, c := range v {
				queue = append(queue, item{c, append(append([]string{}, it.loc...), strconv.Itoa(i))})
			}
		}
	}
	return fallback
}

package spec

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/schemas"
)

// schemaSet is the compiled embedded schema. It is immutable once built.
type schemaSet struct {
	root     *jsonschema.Schema
	compiler *jsonschema.Compiler
}

// compiledSchema compiles the embedded schema once per process; the result
// is read-only and shared.
var compiledSchema = sync.OnceValues(compileSchema)

func compileSchema() (*schemaSet, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	err := fs.WalkDir(schemas.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		f, err := schemas.FS().Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			return fmt.Errorf("schema %s: %w", p, err)
		}
		return c.AddResource(schemas.BaseURL+p, doc)
	})
	if err != nil {
		return nil, fmt.Errorf("loading embedded schema: %w", err)
	}
	root, err := c.Compile(schemas.BaseURL + schemas.Root)
	if err != nil {
		return nil, fmt.Errorf("compiling embedded schema: %w", err)
	}
	return &schemaSet{root: root, compiler: c}, nil
}

// lookup returns the compiled schema at an absolute location (cached by the
// compiler), or nil.
func (s *schemaSet) lookup(loc string) *jsonschema.Schema {
	sch, err := s.compiler.Compile(loc)
	if err != nil {
		return nil
	}
	return sch
}

// checkSchema validates v (the JSON data model of the document) against the
// descriptor schema. Scalars that yaml.v3 would coerce when decoding into
// the reference model's typed fields (a number or boolean written where a
// string is expected, a YAML 1.1 yes/no where a boolean is expected, a
// null anywhere outside capability configs) are coerced in place first, so
// that kitsmith accepts what the reference decoder accepts. It returns the
// remaining violations as positioned errors.
func checkSchema(doc *document, v any) Errors {
	s, err := compiledSchema()
	if err != nil {
		return Errors{{Code: "internal", Msg: err.Error(), Err: err}}
	}
	var leaves []*jsonschema.ValidationError
	for round := 0; round < 4; round++ {
		leaves = leaves[:0]
		verr := s.root.Validate(v)
		if verr == nil {
			return nil
		}
		ve, ok := verr.(*jsonschema.ValidationError)
		if !ok {
			return Errors{{Code: "internal", Msg: verr.Error(), Err: verr}}
		}
		leaves = bestLeaves(ve)
		if !coerce(doc, v, leaves) {
			break
		}
	}
	var out Errors
	for _, l := range leaves {
		out = append(out, schemaError(s, doc, v, l)...)
	}
	return out
}

// bestLeaves flattens a validation error tree into the leaf errors worth
// reporting. For anyOf/oneOf, only the alternative that got furthest into
// the instance is kept, since its errors are the ones the author most
// likely needs.
func bestLeaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	switch k := e.ErrorKind.(type) {
	case *kind.PropertyNames:
		return []*jsonschema.ValidationError{e}
	case *kind.AnyOf:
		return bestAlternative(e)
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			return bestAlternative(e)
		}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, bestLeaves(c)...)
	}
	return out
}

func bestAlternative(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	causes := e.Causes
	// Alternatives that only admit a ${{ … }} reference explain nothing
	// about a literal value: judge the literal alternatives alone. When
	// the value does hold a reference, the reference alternatives are the
	// ones to explain.
	var lit, refs []*jsonschema.ValidationError
	for _, c := range causes {
		if strings.Contains(c.SchemaURL, "references.schema.json") || refBranch(c) {
			refs = append(refs, c)
		} else {
			lit = append(lit, c)
		}
	}
	if len(lit) > 0 && len(refs) > 0 {
		causes = lit
	}
	var best []*jsonschema.ValidationError
	bestScore := -1
	var typeWant []string
	allType := true
	for _, c := range causes {
		ls := bestLeaves(c)
		score := 0
		for _, l := range ls {
			d := len(l.InstanceLocation) * 4
			if t, ok := l.ErrorKind.(*kind.Type); ok && len(l.InstanceLocation) == len(e.InstanceLocation) {
				typeWant = append(typeWant, t.Want...)
			} else {
				d += 2
				allType = false
			}
			score = max(score, d)
		}
		if score > bestScore || score == bestScore && len(ls) < len(best) {
			best, bestScore = ls, score
		}
	}
	if allType && len(typeWant) > 0 {
		// Every alternative wants another type: say so once.
		got := ""
		if t, ok := best[0].ErrorKind.(*kind.Type); ok {
			got = t.Got
		}
		return []*jsonschema.ValidationError{{
			SchemaURL: e.SchemaURL, InstanceLocation: e.InstanceLocation,
			ErrorKind: &kind.Type{Got: got, Want: dedupe(typeWant)},
		}}
	}
	return best
}

// refBranch reports an alternative whose errors all come from the
// reference shapes.
func refBranch(e *jsonschema.ValidationError) bool {
	if len(e.Causes) == 0 {
		return strings.Contains(e.SchemaURL, "references.schema.json")
	}
	for _, c := range e.Causes {
		if !refBranch(c) {
			return false
		}
	}
	return true
}

func dedupe(in []string) []string {
	sort.Strings(in)
	out := in[:0]
	for i, s := range in {
		if i == 0 || s != in[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// inConfig reports whether a JSON pointer lies inside a capability config,
// where the reference model keeps YAML values as they are.
func inConfig(loc []string) bool {
	for _, t := range loc {
		if t == "config" {
			return true
		}
	}
	return false
}

// coerce applies yaml.v3's scalar coercions to the values the leaves
// complain about, and reports whether it changed anything.
func coerce(doc *document, root any, leaves []*jsonschema.ValidationError) bool {
	changed := false
	for _, l := range leaves {
		if len(l.InstanceLocation) == 0 || inConfig(l.InstanceLocation) || isLabel(l.InstanceLocation) {
			continue
		}
		t, ok := l.ErrorKind.(*kind.Type)
		if !ok {
			// const and enum of strings: a number or boolean written
			// unquoted reads as its text.
			var want []any
			switch k := l.ErrorKind.(type) {
			case *kind.Const:
				want = []any{k.Want}
			case *kind.Enum:
				want = k.Want
			}
			if len(want) == 0 {
				continue
			}
			if _, isStr := want[0].(string); !isStr {
				continue
			}
			_, node, found := doc.find(l.InstanceLocation)
			if !found || node.Kind != yaml.ScalarNode || node.ShortTag() == "!!str" || node.ShortTag() == "!!null" {
				continue
			}
			if setAt(root, l.InstanceLocation, node.Value) {
				changed = true
			}
			continue
		}
		_, node, found := doc.find(l.InstanceLocation)
		if !found || node.Kind != yaml.ScalarNode {
			continue
		}
		var nv any
		switch {
		case t.Got == "null" && keepsNull(l.InstanceLocation):
			continue
		case t.Got == "null":
			nv = deleteMarker{}
		case contains(t.Want, "string") && (t.Got == "number" || t.Got == "integer" || t.Got == "boolean"):
			nv = node.Value
		case contains(t.Want, "boolean") && t.Got == "string" && node.Style == 0:
			b, ok := yaml11Bool(node.Value)
			if !ok {
				continue
			}
			nv = b
		default:
			continue
		}
		if setAt(root, l.InstanceLocation, nv) {
			changed = true
		}
	}
	return changed
}

// isLabel reports a capability or group name/description or source
// field, which the reference model requires to be written as YAML strings.
func isLabel(loc []string) bool {
	n := len(loc)
	if n < 2 {
		return false
	}
	last := loc[n-1]
	for _, t := range loc {
		if t == "capabilities" {
			return last == "name" || last == "description" || last == "optional" || loc[n-2] == "source"
		}
	}
	return false
}

// keepsNull reports a key whose null the reference decoder refuses rather
// than reading as absent: an item's group and source.
func keepsNull(loc []string) bool {
	last := loc[len(loc)-1]
	return len(loc) >= 3 && loc[0] == "capabilities" && (last == "group" || last == "source")
}

type deleteMarker struct{}

func setAt(root any, loc []string, v any) bool {
	cur := root
	for i, tok := range loc {
		last := i == len(loc)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if _, ok := v.(deleteMarker); ok {
					delete(c, tok)
				} else {
					c[tok] = v
				}
				return true
			}
			cur = c[tok]
		case []any:
			idx, err := strconv.Atoi(tok)
			if err != nil || idx < 0 || idx >= len(c) {
				return false
			}
			if last {
				if _, ok := v.(deleteMarker); ok {
					return false // a null list item stays an error
				}
				c[idx] = v
				return true
			}
			cur = c[idx]
		default:
			return false
		}
	}
	return false
}

func yaml11Bool(s string) (bool, bool) {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE":
		return true, true
	case "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE":
		return false, true
	}
	return false, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// valueAt returns the value at a JSON pointer.
func valueAt(root any, loc []string) any {
	cur := root
	for _, tok := range loc {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// schemaError turns one leaf violation into positioned errors with a
// message that says what to change.
func schemaError(s *schemaSet, doc *document, root any, l *jsonschema.ValidationError) Errors {
	loc := l.InstanceLocation
	f := fieldOf(root, loc)
	at := func(toks []string, onKey bool) Range {
		key, val, ok := doc.find(toks)
		if onKey && ok && key != nil {
			return doc.rangeOf(key)
		}
		if val == nil {
			return Range{Start: Pos{File: doc.file}}
		}
		return doc.rangeOf(val)
	}
	what := describeField(f)
	e := &Error{Range: at(loc, false), Field: f, Code: "schema", Ref: refFor(loc, l)}
	switch k := l.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		var out Errors
		allowed := allowedKeys(s, l.SchemaURL)
		for _, p := range k.Properties {
			toks := append(append([]string{}, loc...), p)
			msg := fmt.Sprintf("unknown field %q in %s", p, what)
			if hint := fieldHint(loc, p, allowed); hint != "" {
				msg += "; " + hint
			}
			out = append(out, &Error{Range: at(toks, true), Field: fieldOf(root, toks), Code: "unknown-field", Ref: e.Ref, Msg: msg})
		}
		return out
	case *kind.Required:
		why := ""
		if strings.Contains(l.SchemaURL, "/then") {
			// a conditional requirement: say why, from the schema
			if d := describeSchema(s, l.SchemaURL); d != "" {
				why = ": " + d
			}
		}
		var out Errors
		for _, m := range k.Missing {
			toks := append(append([]string{}, loc...), m)
			if why == "" && requiredHints[m] != "" {
				why = "; " + requiredHints[m]
			}
			out = append(out, &Error{Range: at(loc, true), Field: fieldOf(root, toks), Code: "missing-field", Ref: e.Ref,
				Msg: fmt.Sprintf("%s is missing required field %q%s", what, m, why)})
		}
		return out
	case *kind.Type:
		e.Code = "wrong-type"
		e.Msg = fmt.Sprintf("%s must be %s, not %s", what, typeList(k.Want), article(k.Got))
		if k.Got == "null" {
			e.Msg = fmt.Sprintf("%s is null; write %s, or remove the key", what, typeList(k.Want))
		}
		switch {
		case k.Got == "string" && (contains(k.Want, "integer") || contains(k.Want, "number")):
			e.Msg += "; write the number without quotes"
		case k.Got == "string" && contains(k.Want, "boolean"):
			e.Msg += "; write true or false without quotes"
		case contains(k.Want, "string") && (k.Got == "number" || k.Got == "integer" || k.Got == "boolean"):
			e.Msg += "; quote the value"
		case contains(k.Want, "array") && len(k.Want) == 1:
			e.Msg += "; write a list, as in [a, b]"
		case k.Got == "object" && len(loc) == 6 && loc[0] == "capabilities" && loc[2] == "config" &&
			valueAt(root, loc[:2]) != nil && valueAt(root, append(append([]string{}, loc[:2]...), "type")) == TypeNetworkPolicy:
			e.Msg += "; network-policy@1 lists hosts as strings, and bounded entries need network-policy@2"
		}
	case *kind.Enum:
		e.Code = "invalid-value"
		e.Msg = fmt.Sprintf("%s is %s; it must be one of %s", what, display(k.Got), displayList(k.Want))
	case *kind.Const:
		e.Code = "invalid-value"
		e.Msg = fmt.Sprintf("%s is %s; it must be %s", what, display(k.Got), display(k.Want))
	case *kind.Pattern:
		e.Code = "invalid-value"
		e.Msg = fmt.Sprintf("%s %q is not valid: %s", what, k.Got, patternHint(s, l.SchemaURL, k.Want))
	case *kind.FalseSchema:
		e.Code = "unknown-field"
		e.Range = at(loc, true)
		e.Msg = falseSchemaMsg(root, loc, what)
	case *kind.MinItems:
		e.Code = "invalid-value"
		e.Msg = fmt.Sprintf("%s must have at least %d item%s", what, k.Want, plural(k.Want))
	case *kind.MaxItems:
		e.Code = "invalid-value"
		e.Msg = fmt.Sprintf("%s must have at most %d item%s", what, k.Want, plural(k.Want))
	case *kind.MinProperties:
		e.Code = "invalid-value"
		e.Msg = fmt.Sprintf("%s must state at least %d field%s", what, k.Want, plural(k.Want))
	case *kind.UniqueItems:
		e.Code = "duplicate-item"
		e.Msg = fmt.Sprintf("%s lists the same value twice (items %d and %d); remove the repeat", what, k.Duplicates[0], k.Duplicates[1])
	case *kind.MinLength:
		e.Code = "invalid-value"
		e.Msg = fmt.Sprintf("%s must not be empty", what)
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum:
		e.Code = "invalid-value"
		e.Msg = fmt.Sprintf("%s %s", what, l.ErrorKind.LocalizedString(defaultPrinter))
	case *kind.Not:
		e.Code = "invalid-value"
		e.Msg = notMsg(s, l.SchemaURL, what, valueAt(root, loc))
		if sch := s.lookup(l.SchemaURL); sch != nil && sch.Not != nil && len(sch.Not.Required) == 1 {
			// "not: {required: [k]}": the key k may not be stated here.
			key := sch.Not.Required[0]
			toks := append(append([]string{}, loc...), key)
			e.Code = "unknown-field"
			e.Field = fieldOf(root, toks)
			e.Range = at(toks, true)
			e.Msg = falseSchemaMsg(root, toks, describeField(e.Field))
		}
	case *kind.PropertyNames:
		// jsonschema reports a wrong instance location for propertyNames;
		// find the object holding the key instead.
		loc = findKeyOwner(root, k.Property, propertyOf(l.SchemaURL))
		f = fieldOf(root, loc)
		what = describeField(f)
		e.Field = fieldOf(root, append(append([]string{}, loc...), k.Property))
		e.Ref = refFor(append(append([]string{}, loc...), k.Property), nil)
		if len(loc) == 1 && loc[0] == "args" {
			e.Ref = "SPEC-v3 §6/arg-key-grammar"
		}
		e.Code = "invalid-value"
		e.Range = at(append(append([]string{}, loc...), k.Property), true)
		e.Msg = fmt.Sprintf("%s has an invalid key %q: %s", what, k.Property, nameHint(loc))
	case *kind.OneOf:
		e.Code = "invalid-value"
		e.Msg = fmt.Sprintf("%s matches more than one allowed form; state only one of them", what)
	case *kind.DependentRequired:
		var out Errors
		for _, m := range k.Missing {
			toks := append(append([]string{}, loc...), m)
			out = append(out, &Error{Range: e.Range, Field: fieldOf(root, toks), Code: "missing-field", Ref: e.Ref,
				Msg: fmt.Sprintf("%s states %q, which requires %q; add it or remove %q", what, k.Prop, m, k.Prop)})
		}
		return out
	default:
		e.Msg = fmt.Sprintf("%s is not valid: %s", what, l.ErrorKind.LocalizedString(defaultPrinter))
	}
	return Errors{e}
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

func quoteList(vs []string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.Quote(v)
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
			for _, k := range sortedKeys(v) {
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

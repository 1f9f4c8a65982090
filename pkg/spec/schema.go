package spec

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/schemas"
)

// schemaSet is the compiled embedded schema. Its compiler is not safe for
// concurrent use, so every compilation after the first one (the entry
// rules of a type, a subschema looked up for a message) holds mu.
type schemaSet struct {
	root *jsonschema.Schema

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	// dispatch maps each well-known type to the key of its entry rules
	// under $defs/kitsmithEntryByType (see schemadispatch.go).
	dispatch map[string]string
	// byType holds the entry rules compiled so far, by type.
	byType map[string]*jsonschema.Schema
}

// compiledSchema compiles the embedded schema once per process; the result
// is shared. Compilation is the bulk of a cold validation, so only the
// descriptor schema proper is compiled up front: a capability schema file
// is loaded (and checked against its meta-schema) the first time an entry
// of its type is validated.
var compiledSchema = sync.OnceValues(compileSchema)

func compileSchema() (*schemaSet, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(embeddedLoader{})
	c.UseRegexpEngine(lazyRegexpEngine())
	doc, err := loadEmbedded(schemas.Root)
	if err != nil {
		return nil, err
	}
	dispatch := splitEntryChain(doc)
	if err := c.AddResource(schemas.BaseURL+schemas.Root, doc); err != nil {
		return nil, fmt.Errorf("loading embedded schema: %w", err)
	}
	root, err := c.Compile(schemas.BaseURL + schemas.Root)
	if err != nil {
		return nil, fmt.Errorf("compiling embedded schema: %w", err)
	}
	return &schemaSet{root: root, compiler: c, dispatch: dispatch, byType: map[string]*jsonschema.Schema{}}, nil
}

// lazyRegexpEngine returns the regular-expression engine of the schema
// compiler: a pattern is checked when the schema is compiled but turned
// into a matcher only the first time a value is matched against it (most
// patterns guard fields a given kit does not have), and a pattern written
// several times is compiled once.
func lazyRegexpEngine() jsonschema.RegexpEngine {
	seen := map[string]*lazyRegexp{}
	return func(pattern string) (jsonschema.Regexp, error) {
		if r, ok := seen[pattern]; ok {
			return r, nil
		}
		if _, err := syntax.Parse(pattern, syntax.Perl); err != nil {
			return nil, err
		}
		r := &lazyRegexp{pattern: pattern, re: sync.OnceValues(func() (*regexp.Regexp, error) {
			return regexp.Compile(pattern)
		})}
		seen[pattern] = r
		return r, nil
	}
}

// lazyRegexp is a schema pattern compiled on first use. It is safe for
// concurrent use.
type lazyRegexp struct {
	pattern string
	re      func() (*regexp.Regexp, error)
}

func (r *lazyRegexp) String() string { return r.pattern }

// MatchString reports whether s matches the pattern. A pattern that
// parsed but does not compile (which the schema's own tests rule out)
// matches nothing, so the value is reported rather than let through.
func (r *lazyRegexp) MatchString(s string) bool {
	re, err := r.re()
	return err == nil && re.MatchString(s)
}

// embeddedLoader resolves the schema files the descriptor schema refers
// to from the embedded copy; it never touches the network.
type embeddedLoader struct{}

func (embeddedLoader) Load(u string) (any, error) {
	p, ok := strings.CutPrefix(u, schemas.BaseURL)
	if !ok {
		return nil, fmt.Errorf("%s is not an embedded schema", u)
	}
	return loadEmbedded(p)
}

func loadEmbedded(p string) (any, error) {
	f, err := schemas.FS().Open(p)
	if err != nil {
		return nil, fmt.Errorf("loading embedded schema: %w", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("loading embedded schema %s: %w", p, err)
	}
	return doc, nil
}

// entrySchema returns the compiled entry rules of the well-known type typ,
// compiling them on first use, or nil when typ has none.
func (s *schemaSet) entrySchema(typ string) (*jsonschema.Schema, error) {
	key, ok := s.dispatch[typ]
	if !ok {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.byType[typ]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile(schemas.BaseURL + schemas.Root + "#/$defs/" + dispatchKey + "/" + key)
	if err != nil {
		return nil, fmt.Errorf("compiling embedded schema for %s: %w", typ, err)
	}
	s.byType[typ] = sch
	return sch, nil
}

// lookup returns the compiled schema at an absolute location (cached by the
// compiler), or nil.
func (s *schemaSet) lookup(loc string) *jsonschema.Schema {
	s.mu.Lock()
	defer s.mu.Unlock()
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
		if verr := s.root.Validate(v); verr != nil {
			ve, ok := verr.(*jsonschema.ValidationError)
			if !ok {
				return Errors{{Code: "internal", Msg: verr.Error(), Err: verr}}
			}
			leaves = bestLeaves(ve)
		}
		ves, err := s.entryChecks(v)
		if err != nil {
			return Errors{{Code: "internal", Msg: err.Error(), Err: err}}
		}
		for _, ve := range ves {
			leaves = append(leaves, bestLeaves(ve)...)
		}
		if len(leaves) == 0 {
			return nil
		}
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
		case contains(t.Want, "boolean") && t.Got == "string":
			b, ok := yaml11Bool(node.Value)
			if !ok || node.Style != 0 && strings.EqualFold(node.Value, strconv.FormatBool(b)) {
				continue // yaml.v3 reads a quoted "true" as a string, a quoted "yes" as true
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

// isLabel reports a capability or group name, a group's description or
// optional, or a source field, which the reference model requires to be
// written as YAML strings (a YAML boolean for a group's optional).
func isLabel(loc []string) bool {
	n := len(loc)
	if n < 2 {
		return false
	}
	last := loc[n-1]
	for _, t := range loc {
		if t == "capabilities" {
			// The reference decoder reads any scalar as an entry's
			// description and YAML 1.1 booleans as its optional; only
			// name must be a YAML string. A group is stricter
			// (spec/groups.go): its name and description must be YAML
			// strings and its optional a YAML boolean, null included.
			if loc[n-2] == "group" && (last == "description" || last == "optional") {
				return true
			}
			return last == "name" || loc[n-2] == "source"
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

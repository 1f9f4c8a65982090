package spec

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ResolveArgs checks the values supplied for the args of one phase and
// fills in defaults. A name that is not declared, or declared for the other
// phase, a required arg without a value, and a value outside the arg's enum
// or pattern are errors. An optional arg without a value or default is
// left out; a reference to it then fails at expansion.
func ResolveArgs(args map[string]Arg, phase ArgPhase, supplied map[string]string) (map[string]string, Errors) {
	var errs Errors
	for _, name := range slices.Sorted(maps.Keys(supplied)) {
		a, ok := args[name]
		switch {
		case !ok:
			errs = append(errs, &Error{Field: "args", Code: "arg-undeclared", Msg: fmt.Sprintf("kit arg %q is not declared by this kit; remove the value or declare the arg under args:", name)})
		case a.Phase() != phase:
			msg := fmt.Sprintf("kit arg %q is resolved in the %s phase; supply it as a %s-phase value", name, a.Phase(), a.Phase())
			errs = append(errs, &Error{Field: field("args", name), Code: "arg-phase", Msg: msg, Err: &ArgValueError{Name: name, Phase: a.Phase(), Msg: msg}})
		}
	}
	values := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		a := args[name]
		if a.Phase() != phase {
			continue
		}
		val, ok := supplied[name]
		if !ok {
			switch {
			case a.Required:
				msg := fmt.Sprintf("kit arg %q is required and no value was supplied; supply a %s-phase value for it", name, phase)
				errs = append(errs, &Error{Field: field("args", name), Code: "required-arg-supplied", Ref: "SPEC-v3 §6/required-arg-supplied",
					Msg: msg, Err: &ArgValueError{Name: name, Phase: phase, Msg: msg}})
				continue
			case a.Default == nil:
				continue
			}
			val = *a.Default
		}
		if err := a.Check(val); err != nil {
			errs = append(errs, &Error{Field: field("args", name), Code: "arg-value", Msg: fmt.Sprintf("kit arg %q: %v", name, err)})
			continue
		}
		values[name] = val
	}
	return values, errs
}

// Check reports whether val satisfies the arg's enum or pattern.
func (a Arg) Check(val string) error {
	if len(a.Enum) > 0 {
		for _, e := range a.Enum {
			if e == val {
				return nil
			}
		}
		return fmt.Errorf("value %q is not one of %s; supply one of them", val, joinQuoted(a.Enum))
	}
	if a.Pattern != "" {
		re, err := regexp.Compile("^(?:" + a.Pattern + ")$")
		if err != nil {
			return fmt.Errorf("invalid pattern: %w", err)
		}
		if !re.MatchString(val) {
			return fmt.Errorf("value %q does not match pattern %q; supply a value that does", val, a.Pattern)
		}
	}
	return nil
}

// expander substitutes the references of the args it owns.
type expander struct {
	args   map[string]Arg
	values map[string]string
	owns   func(name string) bool
	phase  string
}

// replace substitutes owned references in s as text.
func (x *expander) replace(s string) (string, error) {
	var err error
	out := ExpandArgRefs(s, func(name string) (string, bool) {
		if !x.owns(name) {
			return "", false
		}
		v, ok := x.values[name]
		if !ok && err == nil {
			err = unresolved(x.phase, name)
		}
		return v, ok
	})
	return out, err
}

// unresolved reports a reference to an arg of phase with no value.
func unresolved(phase, name string) *ArgValueError {
	p := PhaseCreate
	if phase == "build" {
		p = PhaseBuild
	}
	return &ArgValueError{Name: name, Phase: p,
		Msg: fmt.Sprintf("%s-phase kit arg %q has no resolved value; supply a value for it or give the arg a default", phase, name)}
}

// ArgValueError reports a kit arg that needs a value from the phase that
// resolves it: a required arg without one, a value supplied to the other
// phase, or a reference to an arg with no value and no default. Its text
// names no command-line flag: a command adds how its users supply Phase's
// values (kitsmith: --kit-arg for create, --build-arg for build). A
// *Error of ResolveArgs or of expansion wraps it.
type ArgValueError struct {
	// Name is the arg's name.
	Name string
	// Phase is the phase whose values supply the arg.
	Phase ArgPhase
	// Msg says what is wrong.
	Msg string
}

func (e *ArgValueError) Error() string { return e.Msg }

// whole returns the arg name when s is exactly one owned reference.
func (x *expander) whole(s string) (string, bool) {
	m := argRef.FindStringSubmatchIndex(s)
	if m == nil || m[0] != 0 || m[1] != len(s) {
		return "", false
	}
	name := s[m[2]:m[3]]
	return name, x.owns(name)
}

// typedScalar gives a whole-value substitution the type its text spells:
// true/false, an integer or a decimal that round-trips exactly; anything
// else stays a string.
func typedScalar(s string) any {
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil && strconv.FormatInt(i, 10) == s {
		return i
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && strconv.FormatFloat(f, 'f', -1, 64) == s {
		return f
	}
	return s
}

// ExpandValue expands the references of both phases in the document's JSON
// model, as at create time: keys as text, whole-value references with type
// adoption (except volume size and mode, which stay strings), embedded
// references as text. It returns a new tree.
func expandValue(v any, x *expander, inVolumeConfig bool, path string) (any, Errors) {
	var errs Errors
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		volume := false
		if typ, ok := t["type"].(string); ok && typ == TypeVolume {
			volume = true
		}
		origin := map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			nk, err := x.replace(k)
			if err != nil {
				errs = append(errs, &Error{Field: field(path, k), Code: "arg-unresolved", Msg: err.Error(), Err: err})
			}
			if prev, dup := origin[nk]; dup {
				errs = append(errs, &Error{Field: field(path, k), Code: "expanded-key-collision-rejected", Ref: "SPEC-v3 §6/expanded-key-collision-rejected",
					Msg: fmt.Sprintf("expansion collapses keys %q and %q onto %q; rename one so they stay distinct", prev, k, nk)})
				continue
			}
			origin[nk] = k
			child := t[k]
			if s, ok := child.(string); ok && inVolumeConfig && (k == "size" || k == "mode") {
				ns, err := x.replace(s)
				if err != nil {
					errs = append(errs, &Error{Field: field(path, k), Code: "arg-unresolved", Msg: err.Error(), Err: err})
				}
				out[nk] = ns
				continue
			}
			nv, e := expandValue(child, x, volume && k == "config", field(path, k))
			errs = append(errs, e...)
			out[nk] = nv
		}
		return out, errs
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			nv, e := expandValue(c, x, false, field(path, i))
			errs = append(errs, e...)
			out[i] = nv
		}
		return out, errs
	case string:
		if name, ok := x.whole(t); ok {
			val, have := x.values[name]
			if !have {
				u := unresolved(x.phase, name)
				return t, Errors{{Field: path, Code: "arg-unresolved", Msg: u.Msg, Err: u}}
			}
			if envOpenerRE.MatchString(val) {
				return t, Errors{{Field: path, Code: "arg-injects-env", Msg: "the value of kit arg " + strconv.Quote(name) + " holds a ${{ kit.env }} reference; arg values must not introduce environment references"}}
			}
			return typedScalar(val), nil
		}
		ns, err := x.replace(t)
		if err != nil {
			return t, Errors{{Field: path, Code: "arg-unresolved", Msg: err.Error(), Err: err}}
		}
		if countEnv(ns) > countEnv(t) {
			return t, Errors{{Field: path, Code: "arg-injects-env", Msg: "arg substitution introduces a ${{ kit.env }} reference; arg values must not introduce environment references"}}
		}
		return ns, nil
	}
	return v, nil
}

func countEnv(s string) int { return len(envOpenerRE.FindAllStringIndex(s, -1)) }

// validateEffective expands the kit's args as a runtime does at create
// time and judges the result. Args whose value does not resolve (a
// required arg without one, a value outside the enum or pattern) are
// reported and their references left in place, so the entries holding
// them are judged like parameterized ones and every other problem is
// still found.
func (k *Kit) validateEffective(o options) *Report {
	r := &Report{}
	d := k.Descriptor
	build, errs := ResolveArgs(d.Args, PhaseBuild, o.build)
	create, errs2 := ResolveArgs(d.Args, PhaseCreate, o.kitArgs)
	for _, e := range append(errs, errs2...) {
		e.Range = k.PosOf(e.Field)
		r.add(false, e)
	}
	values := map[string]string{}
	for n, v := range build {
		values[n] = v
	}
	for n, v := range create {
		values[n] = v
	}
	x := &expander{args: d.Args, values: values, phase: "create", owns: func(name string) bool {
		a, ok := d.Args[name]
		if !ok {
			return false
		}
		_, resolved := values[name]
		_, supplied := o.kitArgs[name]
		_, suppliedBuild := o.build[name]
		failed := !resolved && (supplied || suppliedBuild || a.Required || a.Default != nil)
		return !failed
	}}
	ev, xerrs := expandValue(k.value, x, false, "")
	for _, e := range xerrs {
		e.Range = k.PosOf(e.Field)
		r.add(false, e)
	}
	ed := decodeDescriptor(ev)
	if ed == nil {
		return r
	}
	v := &validator{k: k, d: ed, mode: ModeEffective, value: ev, schema: checkSchema(k.doc, ev)}
	v.run()
	r.merge(v.report())
	return r
}

// expandNode expands owned references in a YAML node tree in place (the
// build-phase rewrite): values adopt the type a whole reference spells,
// keys and volume size/mode stay text, comments are expanded as text.
func expandNode(n *yaml.Node, x *expander, volumeConfig bool, depth int) error {
	if n == nil || depth > maxDepth {
		return nil
	}
	if err := expandComments(n, x); err != nil {
		return err
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if err := expandNode(c, x, false, depth+1); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		isVolume := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "type" && n.Content[i+1].Value == TypeVolume {
				isVolume = true
			}
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			if err := expandComments(key, x); err != nil {
				return err
			}
			if err := expandScalar(key, x, true); err != nil {
				return err
			}
			if key.Tag != "!!merge" {
				if seen[key.Value] {
					return &Error{Code: "expanded-key-collision-rejected", Ref: "SPEC-v3 §6/expanded-key-collision-rejected",
						Msg: fmt.Sprintf("build-phase expansion collapses two keys onto %q; rename one so they stay distinct", key.Value)}
				}
				seen[key.Value] = true
			}
			textOnly := volumeConfig && (key.Value == "size" || key.Value == "mode")
			if val.Kind == yaml.ScalarNode {
				if err := expandComments(val, x); err != nil {
					return err
				}
				if err := expandScalar(val, x, textOnly); err != nil {
					return err
				}
				continue
			}
			if err := expandNode(val, x, isVolume && key.Value == "config", depth+1); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		return expandScalar(n, x, false)
	}
	return nil
}

// expandComments expands owned references in a node's comments as text
// (they count as references, so they are expanded like any other).
func expandComments(n *yaml.Node, x *expander) error {
	for _, c := range []*string{&n.HeadComment, &n.LineComment, &n.FootComment} {
		if *c != "" {
			s, err := x.replace(*c)
			if err != nil {
				return err
			}
			*c = s
		}
	}
	return nil
}

func expandScalar(n *yaml.Node, x *expander, textOnly bool) error {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" || !argRef.MatchString(n.Value) {
		return nil
	}
	if name, ok := x.whole(n.Value); ok && !textOnly {
		val, have := x.values[name]
		if !have {
			return unresolved(x.phase, name)
		}
		switch t := typedScalar(val).(type) {
		case bool:
			n.SetString(val)
			n.Tag, n.Style = "!!bool", 0
		case int64:
			n.SetString(val)
			n.Tag, n.Style = "!!int", 0
		case float64:
			n.SetString(strconv.FormatFloat(t, 'f', -1, 64))
			n.Tag, n.Style = "!!float", 0
		default:
			setString(n, val)
		}
		return nil
	}
	s, err := x.replace(n.Value)
	if err != nil {
		return err
	}
	setString(n, s)
	return nil
}

// setString stores s in n as a string, quoting it when a plain scalar
// would read as another type.
func setString(n *yaml.Node, s string) {
	style := n.Style
	n.SetString(s)
	n.Style = style
	if style == 0 || style == yaml.FlowStyle {
		var probe yaml.Node
		if yaml.Unmarshal([]byte(s), &probe) != nil || len(probe.Content) != 1 || probe.Content[0].ShortTag() != "!!str" || s == "<<" || strings.Contains(s, "\n") {
			n.Style = yaml.DoubleQuotedStyle
		}
	}
}

// ExpandDescriptor substitutes values (by arg name) for the references to
// those args in d, as create-phase expansion does: inside capability
// configs a value that is exactly one reference takes the type its text
// spells (volume size and mode excepted); everywhere else substitution is
// text. References to args without a value are left as written. d is not
// modified.
func ExpandDescriptor(d *Descriptor, values map[string]string) (*Descriptor, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("expanding args: %w", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("expanding args: %w", err)
	}
	x := &expander{values: values, phase: "create", owns: func(name string) bool { _, ok := values[name]; return ok }}
	var errs Errors
	for k, v := range doc {
		if k == "capabilities" {
			nv, e := expandValue(v, x, false, k)
			doc[k], errs = nv, append(errs, e...)
			continue
		}
		doc[k] = replaceStrings(v, x)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if b, err = json.Marshal(doc); err != nil {
		return nil, fmt.Errorf("expanding args: %w", err)
	}
	var out Descriptor
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("the descriptor no longer decodes with the args expanded: %w", err)
	}
	return &out, nil
}

// replaceStrings substitutes owned references as text in every string of
// a JSON data model, in place.
func replaceStrings(v any, x *expander) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = replaceStrings(e, x)
		}
	case []any:
		for i, e := range t {
			t[i] = replaceStrings(e, x)
		}
	case string:
		s, _ := x.replace(t)
		return s
	}
	return v
}

package spec

import (
	"fmt"
	"strings"
)

// Mode selects which form of the descriptor Validate judges (SPEC-v3 §9).
type Mode int

// Validation modes.
const (
	// ModeAuthored judges a kit source as its author wrote it: the whole
	// grammar, the recipe and the files it names, every arg reference
	// declared, no authored deb/ or apk/ provides, and inject domains
	// within the network policy's allow lists.
	ModeAuthored Mode = iota
	// ModePublished judges the descriptor as published in a kit image: no
	// build-phase references left, every provide versioned, kind never
	// set, every listed kit pinned by digest.
	ModePublished
	// ModeEffective expands the kit's args (build-phase args from
	// WithBuildArgs and their defaults, create-phase args from WithKitArgs
	// and their defaults) structurally, as a runtime does at create time,
	// and judges the result strictly, inject domains included. Two
	// things stay with the runtime, which alone knows them: group
	// selection (groups are judged as declarations, each its own block,
	// as SPEC-v3 §7.1.1/validate-expanded-declarations does) and the final
	// container environment (an entry holding ${{ kit.env.NAME }} keeps
	// its value checks for then).
	ModeEffective
)

// String returns the mode's name as the CLI spells it.
func (m Mode) String() string {
	switch m {
	case ModePublished:
		return "published"
	case ModeEffective:
		return "effective"
	}
	return "authored"
}

// ParseMode parses "authored", "published" or "effective".
func ParseMode(s string) (Mode, error) {
	for _, m := range []Mode{ModeAuthored, ModePublished, ModeEffective} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown validation mode %q: use authored, published or effective", s)
}

// Option configures Validate.
type Option func(*options)

type options struct {
	mode        Mode
	kitArgs     map[string]string
	build       map[string]string
	recipeCheck RecipeCheck
}

// WithMode selects the validation mode. The default is ModeAuthored.
func WithMode(m Mode) Option { return func(o *options) { o.mode = m } }

// WithKitArgs supplies create-phase arg values (name → value) for
// ModeEffective, as `sbx create --kit-arg` would.
func WithKitArgs(args map[string]string) Option {
	return func(o *options) { o.kitArgs = args }
}

// WithBuildArgs supplies build-phase arg values (kit arg name → value) for
// ModeEffective; args without a value use their defaults.
func WithBuildArgs(args map[string]string) Option {
	return func(o *options) { o.build = args }
}

// Validate judges the kit and returns every independent problem found,
// errors apart from warnings, sorted by position. It never returns nil.
func (k *Kit) Validate(opts ...Option) *Report {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	r := &Report{}
	r.merge(&k.problems)
	if k.Descriptor == nil {
		r.sort()
		return r
	}
	switch o.mode {
	case ModeEffective:
		r.merge(k.validateEffective(o))
	default:
		v := newValidator(k, k.Descriptor, o.mode)
		v.recipeCheck = o.recipeCheck
		v.run()
		r.merge(v.report())
	}
	r.sort()
	return r
}

// validator judges one decoded descriptor.
type validator struct {
	k    *Kit
	d    *Descriptor
	mode Mode
	// semantic holds the problems found by Go checks; schema problems of
	// the same field are dropped in their favour.
	semantic Report
	schema   Errors
	// recipeCheck parses the content recipe (WithRecipeCheck); nil skips it.
	recipeCheck RecipeCheck
	// value is the JSON model the descriptor was decoded from.
	value any
	// typed lists the entries (by field) whose config got the typed
	// checks of its well-known type.
	typed []string
	// suppressed lists fields at and under which schema errors restate
	// a problem a Go check reported.
	suppressed []string
}

func newValidator(k *Kit, d *Descriptor, mode Mode) *validator {
	return &validator{k: k, d: d, mode: mode, value: k.value, schema: k.schemaErrs}
}

// report merges schema errors with the semantic ones. A problem that both
// the schema and a Go check see is reported once, with the Go message,
// which names the rule and the fix: see restated.
func (v *validator) report() *Report {
	r := &Report{Warnings: v.semantic.Warnings}
	r.Errors = append(r.Errors, v.semantic.Errors...)
	for _, e := range v.schema {
		if !v.restated(e) {
			r.Errors = append(r.Errors, e)
		}
	}
	return r
}

// restated reports whether the schema error e says again what a Go check
// already reported: a Go error on the same field; a Go error on an
// enclosing field (a list or object the schema judged item by item),
// unless e is about the shape (an unknown field or a wrong type, which a
// Go check never restates); any schema error but a shape error inside
// the config of a well-known entry the Go checks found fault with (they
// judge every value rule of the type); and a field a check explicitly
// suppressed.
func (v *validator) restated(e *Error) bool {
	shape := e.Code == "unknown-field" || e.Code == "wrong-type"
	for _, s := range v.suppressed {
		if underField(e.Field, s) {
			return true
		}
	}
	for _, se := range v.semantic.Errors {
		if se.Field == "" {
			continue
		}
		if e.Field == se.Field || !shape && underField(e.Field, se.Field) {
			return true
		}
	}
	if shape {
		return false
	}
	for _, f := range v.typed {
		if !underField(e.Field, f+".config") {
			continue
		}
		for _, se := range v.semantic.Errors {
			if underField(se.Field, f+".config") {
				return true
			}
		}
	}
	return false
}

// suppress drops the schema errors at or under field f ("" is the
// document itself, not its fields).
func (v *validator) suppress(f string) { v.suppressed = append(v.suppressed, f) }

// underField reports whether the dotted path f is p or lies under it.
func underField(f, p string) bool {
	if p == "" {
		return f == ""
	}
	return f == p || strings.HasPrefix(f, p+".") || strings.HasPrefix(f, p+"[")
}

func (v *validator) run() {
	declOnly := v.mode == ModePublished
	v.checkKind()
	v.checkSchemaVersionQuoted()
	v.checkIconURL()
	v.checkNames()
	v.checkCapabilities(declOnly)
	v.checkArgs()
	v.checkRecipe()
	v.checkKits()
	v.checkReferences()
	switch v.mode {
	case ModePublished:
		v.checkPublished()
	case ModeAuthored:
		v.checkAuthoredProvides()
		v.checkSource()
	case ModeEffective:
		v.checkAuthoredProvides()
	}
}

// errorf records an error at the value of field.
func (v *validator) errorf(field, code, ref, format string, args ...any) {
	v.semantic.add(false, newErrorf(v.k.PosOf(field), field, code, ref, format, args...))
}

// keyErrorf records an error at the key of field.
func (v *validator) keyErrorf(field, code, ref, format string, args ...any) {
	v.semantic.add(false, newErrorf(v.k.KeyPosOf(field), field, code, ref, format, args...))
}

// suggested records errors that carry a suggested replacement.
type suggested struct {
	v   *validator
	alt string
}

// suggest returns a recorder whose errors suggest alt (see Error.Suggest).
func (v *validator) suggest(alt string) suggested { return suggested{v, alt} }

func (s suggested) errorf(field, code, ref, format string, args ...any) {
	e := newErrorf(s.v.k.PosOf(field), field, code, ref, format, args...)
	e.Suggest = s.alt
	s.v.semantic.add(false, e)
}

func (s suggested) warnf(field, code, ref, format string, args ...any) {
	e := newErrorf(s.v.k.PosOf(field), field, code, ref, format, args...)
	e.Suggest = s.alt
	s.v.semantic.add(true, e)
}

// warnf records a warning at the value of field.
func (v *validator) warnf(field, code, ref, format string, args ...any) {
	v.semantic.add(true, newErrorf(v.k.PosOf(field), field, code, ref, format, args...))
}

func joinQuoted(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

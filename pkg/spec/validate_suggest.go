package spec

import (
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/internal/suggest"
)

// sandboxNamespace is the namespace of the well-known capability types.
const sandboxNamespace = "com.docker.sandbox/"

// withdrawnTypes are types the specification once defined, with what
// replaced them.
var withdrawnTypes = map[string]string{
	sandboxNamespace + "agent-skills-directory@1": TypeAgentSkills,
}

// unknownSandboxType reports an entry whose type is in the reserved
// com.docker.sandbox namespace but not one the specification defines: a
// misspelling or a version that does not exist. SPEC-v3 §7.3 has a host
// that does not recognise a required type refuse the Kit by that type's
// name, and skip an optional one: so it is an error on a required entry
// (the kit can never be used) and a warning on an optional one or a member
// of an optional group (it is silently skipped).
func (v *validator) unknownSandboxType(e blockEntry) {
	c := e.c
	hint, alt := sandboxTypeHint(c.Type)
	if c.Optional || e.group != nil && e.group.Optional {
		v.suggest(alt).warnf(field(e.f, "type"), "unknown-sandbox-type", "", "%s is in the com.docker.sandbox namespace, but the specification defines no such type, so hosts skip this optional entry%s",
			c.Type, hint)
		return
	}
	v.suggest(alt).errorf(field(e.f, "type"), "unknown-sandbox-type", "", "%s is in the com.docker.sandbox namespace, but the specification defines no such type, and a host refuses a kit that requires a type it does not recognise (SPEC-v3 §7.3)%s",
		c.Type, hint)
}

// sandboxTypeHint suggests the well-known type an unknown
// com.docker.sandbox type means: its replacement when it was withdrawn,
// the newest version of a type of that name, or the nearest name; alt is
// that type, or "".
func sandboxTypeHint(typ string) (hint, alt string) {
	if r, ok := withdrawnTypes[typ]; ok {
		return "; it was withdrawn: did you mean " + r + "?", r
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(typ, sandboxNamespace), "@")
	newest, names := "", make([]string, 0, len(knownTypes))
	for _, known := range knownTypes {
		kn, _, _ := strings.Cut(strings.TrimPrefix(known, sandboxNamespace), "@")
		if kn == name {
			newest = known // knownTypes lists the newest version last
		}
		names = append(names, kn)
	}
	if newest != "" {
		return "; no such version: did you mean " + newest + "?", newest
	}
	if best := suggest.Closest(name, names, 4); best != "" {
		_, version, _ := strings.Cut(typ, "@")
		for _, known := range knownTypes {
			if strings.HasPrefix(known, sandboxNamespace+best+"@") && (newest == "" || !strings.HasSuffix(newest, "@"+version)) {
				newest = known // the version written, when that name has it
			}
		}
		return "; did you mean " + newest + "?", newest
	}
	return "", ""
}

// argHint suggests the declared arg a reference to an undeclared one
// means: "; did you mean ${{ kit.args.host }}?", or "".
func argHint(name string, args map[string]Arg) string {
	names := make([]string, 0, len(args))
	for n := range args {
		names = append(names, n)
	}
	if best := suggest.Closest(name, names, 3); best != "" {
		return "; did you mean ${{ kit.args." + best + " }}? Otherwise"
	}
	return ""
}

// runtimeNamespace is the older docker/runtime-kit spelling of the
// well-known types' namespace.
const runtimeNamespace = "com.docker.runtime/"

// CanonicalType returns the com.docker.sandbox spelling of a well-known
// type written in the older com.docker.runtime namespace
// (com.docker.runtime/volume@1 → com.docker.sandbox/volume@1), so that
// both vocabularies get the same checks; any other type is returned as
// written.
func CanonicalType(typ string) string {
	if !strings.HasPrefix(typ, runtimeNamespace) {
		return typ
	}
	if t := sandboxNamespace + strings.TrimPrefix(typ, runtimeNamespace); slices.Contains(knownTypes, t) {
		return t
	}
	return typ
}

// checkRuntimeVocabulary warns once, at the first com.docker.runtime
// type, that the kit is written in the older vocabulary. A kit that mixes
// both spellings is left to lint's mixed-spec-vocabulary.
func (v *validator) checkRuntimeVocabulary() {
	for _, e := range v.d.Entries() {
		if strings.HasPrefix(e.Type, sandboxNamespace) {
			return
		}
	}
	for i, c := range v.d.Capabilities {
		at := field("capabilities", i)
		if c.Group != nil {
			for j, m := range c.Group.Capabilities {
				if v.warnRuntime(field(at, "group", "capabilities", j), m.Type) {
					return
				}
			}
			continue
		}
		if v.warnRuntime(at, c.Type) {
			return
		}
	}
}

func (v *validator) warnRuntime(entry, typ string) bool {
	if t := CanonicalType(typ); t != typ {
		v.warnf(field(entry, "type"), "runtime-vocabulary", "",
			"%s is the older docker/runtime-kit spelling of %s; the kit is checked as written in the com.docker.sandbox vocabulary, which Docker Sandboxes and the docker/sandbox-kit frontend read", typ, t)
		return true
	}
	return false
}

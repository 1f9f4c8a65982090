package spec

import (
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

// sandboxTypeHint suggests the well-known type an unknown
// com.docker.sandbox type means: its replacement when it was withdrawn,
// the newest version of a type of that name, or the nearest name.
func sandboxTypeHint(typ string) string {
	if r, ok := withdrawnTypes[typ]; ok {
		return "; it was withdrawn: did you mean " + r + "?"
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
		return "; no such version: did you mean " + newest + "?"
	}
	if best := suggest.Closest(name, names, 4); best != "" {
		_, version, _ := strings.Cut(typ, "@")
		for _, known := range knownTypes {
			if strings.HasPrefix(known, sandboxNamespace+best+"@") && (newest == "" || !strings.HasSuffix(newest, "@"+version)) {
				newest = known // the version written, when that name has it
			}
		}
		return "; did you mean " + newest + "?"
	}
	return ""
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

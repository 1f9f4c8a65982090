package spec

import "regexp"

// argRef matches a ${{ kit.args.NAME }} reference; group 1 is NAME. It is
// the one copy of the grammar: other packages use FindArgRefs and
// ExpandArgRefs.
var argRef = regexp.MustCompile(`\$\{\{\s*kit\.args\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// envRef matches a ${{ kit.env.NAME }} reference; group 1 is NAME.
var envRef = regexp.MustCompile(`\$\{\{\s*kit\.env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// anyRef matches the start of any ${{ … }} placeholder.
var anyRef = regexp.MustCompile(`\$\{\{[^}]*\}\}`)

// hasRef reports whether s holds an arg or env reference.
func hasRef(s string) bool { return argRef.MatchString(s) || envRef.MatchString(s) }

// ArgRef is one ${{ kit.args.NAME }} reference in a string.
type ArgRef struct {
	// Start and End are the byte offsets of the whole reference, End
	// exclusive.
	Start, End int
	// Name is the arg's name.
	Name string
}

// FindArgRefs returns the ${{ kit.args.NAME }} references in s, in order;
// nil when there are none.
func FindArgRefs(s string) []ArgRef {
	var out []ArgRef
	for _, m := range argRef.FindAllStringSubmatchIndex(s, -1) {
		out = append(out, ArgRef{Start: m[0], End: m[1], Name: s[m[2]:m[3]]})
	}
	return out
}

// ExpandArgRefs replaces each ${{ kit.args.NAME }} reference in s with
// value(NAME); a reference for which value reports false is kept as
// written.
func ExpandArgRefs(s string, value func(name string) (string, bool)) string {
	return argRef.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := value(argRef.FindStringSubmatch(m)[1]); ok {
			return v
		}
		return m
	})
}

// WholeArgRef returns NAME when s is exactly one ${{ kit.args.NAME }}
// reference with nothing around it, and false otherwise.
func WholeArgRef(s string) (string, bool) {
	refs := FindArgRefs(s)
	if len(refs) != 1 || refs[0].Start != 0 || refs[0].End != len(s) {
		return "", false
	}
	return refs[0].Name, true
}

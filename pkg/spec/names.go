package spec

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// DefaultNamespace is the namespace of a bare capability name.
const DefaultNamespace = "com.docker.kit"

var (
	baseNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9+.-]{0,62}[a-z0-9+])?$`)
	nsCharsRE  = regexp.MustCompile(`^[a-z0-9.-]+$`)
	labelRE    = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
	versionRE  = regexp.MustCompile(`^[0-9]+(\.[0-9A-Za-z-]+)*$`)
)

// NameError is a capability name that breaks the name grammar
// (SPEC-v3 §5.1). Namespace reports whether the namespace is at fault
// (not reverse-DNS, or a reserved single label), as opposed to the
// name's spelling.
type NameError struct {
	Name      string
	Namespace bool
	msg       string
}

// Error says what is wrong with the name and how to write it.
func (e *NameError) Error() string { return e.msg }

// CheckName checks a capability name: bare, or namespace/base where the
// namespace is reverse-DNS (SPEC-v3 §5.1) or one of the reserved deb and
// apk namespaces. The error is a *NameError.
func CheckName(name string) error {
	ns, base, qualified := strings.Cut(name, "/")
	if !qualified {
		if !baseNameRE.MatchString(name) {
			return &NameError{Name: name, msg: fmt.Sprintf("invalid capability name %q: write lowercase letters, digits and . + - (at most 64 characters), optionally after a reverse-DNS namespace and a slash", name)}
		}
		return nil
	}
	if ns == "" || !nsCharsRE.MatchString(ns) || !baseNameRE.MatchString(base) {
		return &NameError{Name: name, msg: fmt.Sprintf("invalid capability name %q: write name or namespace/name, lowercase", name)}
	}
	if len(ns) > 253 {
		return &NameError{Name: name, Namespace: true, msg: fmt.Sprintf("namespace of %q is %d characters; no domain is longer than 253", name, len(ns))}
	}
	for _, l := range strings.Split(ns, ".") {
		if !labelRE.MatchString(l) {
			return &NameError{Name: name, Namespace: true, msg: fmt.Sprintf("namespace %q in %q is not reverse-DNS: %q is not a label a domain can carry; write labels of letters, digits and dashes joined by single dots", ns, name, l)}
		}
	}
	if ns == "deb" || ns == "apk" {
		return nil
	}
	if !strings.Contains(ns, ".") {
		return &NameError{Name: name, Namespace: true, msg: fmt.Sprintf("namespace %q in %q is a single label, which the specification reserves; use a reverse-DNS namespace of your own, as in com.example/%s", ns, name, base)}
	}
	return nil
}

// NormalizeName returns the fully qualified form of a capability name.
func NormalizeName(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	return DefaultNamespace + "/" + name
}

// IsDerivedName reports a name in the deb/ or apk/ namespace, which
// publishing derives from the image's package database.
func IsDerivedName(name string) bool {
	return strings.HasPrefix(name, "deb/") || strings.HasPrefix(name, "apk/")
}

// CheckVersion checks the version grammar: digits, then dot-separated
// segments of letters, digits and dashes; no "v" prefix.
func CheckVersion(v string) error {
	if !versionRE.MatchString(strings.TrimSpace(v)) {
		hint := ""
		if strings.HasPrefix(v, "v") && versionRE.MatchString(v[1:]) {
			hint = fmt.Sprintf("; drop the v prefix: %q", v[1:])
		}
		return fmt.Errorf("invalid version %q: write digits, then dot-separated segments, as in 1.2.3 or 2.0-rc1%s", v, hint)
	}
	return nil
}

// Provide is a parsed provides entry.
type Provide struct {
	Name    string
	Version string // "" when unversioned
}

// ParseProvide parses "name" or "name@version".
func ParseProvide(s string) (Provide, error) {
	s = strings.TrimSpace(s)
	name, ver, versioned := strings.Cut(s, "@")
	if err := CheckName(name); err != nil {
		return Provide{}, err
	}
	if versioned {
		if err := CheckVersion(ver); err != nil {
			return Provide{}, err
		}
	}
	return Provide{Name: name, Version: strings.TrimSpace(ver)}, nil
}

// Constraint is one version constraint of a requires entry.
type Constraint struct {
	Op      string // >=, >, <=, <, =
	Version string
}

// Require is a parsed requires or integrates entry.
type Require struct {
	Name        string
	Constraints []Constraint
}

var errNoOp = errors.New("expected a version operator (>=, >, <=, <, =)")

// ParseRequire parses "name" or "name <op> version[, <op> version…]" and
// refuses a constraint set no version can satisfy.
func ParseRequire(s string) (Require, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, "<>=")
	if i < 0 {
		if err := CheckName(s); err != nil {
			return Require{}, err
		}
		return Require{Name: s}, nil
	}
	name := strings.TrimSpace(s[:i])
	if name == "" {
		return Require{}, errors.New("missing capability name before the version constraint; write name >= version")
	}
	if err := CheckName(name); err != nil {
		return Require{}, err
	}
	r := Require{Name: name}
	rest := s[i:]
	for {
		rest = strings.TrimSpace(rest)
		op := ""
		for _, o := range []string{">=", "<=", ">", "<", "="} {
			if strings.HasPrefix(rest, o) {
				op = o
				break
			}
		}
		if op == "" {
			return Require{}, fmt.Errorf("%w, got %q", errNoOp, rest)
		}
		cur := rest
		rest = rest[len(op):]
		if t := strings.TrimLeft(rest, " "); t != "" && strings.ContainsRune("<>=", rune(t[0])) {
			bad := cur[:len(cur)-len(strings.TrimLeft(cur, "<>= "))]
			return Require{}, fmt.Errorf("%q is not a version operator; write >=, >, <=, < or =", strings.ReplaceAll(bad, " ", ""))
		}
		ver, next, more := strings.Cut(rest, ",")
		ver = strings.TrimSpace(ver)
		if ver == "" {
			return Require{}, fmt.Errorf("constraint %q has no version; write it as %s 1.2", op, op)
		}
		if err := CheckVersion(ver); err != nil {
			return Require{}, fmt.Errorf("constraint %s %s: %w", op, ver, err)
		}
		r.Constraints = append(r.Constraints, Constraint{Op: op, Version: ver})
		if !more {
			break
		}
		if strings.TrimSpace(next) == "" {
			return Require{}, errors.New("trailing comma after the last constraint; remove it or add a constraint")
		}
		rest = next
	}
	if err := satisfiable(r.Constraints); err != nil {
		return Require{}, err
	}
	return r, nil
}

// CompareVersions orders versions segment by segment: all-digit segments
// numerically, others byte-wise; a missing segment sorts first.
func CompareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y string
		if i < len(as) {
			x = as[i]
		}
		if i < len(bs) {
			y = bs[i]
		}
		if c := compareSegment(x, y); c != 0 {
			return c
		}
	}
	return 0
}

func compareSegment(x, y string) int {
	if isDigits(x) && isDigits(y) {
		x, y = strings.TrimLeft(x, "0"), strings.TrimLeft(y, "0")
		if len(x) != len(y) {
			if len(x) < len(y) {
				return -1
			}
			return 1
		}
	}
	return strings.Compare(x, y)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// satisfiable refuses a constraint set that no version satisfies.
func satisfiable(cs []Constraint) error {
	var pin *Constraint
	for i := range cs {
		c := &cs[i]
		if c.Op != "=" {
			continue
		}
		if pin != nil && CompareVersions(pin.Version, c.Version) != 0 {
			return fmt.Errorf("unsatisfiable constraints: = %s and = %s; no version satisfies both, so keep one", pin.Version, c.Version)
		}
		pin = c
	}
	if pin != nil {
		for _, c := range cs {
			if !c.Holds(pin.Version) {
				return fmt.Errorf("unsatisfiable constraints: = %s conflicts with %s %s; no version satisfies both, so drop or loosen one", pin.Version, c.Op, c.Version)
			}
		}
		return nil
	}
	// Lowest admissible version: the tightest lower bound, ">= 0" by default;
	// "> v" admits v's immediate successor "v.-" (the smallest version above v).
	lo, loOp := "0", ">="
	for _, c := range cs {
		if c.Op != ">=" && c.Op != ">" {
			continue
		}
		if cmp := CompareVersions(c.Version, lo); cmp > 0 || cmp == 0 && c.Op == ">" {
			lo, loOp = c.Version, c.Op
		}
	}
	least := lo
	if loOp == ">" {
		least = lo + ".-"
	}
	for _, c := range cs {
		if (c.Op == "<=" || c.Op == "<") && !c.Holds(least) {
			if loOp == ">=" && lo == "0" {
				return fmt.Errorf("unsatisfiable constraint: no version is %s %s; loosen it", c.Op, c.Version)
			}
			return fmt.Errorf("unsatisfiable constraints: %s %s and %s %s; no version satisfies both, so drop or loosen one", loOp, lo, c.Op, c.Version)
		}
	}
	return nil
}

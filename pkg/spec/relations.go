package spec

import (
	"math/big"
	"path"
	"strings"

	"github.com/distribution/reference"
)

// Holds reports whether version v satisfies the constraint.
func (c Constraint) Holds(v string) bool {
	cmp := CompareVersions(v, c.Version)
	switch c.Op {
	case ">=":
		return cmp >= 0
	case ">":
		return cmp > 0
	case "<=":
		return cmp <= 0
	case "<":
		return cmp < 0
	}
	return cmp == 0
}

// SatisfiedBy reports whether provide p meets requirement r (SPEC-v3 §5):
// the same normalized name and, when r has constraints, a version that
// satisfies every one of them. An unversioned provide meets only an
// unconstrained requirement.
func (r Require) SatisfiedBy(p Provide) bool {
	if NormalizeName(p.Name) != NormalizeName(r.Name) {
		return false
	}
	if len(r.Constraints) > 0 && p.Version == "" {
		return false
	}
	for _, c := range r.Constraints {
		if !c.Holds(p.Version) {
			return false
		}
	}
	return true
}

// EffectiveVersion is the version a kit consumed by ref gives its
// unversioned provides: a version-shaped tag of the reference (a leading v
// dropped) wins over the descriptor's version: field.
func EffectiveVersion(ref string, d *Descriptor) string {
	if named, err := reference.ParseNormalizedNamed(ref); err == nil {
		if t, ok := named.(reference.Tagged); ok {
			if tag := strings.TrimPrefix(t.Tag(), "v"); CheckVersion(tag) == nil {
				return tag
			}
		}
	}
	return d.Version
}

// SameVolume reports whether two volume@1 requests ask for the same volume
// (volume@1/matching-requests-merge): one cleaned path, the same tmpfs
// flag, modes equal once leading zeros are dropped, and sizes equal in
// bytes (1g = 1024m = 1GiB).
func SameVolume(a, b Volume) bool {
	if path.Clean(a.Path) != path.Clean(b.Path) || a.Tmpfs != b.Tmpfs ||
		strings.TrimLeft(a.Mode, "0") != strings.TrimLeft(b.Mode, "0") || (a.Mode == "") != (b.Mode == "") {
		return false
	}
	if a.Size == "" || b.Size == "" {
		return a.Size == b.Size
	}
	sa, okA := VolumeBytes(a.Size)
	sb, okB := VolumeBytes(b.Size)
	return okA && okB && sa.Cmp(sb) == 0
}

// VolumeBytes parses a volume size (a decimal number and an optional unit
// whose first letter is k, m, g or t, powers of 1024; "i" and "b" ignored)
// as an exact number of bytes.
func VolumeBytes(s string) (*big.Rat, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if !sizeRE.MatchString(s) {
		return nil, false
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	n, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, false
	}
	if unit != "" && unit != "b" {
		for range strings.IndexByte("kmgt", unit[0]) + 1 {
			n.Mul(n, big.NewRat(1024, 1))
		}
	}
	return n, true
}

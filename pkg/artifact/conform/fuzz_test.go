package conform

import (
	"strings"
	"testing"
)

// FuzzPackageVersion checks that a derived version is empty or a
// dotted-numeric core of at most three parts.
func FuzzPackageVersion(f *testing.F) {
	for _, s := range []string{"1:2.5.2-3+dhi1", "9.20.26-1~deb13u1", "1.36.1-r15", "2.0~rc1-1", "", "-", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v := PackageVersion(raw)
		if v == "" {
			return
		}
		parts := strings.Split(v, ".")
		if len(parts) > 3 {
			t.Fatalf("PackageVersion(%q) = %q has %d parts", raw, v, len(parts))
		}
		for _, p := range parts {
			if p == "" || strings.Trim(p, "0123456789") != "" {
				t.Fatalf("PackageVersion(%q) = %q is not dotted-numeric", raw, v)
			}
		}
	})
}

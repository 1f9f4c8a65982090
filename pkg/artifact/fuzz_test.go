package artifact

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseReference checks the reference grammar Open and Write share:
// ParseReference never panics, a parsed reference prints back to one that
// parses the same, and its parts keep their invariants. Seeds are in
// testdata/fuzz/FuzzParseReference.
func FuzzParseReference(f *testing.F) {
	for _, s := range []string{"oci:out/gh:1.2.0", "oci:dir:with:colon:", "oci-archive:dist/gh.tar:v1", "127.0.0.1:5000/kits/gh@sha256:" + strings.Repeat("a", 64), "oci:", "oci::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseReference(s)
		if err != nil {
			var de *DestinationError
			if !errors.As(err, &de) {
				t.Fatalf("ParseReference(%q) error %T is not a *DestinationError", s, err)
			}
			return
		}
		switch r.Kind {
		case OriginLayout, OriginArchive:
			if r.Path == "" || r.Name != "" || (r.Tag != "" && !tagRE.MatchString(r.Tag)) {
				t.Fatalf("ParseReference(%q) = %+v", s, r)
			}
		case OriginRegistry:
			if r.Name != s || r.Path != "" || r.Tag != "" {
				t.Fatalf("ParseReference(%q) = %+v", s, r)
			}
		default:
			t.Fatalf("ParseReference(%q) kind %q", s, r.Kind)
		}
		again, err := ParseReference(r.String())
		if err != nil || again != r {
			t.Fatalf("ParseReference(%q) = %+v prints %q, which parses to %+v, %v", s, r, r.String(), again, err)
		}
	})
}

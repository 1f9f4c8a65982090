package artifact

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// FuzzLayerFS feeds arbitrary bytes to the layer reader: it must return an
// error or a filesystem, never panic or loop.
func FuzzLayerFS(f *testing.F) {
	f.Add(tarBytes(f, dir("home/", 0), file("home/.wh..wh..opq", ""), symlink("home/a", "../../../b"), file("etc/passwd", "root")))
	f.Add(tarBytes(f, symlink("a", "b"), symlink("b", "a"), file(".wh.a", "")))
	f.Add([]byte("not a tar"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fs := newLayerFS(wantedFile, nil)
		if err := fs.apply(context.Background(), bytes.NewReader(b), 0); err != nil {
			return
		}
		fs.danglingLinks()
		_ = fs.stems()
		_ = fs.lookup("/etc/passwd", true)
	})
}

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

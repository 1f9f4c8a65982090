package artifact

import (
	"bytes"
	"context"
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

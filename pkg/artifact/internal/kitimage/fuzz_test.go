package kitimage

import (
	"bytes"
	"compress/gzip"
	"context"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// FuzzLayerFS feeds arbitrary bytes to the layer reader: it must return an
// error or a filesystem, never panic or loop.
func FuzzLayerFS(f *testing.F) {
	f.Add(tarBytes(f, dir("home/", 0), file("home/.wh..wh..opq", ""), symlink("home/a", "../../../b"), file("etc/passwd", "root")))
	f.Add(tarBytes(f, symlink("a", "b"), symlink("b", "a"), file(".wh.a", "")))
	f.Add([]byte("not a tar"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fs := NewFS(wantedFile, nil)
		if err := fs.Apply(context.Background(), bytes.NewReader(b), 0); err != nil {
			return
		}
		fs.DanglingLinks()
		_ = fs.Stems()
		_ = fs.Lookup("/etc/passwd", true)
	})
}

// FuzzLayerStream feeds arbitrary bytes as a layer blob, compressed or
// not: reading it to its end and verifying it must return an error or
// succeed, never panic or hang.
func FuzzLayerStream(f *testing.F) {
	plain := tarBytes(f, dir("opt/", 0), file("opt/x", "y"), symlink("opt/l", "x"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	f.Add(plain)
	f.Add(gz.Bytes())
	f.Add(append(gz.Bytes(), "trailing"...))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		l := static.NewLayer(b, types.OCILayer)
		d, _ := partial.Descriptor(l)
		s, err := openLayer(l, *d)
		if err != nil {
			return
		}
		defer s.Close()
		fs := NewFS(wantedFile, &Budget{limit: 1 << 20, captureCap: 1 << 20})
		if err := fs.Apply(context.Background(), s, 0); err != nil {
			return
		}
		_ = s.finish(context.Background(), v1.Hash{})
	})
}

// Package artifacttest builds kit images in memory for tests: tar layers
// with chosen owners, modes and links, images and indexes with chosen
// media types and annotations, conforming kits to break one rule at a
// time, in-process registries, and OCI layouts on disk.
//
// Every helper takes a testing.TB and fails the test on error.
package artifacttest

import (
	"archive/tar"
	"bytes"
	"io"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Entry is one tar entry of a test layer.
type Entry struct {
	Name string
	// Type is a tar type flag; tar.TypeReg when zero.
	Type byte
	Mode int64
	UID  int
	GID  int
	Body string
	// Link is a symbolic or hard link's target.
	Link string
}

// Dir is a directory entry owned by uid:uid, mode 0755.
func Dir(name string, uid int) Entry {
	return Entry{Name: name, Type: tar.TypeDir, Mode: 0o755, UID: uid, GID: uid}
}

// File is a root-owned regular file, mode 0644.
func File(name, body string) Entry { return Entry{Name: name, Mode: 0o644, Body: body} }

// Exe is a root-owned executable file, mode 0755.
func Exe(name, body string) Entry { return Entry{Name: name, Mode: 0o755, Body: body} }

// Symlink is a symbolic link to target, as written.
func Symlink(name, target string) Entry {
	return Entry{Name: name, Type: tar.TypeSymlink, Mode: 0o777, Link: target}
}

// Tar writes entries as an uncompressed tar stream.
func Tar(t testing.TB, entries ...Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		typ := e.Type
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.Name, Typeflag: typ, Mode: e.Mode, Uid: e.UID, Gid: e.GID, Linkname: e.Link, Format: tar.FormatPAX}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.Body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := io.WriteString(tw, e.Body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Layer makes a gzip-compressed layer of entries with media type mt.
func Layer(t testing.TB, mt types.MediaType, entries ...Entry) v1.Layer {
	t.Helper()
	return BytesLayer(t, mt, Tar(t, entries...))
}

// BytesLayer makes a gzip-compressed layer of arbitrary bytes.
func BytesLayer(t testing.TB, mt types.MediaType, b []byte) v1.Layer {
	t.Helper()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(mt))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// OCILayer makes an application/vnd.oci.image.layer.v1.tar+gzip layer.
func OCILayer(t testing.TB, entries ...Entry) v1.Layer { return Layer(t, types.OCILayer, entries...) }

// Image assembles a single-platform OCI image; ann may be nil.
func Image(t testing.TB, platform string, cfg v1.Config, ann map[string]string, layers ...v1.Layer) v1.Image {
	t.Helper()
	p, err := v1.ParsePlatform(platform)
	if err != nil {
		t.Fatal(err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{OS: p.OS, Architecture: p.Architecture, Variant: p.Variant,
		RootFS: v1.RootFS{Type: "layers"}, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		if img, err = mutate.Append(img, mutate.Addendum{Layer: l}); err != nil {
			t.Fatal(err)
		}
	}
	if ann != nil {
		img = mutate.Annotations(img, ann).(v1.Image)
	}
	return img
}

// Index assembles an OCI image index listing imgs under platforms, in
// order, with entries that carry no artifactType (as BuildKit and
// kitsmith write them); ann may be nil.
func Index(t testing.TB, ann map[string]string, platforms []string, imgs ...v1.Image) v1.ImageIndex {
	t.Helper()
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for i, img := range imgs {
		p, err := v1.ParsePlatform(platforms[i])
		if err != nil {
			t.Fatal(err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: PlainImage(img), Descriptor: v1.Descriptor{Platform: p}})
	}
	if ann != nil {
		idx = mutate.Annotations(idx, ann).(v1.ImageIndex)
	}
	return idx
}

// PlainImage wraps img so that an index built with mutate.AppendManifests
// lists it without an artifactType (go-containerregistry otherwise copies
// the config media type into the entry).
func PlainImage(img v1.Image) v1.Image { return plainImage{img} }

type plainImage struct{ v1.Image }

func (plainImage) ArtifactType() (string, error) { return "", nil }

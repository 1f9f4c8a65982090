package build

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// ociArchive is an OCI image layout in a tar file (what BuildKit's OCI
// exporter writes), read in place: blobs are sections of the file, so a
// large image is neither unpacked nor held in memory.
type ociArchive struct {
	f     *os.File
	files map[string]span
}

// span is where a file's content lies in the archive.
type span struct{ off, size int64 }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// openArchive indexes the regular files of the tar file name. The caller
// closes it.
func openArchive(name string) (*ociArchive, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	a := &ociArchive{f: f, files: map[string]span{}}
	cr := &countingReader{r: f}
	tr := tar.NewReader(cr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return a, nil
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("reading the exported archive: %w", err)
		}
		if h.Typeflag == tar.TypeReg {
			// Next has read the header blocks and nothing more: the
			// content starts here.
			a.files[path.Clean(h.Name)] = span{off: cr.n, size: h.Size}
		}
	}
}

func (a *ociArchive) Close() error { return a.f.Close() }

// open returns a file of the archive.
func (a *ociArchive) open(name string) (*io.SectionReader, error) {
	s, ok := a.files[name]
	if !ok {
		return nil, fmt.Errorf("the exported archive holds no %s", name)
	}
	return io.NewSectionReader(a.f, s.off, s.size), nil
}

// read returns a whole file of the archive (manifests, configs).
func (a *ociArchive) read(name string) ([]byte, error) {
	r, err := a.open(name)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func blobPath(h v1.Hash) string { return path.Join("blobs", h.Algorithm, h.Hex) }

// index returns the image index that index.json names.
func (a *ociArchive) index() (v1.ImageIndex, error) {
	b, err := a.read("index.json")
	if err != nil {
		return nil, err
	}
	var top v1.IndexManifest
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("reading the exported index.json: %w", err)
	}
	if len(top.Manifests) != 1 || !top.Manifests[0].MediaType.IsIndex() {
		return nil, fmt.Errorf("the exported index.json lists %d descriptors, not one image index", len(top.Manifests))
	}
	return a.imageIndex(top.Manifests[0].Digest)
}

func (a *ociArchive) imageIndex(h v1.Hash) (v1.ImageIndex, error) {
	raw, err := a.read(blobPath(h))
	if err != nil {
		return nil, err
	}
	im, err := v1.ParseIndexManifest(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if im.MediaType != "" && !im.MediaType.IsIndex() {
		return nil, fmt.Errorf("%s is a %s, not an image index", h, im.MediaType)
	}
	return &archiveIndex{a: a, raw: raw, im: im}, nil
}

// archiveIndex is an image index in an ociArchive.
type archiveIndex struct {
	a   *ociArchive
	raw []byte
	im  *v1.IndexManifest
}

var _ v1.ImageIndex = (*archiveIndex)(nil)

func (x *archiveIndex) MediaType() (types.MediaType, error) {
	if x.im.MediaType != "" {
		return x.im.MediaType, nil
	}
	return types.OCIImageIndex, nil
}
func (x *archiveIndex) Digest() (v1.Hash, error)                    { return sha256Hash(x.raw), nil }
func (x *archiveIndex) Size() (int64, error)                        { return int64(len(x.raw)), nil }
func (x *archiveIndex) IndexManifest() (*v1.IndexManifest, error)   { return x.im.DeepCopy(), nil }
func (x *archiveIndex) RawManifest() ([]byte, error)                { return x.raw, nil }
func (x *archiveIndex) ImageIndex(h v1.Hash) (v1.ImageIndex, error) { return x.a.imageIndex(h) }

func (x *archiveIndex) Image(h v1.Hash) (v1.Image, error) {
	raw, err := x.a.read(blobPath(h))
	if err != nil {
		return nil, err
	}
	m, err := v1.ParseManifest(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if m.MediaType != "" && !m.MediaType.IsImage() {
		return nil, fmt.Errorf("%s is a %s, not an image manifest", h, m.MediaType)
	}
	return partial.CompressedToImage(&archiveImage{a: x.a, raw: raw, m: m})
}

// archiveImage is an image manifest in an ociArchive.
type archiveImage struct {
	a   *ociArchive
	raw []byte
	m   *v1.Manifest
}

var _ partial.CompressedImageCore = (*archiveImage)(nil)

func (i *archiveImage) RawConfigFile() ([]byte, error) { return i.a.read(blobPath(i.m.Config.Digest)) }
func (i *archiveImage) RawManifest() ([]byte, error)   { return i.raw, nil }
func (i *archiveImage) MediaType() (types.MediaType, error) {
	if i.m.MediaType != "" {
		return i.m.MediaType, nil
	}
	return types.OCIManifestSchema1, nil
}

func (i *archiveImage) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	for _, d := range append([]v1.Descriptor{i.m.Config}, i.m.Layers...) {
		if d.Digest == h {
			return &archiveBlob{a: i.a, d: d}, nil
		}
	}
	return nil, fmt.Errorf("the manifest lists no blob %s", h)
}

// archiveBlob is a blob in an ociArchive.
type archiveBlob struct {
	a *ociArchive
	d v1.Descriptor
}

func (b *archiveBlob) Digest() (v1.Hash, error)            { return b.d.Digest, nil }
func (b *archiveBlob) Size() (int64, error)                { return b.d.Size, nil }
func (b *archiveBlob) MediaType() (types.MediaType, error) { return b.d.MediaType, nil }
func (b *archiveBlob) Compressed() (io.ReadCloser, error) {
	r, err := b.a.open(blobPath(b.d.Digest))
	if err != nil {
		return nil, err
	}
	return io.NopCloser(r), nil
}

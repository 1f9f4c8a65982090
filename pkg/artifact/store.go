package artifact

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
)

// Read bounds. A kit's manifest carries its descriptor (at most 512 KiB by
// the specification's size budget) and registries refuse manifests past
// about 4 MiB; configs are small JSON documents.
const (
	maxManifestBytes   = kitimage.MaxManifestBytes
	maxConfigBytes     = kitimage.MaxConfigBytes
	maxArchiveEntries  = 1 << 16
	maxLayoutFileBytes = 1 << 10 // the oci-layout marker
)

// blobStore reads the blobs and top-level files of an OCI image layout,
// whether a directory or an archive of one.
type blobStore interface {
	// open returns a blob's content and its stored size.
	open(h v1.Hash) (io.ReadCloser, int64, error)
	// readFile reads a top-level file of the layout, at most limit bytes.
	readFile(name string, limit int64) ([]byte, error)
	// String names the layout in errors.
	String() string
}

// dirStore is a layout directory. Every read goes through an os.Root, so
// a symlink inside the layout cannot lead a read outside it.
type dirStore struct{ dir string }

func (s dirStore) String() string { return s.dir }

// openFile opens a regular file of the layout. The file is opened without
// blocking and refused unless it is a regular file, so a FIFO planted as a
// blob or as index.json cannot hold a read forever.
func (s dirStore) openFile(name string) (*os.File, error) {
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if err := regular(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openRegular opens a regular file by path, refusing FIFOs, devices and
// sockets before any read.
func openRegular(file string) (*os.File, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if err := regular(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func regular(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: f.Name(), Err: fmt.Errorf("%w: it is %s", kitimage.ErrNotRegular, modeName(st.Mode()))}
	}
	return nil
}

func modeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return m.Type().String()
}

func (s dirStore) open(h v1.Hash) (io.ReadCloser, int64, error) {
	f, err := s.openFile(blobPath(h))
	if err != nil {
		return nil, 0, fmt.Errorf("blob %s of layout %s: %w", h, s.dir, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("blob %s of layout %s: %w", h, s.dir, err)
	}
	return f, st.Size(), nil
}

func (s dirStore) readFile(name string, limit int64) ([]byte, error) {
	f, err := s.openFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, limit, name)
}

func blobPath(h v1.Hash) string { return path.Join("blobs", h.Algorithm, h.Hex) }

// tarStore is an archive of a layout, read in place: its entries are
// indexed once, and each blob is a section of the file, opened anew for
// every read so nothing is left open between reads.
type tarStore struct {
	file    string
	entries map[string]tarEntry
}

type tarEntry struct{ offset, size int64 }

func (s *tarStore) String() string { return s.file }

// indexArchive lists the regular files of a layout archive. Entries whose
// names would land outside the layout, links, devices and duplicates are
// refused: an archive carrying them was not written by a layout exporter.
func indexArchive(file string) (*tarStore, error) {
	f, err := openRegular(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &tarStore{file: file, entries: map[string]tarEntry{}}
	tr := tar.NewReader(f)
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading archive %s: %w", file, err)
		}
		if n >= maxArchiveEntries {
			return nil, fmt.Errorf("%w: archive %s holds more than %d entries", ErrTooLarge, file, maxArchiveEntries)
		}
		name, err := archiveName(hdr.Name)
		if err != nil {
			return nil, fmt.Errorf("%w: archive %s: %w", ErrUnsafeArchive, file, err)
		}
		switch hdr.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader:
			continue
		case tar.TypeReg:
		default:
			return nil, fmt.Errorf("%w: archive %s: entry %q is a %s; an OCI archive holds only files and directories",
				ErrUnsafeArchive, file, hdr.Name, typeName(hdr.Typeflag))
		}
		if _, dup := s.entries[name]; dup {
			return nil, fmt.Errorf("%w: archive %s holds %q twice", ErrUnsafeArchive, file, name)
		}
		// tar.Reader reads headers in whole blocks without buffering ahead,
		// so after Next the file offset is where the entry's data starts.
		off, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil, fmt.Errorf("reading archive %s: %w", file, err)
		}
		s.entries[name] = tarEntry{offset: off, size: hdr.Size}
	}
	return s, nil
}

// archiveName cleans an archive entry name to a path relative to the
// layout root, refusing absolute names and names that climb out of it.
func archiveName(name string) (string, error) {
	if strings.HasPrefix(name, "/") || strings.Contains(name, `\`) {
		return "", fmt.Errorf("entry %q is not a relative slash-separated path", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("entry %q climbs out of the archive", name)
		}
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", nil
	}
	return clean, nil
}

func typeName(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "symbolic link"
	case tar.TypeLink:
		return "hard link"
	case tar.TypeChar, tar.TypeBlock:
		return "device"
	case tar.TypeFifo:
		return "FIFO"
	case tar.TypeGNUSparse:
		return "sparse file"
	}
	return fmt.Sprintf("entry of type %q", t)
}

func (s *tarStore) openEntry(name string) (io.ReadCloser, int64, error) {
	e, ok := s.entries[name]
	if !ok {
		return nil, 0, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	f, err := openRegular(s.file)
	if err != nil {
		return nil, 0, err
	}
	return sectionCloser{io.NewSectionReader(f, e.offset, e.size), f}, e.size, nil
}

type sectionCloser struct {
	*io.SectionReader
	f *os.File
}

func (s sectionCloser) Close() error { return s.f.Close() }

func (s *tarStore) open(h v1.Hash) (io.ReadCloser, int64, error) {
	rc, n, err := s.openEntry(blobPath(h))
	if err != nil {
		return nil, 0, fmt.Errorf("blob %s of archive %s: %w", h, s.file, err)
	}
	return rc, n, nil
}

func (s *tarStore) readFile(name string, limit int64) ([]byte, error) {
	rc, _, err := s.openEntry(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return readBounded(rc, limit, name)
}

// readBounded reads all of r, failing with ErrTooLarge past limit bytes.
func readBounded(r io.Reader, limit int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrTooLarge, what, limit)
	}
	return b, nil
}

// readBlob reads a small blob (a manifest or a config) whole, checking its
// size against the descriptor and the limit, and its digest.
func readBlob(s blobStore, d v1.Descriptor, limit int64) ([]byte, error) {
	if d.Size > limit {
		return nil, fmt.Errorf("%w: blob %s is %d bytes, over the %d byte limit", ErrTooLarge, d.Digest, d.Size, limit)
	}
	rc, _, err := s.open(d.Digest)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := readBounded(rc, limit, "blob "+d.Digest.String())
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != d.Size {
		return nil, fmt.Errorf("%w: blob %s is %d bytes, its descriptor says %d", ErrDigestMismatch, d.Digest, len(b), d.Size)
	}
	if err := verifyDigest(d.Digest, b); err != nil {
		return nil, err
	}
	return b, nil
}

func verifyDigest(h v1.Hash, b []byte) error {
	if h.Algorithm != "sha256" {
		return nil
	}
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != h.Hex {
		return fmt.Errorf("%w: blob %s has digest sha256:%x", ErrDigestMismatch, h, sum)
	}
	return nil
}

// verifyingReader checks a streamed blob against its digest when the
// stream ends.
type verifyingReader struct {
	rc   io.ReadCloser
	want v1.Hash
	h    hash.Hash
	n    int64
	size int64
}

func newVerifyingReader(rc io.ReadCloser, want v1.Hash, size int64) io.ReadCloser {
	if want.Algorithm != "sha256" {
		return rc
	}
	return &verifyingReader{rc: rc, want: want, h: sha256.New(), size: size}
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	n, err := v.rc.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if v.n > v.size {
		return n, fmt.Errorf("%w: blob %s is at least %d bytes, its descriptor says %d", ErrDigestMismatch, v.want, v.n, v.size)
	}
	if errors.Is(err, io.EOF) {
		if v.n != v.size {
			return n, fmt.Errorf("%w: blob %s is %d bytes, its descriptor says %d", ErrDigestMismatch, v.want, v.n, v.size)
		}
		if got := hex.EncodeToString(v.h.Sum(nil)); got != v.want.Hex {
			return n, fmt.Errorf("%w: blob %s has digest sha256:%s (%d bytes)", ErrDigestMismatch, v.want, got, v.n)
		}
	}
	return n, err
}

func (v *verifyingReader) Close() error { return v.rc.Close() }

// storeIndex is an image index read from a layout.
type storeIndex struct {
	store     blobStore
	mediaType types.MediaType
	raw       []byte
	manifest  *v1.IndexManifest
}

var _ v1.ImageIndex = (*storeIndex)(nil)

func newStoreIndex(s blobStore, mt types.MediaType, raw []byte) (*storeIndex, error) {
	var im v1.IndexManifest
	if err := json.Unmarshal(raw, &im); err != nil {
		return nil, fmt.Errorf("%w: index does not parse: %w", ErrMalformed, err)
	}
	return &storeIndex{store: s, mediaType: mt, raw: raw, manifest: &im}, nil
}

func (i *storeIndex) MediaType() (types.MediaType, error)       { return i.mediaType, nil }
func (i *storeIndex) Digest() (v1.Hash, error)                  { return partial.Digest(i) }
func (i *storeIndex) Size() (int64, error)                      { return int64(len(i.raw)), nil }
func (i *storeIndex) IndexManifest() (*v1.IndexManifest, error) { return i.manifest, nil }
func (i *storeIndex) RawManifest() ([]byte, error)              { return i.raw, nil }

func (i *storeIndex) find(h v1.Hash) (v1.Descriptor, error) {
	for _, d := range i.manifest.Manifests {
		if d.Digest == h {
			return d, nil
		}
	}
	return v1.Descriptor{}, fmt.Errorf("%w: index lists no manifest %s", ErrNotFound, h)
}

func (i *storeIndex) Image(h v1.Hash) (v1.Image, error) {
	d, err := i.find(h)
	if err != nil {
		return nil, err
	}
	raw, err := readBlob(i.store, d, maxManifestBytes)
	if err != nil {
		return nil, err
	}
	var m v1.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: manifest %s does not parse: %w", ErrMalformed, h, err)
	}
	return partial.CompressedToImage(&storeImage{store: i.store, desc: d, raw: raw, manifest: &m})
}

func (i *storeIndex) ImageIndex(h v1.Hash) (v1.ImageIndex, error) {
	d, err := i.find(h)
	if err != nil {
		return nil, err
	}
	raw, err := readBlob(i.store, d, maxManifestBytes)
	if err != nil {
		return nil, err
	}
	return newStoreIndex(i.store, d.MediaType, raw)
}

// storeImage is an image manifest read from a layout.
type storeImage struct {
	store    blobStore
	desc     v1.Descriptor
	raw      []byte
	manifest *v1.Manifest

	once   sync.Once
	config []byte
	cfgErr error
}

var _ partial.CompressedImageCore = (*storeImage)(nil)

func (i *storeImage) MediaType() (types.MediaType, error) {
	if i.manifest.MediaType != "" {
		return i.manifest.MediaType, nil
	}
	return i.desc.MediaType, nil
}

func (i *storeImage) RawManifest() ([]byte, error) { return i.raw, nil }

func (i *storeImage) RawConfigFile() ([]byte, error) {
	i.once.Do(func() { i.config, i.cfgErr = readBlob(i.store, i.manifest.Config, maxConfigBytes) })
	return i.config, i.cfgErr
}

func (i *storeImage) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	if h == i.manifest.Config.Digest {
		return storeBlob{i.store, i.manifest.Config}, nil
	}
	for _, d := range i.manifest.Layers {
		if d.Digest == h {
			return storeBlob{i.store, d}, nil
		}
	}
	return nil, fmt.Errorf("%w: manifest lists no layer %s", ErrNotFound, h)
}

// storeBlob is a layer of a layout image; its content is verified against
// its digest as it streams.
type storeBlob struct {
	store blobStore
	desc  v1.Descriptor
}

func (b storeBlob) Digest() (v1.Hash, error)            { return b.desc.Digest, nil }
func (b storeBlob) Size() (int64, error)                { return b.desc.Size, nil }
func (b storeBlob) MediaType() (types.MediaType, error) { return b.desc.MediaType, nil }
func (b storeBlob) Descriptor() (*v1.Descriptor, error) { return &b.desc, nil }

func (b storeBlob) Compressed() (io.ReadCloser, error) {
	rc, _, err := b.store.open(b.desc.Digest)
	if err != nil {
		return nil, err
	}
	return newVerifyingReader(rc, b.desc.Digest, b.desc.Size), nil
}

// layoutMarker checks the oci-layout file that makes a directory a layout.
func layoutMarker(s blobStore) error {
	b, err := s.readFile("oci-layout", maxLayoutFileBytes)
	if err != nil {
		return fmt.Errorf("%w: %s has no readable oci-layout file: %w", ErrNotLayout, s, err)
	}
	var m struct {
		Version string `json:"imageLayoutVersion"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &m); err != nil || m.Version == "" {
		return fmt.Errorf("%w: %s has an oci-layout file that names no imageLayoutVersion", ErrNotLayout, s)
	}
	return nil
}

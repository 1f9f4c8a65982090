package artifact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
)

// blob is one piece of content to write: its descriptor and how to read it.
type blob struct {
	desc v1.Descriptor
	open func() (io.ReadCloser, error)
}

// descriptor returns the descriptor of the artifact's top-level manifest,
// with no platform, annotations or artifactType: a kit is a plain image.
func (a *Artifact) descriptor() (v1.Descriptor, error) {
	var (
		d   v1.Descriptor
		err error
	)
	switch {
	case a == nil || (a.index == nil && a.image == nil):
		return d, errors.New("the artifact is empty: use Open, FromIndex or FromImage")
	case a.index != nil:
		d.MediaType, err = a.index.MediaType()
		if err == nil {
			d.Digest, err = a.index.Digest()
		}
		if err == nil {
			d.Size, err = a.index.Size()
		}
	default:
		d.MediaType, err = a.image.MediaType()
		if err == nil {
			d.Digest, err = a.image.Digest()
		}
		if err == nil {
			d.Size, err = a.image.Size()
		}
	}
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("reading the artifact's manifest: %w", err)
	}
	return d, nil
}

// blobs lists every blob of the artifact once, children before the
// manifests that name them, the top-level manifest last.
func (a *Artifact) blobs() ([]blob, error) {
	w := &blobWalk{seen: map[v1.Hash]bool{}}
	var err error
	if a.index != nil {
		err = w.index(a.index)
	} else {
		err = w.image(a.image)
	}
	if err != nil {
		return nil, err
	}
	return w.out, nil
}

type blobWalk struct {
	seen map[v1.Hash]bool
	out  []blob
}

func (w *blobWalk) add(d v1.Descriptor, open func() (io.ReadCloser, error)) {
	if w.seen[d.Digest] {
		return
	}
	w.seen[d.Digest] = true
	w.out = append(w.out, blob{desc: d, open: open})
}

func (w *blobWalk) raw(mt types.MediaType, raw []byte) {
	h, n, _ := v1.SHA256(bytes.NewReader(raw))
	w.add(v1.Descriptor{MediaType: mt, Digest: h, Size: n}, func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	})
}

func (w *blobWalk) index(idx v1.ImageIndex) error {
	im, err := idx.IndexManifest()
	if err != nil {
		return fmt.Errorf("reading an image index: %w", err)
	}
	for _, d := range im.Manifests {
		if w.seen[d.Digest] {
			continue
		}
		switch {
		case d.MediaType.IsIndex():
			child, err := idx.ImageIndex(d.Digest)
			if err != nil {
				return fmt.Errorf("reading index %s: %w", d.Digest, err)
			}
			if err := w.index(child); err != nil {
				return err
			}
		case d.MediaType.IsImage():
			img, err := idx.Image(d.Digest)
			if err != nil {
				return fmt.Errorf("reading manifest %s: %w", d.Digest, err)
			}
			if err := w.image(img); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: index entry %s is %s, neither an image index nor an image manifest", ErrUnsupportedMediaType, d.Digest, kitimage.MediaTypeOrNone(d.MediaType))
		}
	}
	raw, err := idx.RawManifest()
	if err != nil {
		return fmt.Errorf("reading an image index: %w", err)
	}
	mt, err := idx.MediaType()
	if err != nil {
		return fmt.Errorf("reading an image index: %w", err)
	}
	w.raw(mt, raw)
	return nil
}

func (w *blobWalk) image(img v1.Image) error {
	m, err := img.Manifest()
	if err != nil {
		return fmt.Errorf("reading a manifest: %w", err)
	}
	for _, d := range m.Layers {
		l, err := img.LayerByDigest(d.Digest)
		if err != nil {
			return fmt.Errorf("reading layer %s: %w", d.Digest, err)
		}
		w.add(d, l.Compressed)
	}
	cfg, err := img.RawConfigFile()
	if err != nil {
		return fmt.Errorf("reading config %s: %w", m.Config.Digest, err)
	}
	w.add(m.Config, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(cfg)), nil })
	raw, err := img.RawManifest()
	if err != nil {
		return fmt.Errorf("reading a manifest: %w", err)
	}
	mt, err := img.MediaType()
	if err != nil {
		return fmt.Errorf("reading a manifest: %w", err)
	}
	w.raw(mt, raw)
	return nil
}

// imageBlobs lists the blobs of one image, as blobs does for an artifact.
func imageBlobs(img v1.Image) ([]blob, v1.Descriptor, error) {
	w := &blobWalk{seen: map[v1.Hash]bool{}}
	if err := w.image(img); err != nil {
		return nil, v1.Descriptor{}, err
	}
	d, err := FromImage(img).descriptor()
	if err != nil {
		return nil, v1.Descriptor{}, err
	}
	return w.out, d, nil
}

// copyBlob copies one blob to w, checking its size and digest and
// stopping when ctx ends.
func copyBlob(ctx context.Context, w io.Writer, b blob) error {
	rc, err := b.open()
	if err != nil {
		return fmt.Errorf("reading blob %s: %w", b.desc.Digest, err)
	}
	defer rc.Close()
	vr := newVerifyingReader(rc, b.desc.Digest, b.desc.Size)
	n, err := io.Copy(w, kitimage.NewCtxReader(ctx, vr))
	if err != nil {
		return fmt.Errorf("copying blob %s: %w", b.desc.Digest, err)
	}
	if n != b.desc.Size {
		return fmt.Errorf("%w: blob %s is %d bytes, its descriptor says %d", ErrDigestMismatch, b.desc.Digest, n, b.desc.Size)
	}
	return nil
}

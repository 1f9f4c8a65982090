package artifact

import (
	"context"
	"fmt"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Artifact is a kit image: an image index or a single image manifest. The
// zero value is not usable; get one from Open, FromIndex or FromImage.
type Artifact struct {
	index v1.ImageIndex
	image v1.Image
	ref   string
	// origin says where the artifact was read from.
	origin Origin
	// registry holds how a registry artifact was reached, so the kits a
	// merged set lists can be reached the same way; nil otherwise.
	registry *options
}

// Origin is where an Artifact was read from.
type Origin string

// Origins.
const (
	OriginRegistry Origin = "registry"
	OriginLayout   Origin = "oci-layout"
	OriginArchive  Origin = "oci-archive"
	OriginMemory   Origin = "memory"
)

// Open reads the kit image at ref: a registry reference
// (registry/repo:tag or registry/repo@sha256:…; a bare name means Docker
// Hub), "oci:DIR[:tag]" (an OCI image layout directory) or
// "oci-archive:FILE[:tag]" (a tar of one). A layout's tag selects the
// index.json entry whose org.opencontainers.image.ref.name is the tag;
// without one the layout must hold a single entry, or be a kit index
// itself. The nested index BuildKit writes (index.json pointing at the
// image index) is followed.
//
// Open reads the top-level manifest only; Inspect and Check read the rest.
// For a registry, the ctx given to Open also bounds those later reads, and
// WithTimeout bounds each request. A layout's blobs, index.json and an
// archive must be regular files: a FIFO or device is refused before it is
// opened, so no read blocks past ctx.
// Errors wrap ErrNotFound, ErrNotLayout, ErrUnsafeArchive, ErrTooLarge,
// ErrUnauthorized, ErrDenied, ErrUnreachable or ErrUnsupportedMediaType
// when they apply; a reference that does not parse is a
// *DestinationError.
func Open(ctx context.Context, ref string, opts ...Option) (*Artifact, error) {
	o, err := makeOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref, err)
	}
	src, err := ParseReference(ref)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref, err)
	}
	switch src.Kind {
	case OriginLayout:
		return openLayout(ref, dirStore{dir: src.Path}, src.Tag, OriginLayout)
	case OriginArchive:
		return openArchive(ref, src.Path, src.Tag)
	}
	return openRegistry(ctx, ref, o)
}

// FromIndex wraps an in-memory image index, such as a build's result
// before it is exported. Its manifests are read through idx.
func FromIndex(idx v1.ImageIndex) *Artifact { return &Artifact{index: idx, origin: OriginMemory} }

// FromImage wraps an in-memory single-platform image.
func FromImage(img v1.Image) *Artifact { return &Artifact{image: img, origin: OriginMemory} }

// Reference returns the reference the artifact was opened by, or "" for
// FromIndex and FromImage.
func (a *Artifact) Reference() string { return a.ref }

// Origin returns where the artifact was read from.
func (a *Artifact) Origin() Origin { return a.origin }

// Index returns the artifact's image index as go-containerregistry reads
// it, and false when the artifact is a single image manifest. Blobs read
// through it are verified against their digests.
func (a *Artifact) Index() (v1.ImageIndex, bool) { return a.index, a.index != nil }

// Image returns the artifact's image when it is a single image manifest,
// and false when it is an index.
func (a *Artifact) Image() (v1.Image, bool) { return a.image, a.image != nil }

// taggable is the artifact's top-level manifest, as a registry tag takes it.
func (a *Artifact) taggable() remote.Taggable {
	if a.index != nil {
		return a.index
	}
	return a.image
}

package artifact

import (
	"context"
	"crypto/tls"
	"net/http"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/kitsmith/kitsmith/internal/version"
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

// Option configures Open.
type Option func(*options)

type options struct {
	insecure bool
	keychain authn.Keychain
}

// WithInsecureRegistry lets Open reach a registry over plain HTTP, or over
// HTTPS without verifying its certificate. It is a bypass, for registries
// on a trusted network only. Loopback registries (localhost, 127.0.0.0/8,
// ::1) are reached over plain HTTP without it. It has no effect on oci:
// and oci-archive: references.
func WithInsecureRegistry() Option { return func(o *options) { o.insecure = true } }

// WithKeychain sets where registry credentials come from. The default is
// authn.DefaultKeychain: the Docker config file and its credential
// helpers. A nil keychain means anonymous access.
func WithKeychain(kc authn.Keychain) Option {
	return func(o *options) {
		if kc == nil {
			kc = authn.NewMultiKeychain()
		}
		o.keychain = kc
	}
}

func makeOptions(opts []Option) *options {
	o := &options{keychain: authn.DefaultKeychain}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// nameOptions are the reference-parsing options.
func (o *options) nameOptions() []name.Option {
	if o.insecure {
		return []name.Option{name.Insecure}
	}
	return nil
}

// remoteOptions are the registry client options for a read under ctx.
func (o *options) remoteOptions(ctx context.Context) []remote.Option {
	ropts := []remote.Option{
		remote.WithContext(ctx),
		remote.WithAuthFromKeychain(o.keychain),
		remote.WithUserAgent(version.Name + "/" + version.Get().Version),
	}
	if t := o.transport(); t != nil {
		ropts = append(ropts, remote.WithTransport(t))
	}
	return ropts
}

// transport is the HTTP transport WithInsecureRegistry asks for: one that
// does not verify certificates. It is nil (go-containerregistry's default)
// otherwise.
func (o *options) transport() *http.Transport {
	if !o.insecure {
		return nil
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // WithInsecureRegistry asked for it.
	return t
}

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
// For a registry, the ctx given to Open also bounds those later reads.
// Errors wrap ErrNotFound, ErrNotLayout, ErrUnsafeArchive, ErrTooLarge,
// ErrUnauthorized, ErrUnreachable or ErrUnsupportedMediaType when they
// apply.
func Open(ctx context.Context, ref string, opts ...Option) (*Artifact, error) {
	src, err := parseSource(ref)
	if err != nil {
		return nil, err
	}
	o := makeOptions(opts)
	switch src.kind {
	case OriginLayout:
		return openLayout(ref, dirStore{dir: src.path}, src.tag, OriginLayout)
	case OriginArchive:
		return openArchive(ref, src.path, src.tag)
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

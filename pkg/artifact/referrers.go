package artifact

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The referrers of a kit (its signatures and attestations) live in its
// Target: a registry repository or an OCI layout directory.
//
// For registries the registry target uses go-containerregistry's remote
// package rather than oras-go for writing, and reads referrers itself:
// Referrers asks the OCI 1.1 referrers API, following its pages, and,
// where a registry has none (distribution v3 answers 404), reads the
// referrers tag schema (the index tagged sha256-<hex>); remote.Write of a manifest with a subject probes the same API and,
// where it is missing, merges the new referrer into that index. It never
// deletes the previous index, so a registry that answers DELETE with 405
// (GHCR, Docker Hub) cannot fail a push that already succeeded, and it
// keeps no per-repository cache of "referrers unsupported" as oras-go's
// Repository does.

// Referrers lists the manifests whose subject is subject, unfiltered: the
// artifactType a registry reports may be wrong (go-containerregistry's
// registry reports the config's media type), so callers check each
// manifest. An empty list and nil error mean none.
//
// A registry's referrers API is paged: Referrers follows each Link
// rel="next" header to the end of the list, within MaxReferrers
// descriptors, MaxReferrerListBytes of listing and maxReferrerPages pages.
// A registry without the API (404, 400 or 406, or an answer that is not an
// image index) is read through the referrers tag schema: the index tagged
// sha256-<hex>, one document within MaxReferrerListBytes. When a bound
// stops the listing, Referrers returns the referrers listed so far with a
// *ReferrersTruncatedError (whose Truncated method reports true), so that
// a caller can still examine them and say that more exist.
func (s *registryTarget) Referrers(ctx context.Context, subject v1.Descriptor) ([]v1.Descriptor, error) {
	ctx, cancel := s.opts.operation(ctx)
	defer cancel()
	d := s.repo.Digest(subject.Digest.String())
	l, err := s.newLister(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("listing the referrers of %s: %w", d, classifyRegistryError(d, err))
	}
	list, err := l.list(ctx)
	var te *ReferrersTruncatedError
	if errors.As(err, &te) {
		return list, err
	}
	if err != nil {
		return nil, fmt.Errorf("listing the referrers of %s: %w", d, classifyRegistryError(d, err))
	}
	return list, nil
}

// Referrers lists the referrers an OCI layout's index.json records.
func (s *layoutTarget) Referrers(ctx context.Context, subject v1.Descriptor) ([]v1.Descriptor, error) {
	ctx, cancel := s.opts.operation(ctx)
	defer cancel()
	return s.layoutReferrers(ctx, subject)
}

// Referrer reads the referrer manifest d. The manifest is read within the
// manifest limit and checked against d's digest and size (a registry that
// serves another manifest for d's digest is an ErrDigestMismatch); its
// config and layers must each be within the same limit, and are verified
// against their digests as they are read. Errors do not repeat d's
// digest, which the caller has.
func (s *registryTarget) Referrer(ctx context.Context, d v1.Descriptor) (v1.Image, error) {
	return readReferrer(d, func() (v1.Image, error) { return s.remoteReferrer(ctx, d) })
}

// Referrer reads the referrer manifest d from the layout, as the
// registry target does.
func (s *layoutTarget) Referrer(_ context.Context, d v1.Descriptor) (v1.Image, error) {
	return readReferrer(d, func() (v1.Image, error) { return s.layoutImage(d) })
}

// readReferrer reads the referrer d through read, within the bounds. Its
// errors do not name d, which the caller has.
func readReferrer(d v1.Descriptor, read func() (v1.Image, error)) (v1.Image, error) {
	if !d.MediaType.IsImage() && d.MediaType != "" {
		return nil, fmt.Errorf("%w: it is %s, not an image manifest", ErrUnsupportedMediaType, d.MediaType)
	}
	if d.Size > maxManifestBytes {
		return nil, fmt.Errorf("%w: its manifest is %d bytes", ErrTooLarge, d.Size)
	}
	img, err := read()
	if err != nil {
		return nil, err
	}
	if err := checkReferrer(img, d); err != nil {
		return nil, err
	}
	return img, nil
}

// checkReferrer checks a referrer image against the descriptor it was
// read by and the blob bounds.
func checkReferrer(img v1.Image, d v1.Descriptor) error {
	got, err := FromImage(img).descriptor()
	if err != nil {
		return err
	}
	if got.Digest != d.Digest || (d.Size != 0 && got.Size != d.Size) {
		return fmt.Errorf("%w: the manifest read is %s (%d bytes)", ErrDigestMismatch, got.Digest, got.Size)
	}
	m, err := img.Manifest()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	for _, b := range append([]v1.Descriptor{m.Config}, m.Layers...) {
		if b.Size > maxManifestBytes {
			return fmt.Errorf("%w: its blob %s is %d bytes, over the %d byte limit of a referrer blob", ErrTooLarge, b.Digest, b.Size, maxManifestBytes)
		}
	}
	return nil
}

// PushReferrer stores m, whose manifest's subject must be subject, by
// digest and without a tag, and makes it discoverable through Referrers:
// a registry without the referrers API gets the tag-schema index, merged
// with the entries it already lists; a layout gets an index.json entry.
// When a registry fails the push after the referrer is in place (a
// cleanup request it refuses), the referrer is read back and the push
// counts as done. It returns m's descriptor.
func (s *registryTarget) PushReferrer(ctx context.Context, subject v1.Descriptor, m v1.Image) (v1.Descriptor, error) {
	ctx, cancel := s.opts.operation(ctx)
	defer cancel()
	_, d, err := referrerBlobs(subject, m)
	if err != nil {
		return v1.Descriptor{}, err
	}
	pinned := s.repo.Digest(d.Digest.String())
	err = remote.Write(pinned, m, s.opts.remoteOptions(ctx)...)
	if err == nil {
		return d, nil
	}
	err = classifyRegistryError(pinned, err)
	if errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrDenied) || errors.Is(err, ErrUnreachable) {
		return v1.Descriptor{}, fmt.Errorf("pushing referrer %s: %w", d.Digest, err)
	}
	// The registry may have refused a step after the referrer was stored;
	// what counts is whether Referrers finds it.
	if list, lerr := s.Referrers(ctx, subject); lerr == nil && slices.ContainsFunc(list, func(r v1.Descriptor) bool { return r.Digest == d.Digest }) {
		return d, nil
	}
	return v1.Descriptor{}, fmt.Errorf("pushing referrer %s: %w", d.Digest, err)
}

// PushReferrer stores m in the layout (its blobs, and an index.json entry
// carrying its artifactType), as the registry target does.
func (s *layoutTarget) PushReferrer(ctx context.Context, subject v1.Descriptor, m v1.Image) (v1.Descriptor, error) {
	ctx, cancel := s.opts.operation(ctx)
	defer cancel()
	blobs, d, err := referrerBlobs(subject, m)
	if err != nil {
		return v1.Descriptor{}, err
	}
	if err := s.ensure(); err != nil {
		return v1.Descriptor{}, err
	}
	return d, s.layoutPush(ctx, blobs, d)
}

// referrerBlobs lists the blobs of the referrer m and its descriptor as
// the referrers API reports it, checking that its subject is subject.
func referrerBlobs(subject v1.Descriptor, m v1.Image) ([]blob, v1.Descriptor, error) {
	blobs, d, err := imageBlobs(m)
	if err != nil {
		return nil, v1.Descriptor{}, fmt.Errorf("pushing a referrer: %w", err)
	}
	mf, err := m.Manifest()
	if err != nil {
		return nil, v1.Descriptor{}, fmt.Errorf("pushing a referrer: %w", err)
	}
	if mf.Subject == nil || mf.Subject.Digest != subject.Digest {
		return nil, v1.Descriptor{}, fmt.Errorf("pushing referrer %s: its manifest's subject is not %s", d.Digest, subject.Digest)
	}
	d.ArtifactType = referrerType(mf)
	d.Annotations = mf.Annotations
	return blobs, d, nil
}

// referrerType is a referrer's artifact type as the referrers API reports
// it: the manifest's artifactType, else its config's media type.
func referrerType(m *v1.Manifest) string {
	if m.ArtifactType != "" {
		return m.ArtifactType
	}
	return string(m.Config.MediaType)
}

// layoutReferrers scans the layout's index.json for image manifests whose
// subject is subject.
func (s *layoutTarget) layoutReferrers(ctx context.Context, subject v1.Descriptor) ([]v1.Descriptor, error) {
	st := dirStore{dir: s.dir}
	raw, err := st.readFile("index.json", maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("listing the referrers in %s: %w: reading index.json: %w", s.dir, ErrNotLayout, err)
	}
	var im v1.IndexManifest
	if err := json.Unmarshal(raw, &im); err != nil {
		return nil, fmt.Errorf("listing the referrers in %s: %w: index.json does not parse: %w", s.dir, ErrMalformed, err)
	}
	out := []v1.Descriptor{}
	for _, d := range im.Manifests {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !d.MediaType.IsImage() || d.Size > maxManifestBytes {
			continue
		}
		b, err := readBlob(st, d, maxManifestBytes)
		if err != nil {
			return nil, fmt.Errorf("listing the referrers in %s: %w", s.dir, err)
		}
		var m v1.Manifest
		if json.Unmarshal(b, &m) != nil || m.Subject == nil || m.Subject.Digest != subject.Digest {
			continue
		}
		ref := v1.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size, ArtifactType: referrerType(&m), Annotations: m.Annotations}
		out = append(out, ref)
	}
	return out, nil
}

func (s *layoutTarget) layoutImage(d v1.Descriptor) (v1.Image, error) {
	if d.MediaType == "" {
		d.MediaType = types.OCIManifestSchema1
	}
	idx := &storeIndex{store: dirStore{dir: s.dir}, mediaType: types.OCIImageIndex, manifest: &v1.IndexManifest{Manifests: []v1.Descriptor{d}}}
	return idx.Image(d.Digest)
}

func (s *layoutTarget) layoutPush(ctx context.Context, blobs []blob, d v1.Descriptor) error {
	if err := putBlobs(ctx, s.dir, blobs); err != nil {
		return fmt.Errorf("pushing referrer %s into %s: %w", d.Digest, s.dir, err)
	}
	s.index.Lock()
	defer s.index.Unlock()
	err := updateIndex(s.dir, true, func(im *v1.IndexManifest) {
		if !slices.ContainsFunc(im.Manifests, func(e v1.Descriptor) bool { return e.Digest == d.Digest }) {
			im.Manifests = append(im.Manifests, d)
		}
	})
	if err != nil {
		return fmt.Errorf("pushing referrer %s into %s: %w", d.Digest, s.dir, err)
	}
	return nil
}

// remoteReferrer reads the manifest d by digest, checks what the registry
// served against the digest, and returns an image whose blobs are read
// from the repository as they are needed.
func (s *registryTarget) remoteReferrer(ctx context.Context, d v1.Descriptor) (v1.Image, error) {
	pinned := s.repo.Digest(d.Digest.String())
	c, base, err := s.client(ctx)
	if err != nil {
		return nil, classifyRegistryError(pinned, err)
	}
	u := base.ResolveReference(&url.URL{Path: fmt.Sprintf("/v2/%s/manifests/%s", s.repo.RepositoryStr(), d.Digest)})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", manifestAccept)
	resp, err := c.Do(req)
	if err != nil {
		return nil, classifyRegistryError(pinned, err)
	}
	defer resp.Body.Close()
	if err := transport.CheckError(resp, http.StatusOK); err != nil {
		return nil, classifyRegistryError(pinned, err)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxManifestBytes+1))
	if err != nil {
		return nil, classifyRegistryError(pinned, err)
	}
	if len(raw) > maxManifestBytes {
		return nil, fmt.Errorf("%w: its manifest is over %d bytes", ErrTooLarge, maxManifestBytes)
	}
	got, n, err := v1.SHA256(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if got != d.Digest {
		return nil, fmt.Errorf("%w: the registry served another manifest for this digest: %s (%d bytes)", ErrDigestMismatch, got, n)
	}
	mt := types.MediaType(mediaTypeOf(resp))
	if d.MediaType != "" {
		mt = d.MediaType
	}
	return partial.CompressedToImage(&remoteImage{ctx: ctx, raw: raw, mediaType: mt, target: s})
}

// headPinned reads the manifest a digest reference names and checks what
// the registry serves against the digest: a registry that serves another
// manifest is an ErrDigestMismatch naming it.
func (s *registryTarget) headPinned(ctx context.Context, dg name.Digest) (v1.Descriptor, error) {
	want, err := v1.NewHash(dg.DigestStr())
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("reading %s: %w", dg, err)
	}
	img, err := s.remoteReferrer(ctx, v1.Descriptor{Digest: want})
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("reading %s: %w", dg, err)
	}
	raw, err := img.RawManifest()
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("reading %s: %w", dg, err)
	}
	mt, err := img.MediaType()
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("reading %s: %w", dg, err)
	}
	return v1.Descriptor{MediaType: mt, Digest: want, Size: int64(len(raw))}, nil
}

// LegacySignatures returns the manifest tagged sha256-<hex>.sig next to
// subject, where cosign's legacy signatures are (cosign v2's default, v3
// with --new-bundle-format=false), within the manifest limit, its layers
// read by digest and verified; nil and no error when there is no such
// tag. It implements pkg/sign's LegacySignatureStore (an OCI layout's
// target does not: cosign writes no legacy signatures into layouts).
func (s *registryTarget) LegacySignatures(ctx context.Context, subject v1.Descriptor) (v1.Image, error) {
	tag := s.repo.Tag(subject.Digest.Algorithm + "-" + subject.Digest.Hex + ".sig")
	c, base, err := s.client(ctx)
	if err != nil {
		return nil, classifyRegistryError(tag, err)
	}
	u := base.ResolveReference(&url.URL{Path: fmt.Sprintf("/v2/%s/manifests/%s", s.repo.RepositoryStr(), tag.TagStr())})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", strings.Join([]string{string(types.OCIManifestSchema1), string(types.DockerManifestSchema2)}, ", "))
	resp, err := c.Do(req)
	if err != nil {
		return nil, classifyRegistryError(tag, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if err := transport.CheckError(resp, http.StatusOK); err != nil {
		return nil, classifyRegistryError(tag, err)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxManifestBytes+1))
	if err != nil {
		return nil, classifyRegistryError(tag, err)
	}
	if len(raw) > maxManifestBytes {
		return nil, fmt.Errorf("%w: the manifest of %s is over %d bytes", ErrTooLarge, tag, maxManifestBytes)
	}
	return partial.CompressedToImage(&remoteImage{ctx: ctx, raw: raw, mediaType: types.MediaType(mediaTypeOf(resp)), target: s})
}

// manifestAccept is the Accept header of a manifest read by digest.
const manifestAccept = "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, " +
	"application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.docker.distribution.manifest.v2+json"

// client is an authenticated HTTP client for the store's repository, with
// kitsmith's guarded transport, and the registry's base URL. It is made
// once per store: the first call's ctx bounds the ping and the token
// exchange, each request is bounded by its own.
func (s *registryTarget) client(ctx context.Context) (*http.Client, *url.URL, error) {
	ss := &s.sess
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.hc != nil {
		return ss.hc, ss.base, nil
	}
	auth, err := authn.Resolve(ctx, s.opts.keychain, s.repo)
	if err != nil {
		return nil, nil, err
	}
	rt, err := transport.NewWithContext(ctx, s.repo.Registry, auth,
		transport.NewUserAgent(transport.NewRetry(s.opts.transport), s.opts.userAgent),
		[]string{s.repo.Scope(transport.PullScope)})
	if err != nil {
		return nil, nil, err // not kept: a cancelled first call must not fail the next
	}
	ss.hc, ss.base = &http.Client{Transport: rt}, &url.URL{Scheme: s.repo.Registry.Scheme(), Host: s.repo.RegistryStr()}
	return ss.hc, ss.base, nil
}

// session is a registry target's HTTP client for the referrer reads,
// authenticated once (one ping and token exchange) and shared by the
// target's listings and reads.
type session struct {
	mu   sync.Mutex
	hc   *http.Client
	base *url.URL
}

// remoteImage is a referrer manifest read by remoteReferrer; its config
// and layers are read from the repository by digest within the manifest
// limit, verified against their digests, under the read's ctx.
type remoteImage struct {
	ctx       context.Context
	raw       []byte
	mediaType types.MediaType
	target    *registryTarget
}

func (r *remoteImage) RawManifest() ([]byte, error)        { return r.raw, nil }
func (r *remoteImage) MediaType() (types.MediaType, error) { return r.mediaType, nil }

func (r *remoteImage) RawConfigFile() ([]byte, error) {
	m, err := v1.ParseManifest(bytes.NewReader(r.raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	rc, err := r.blob(m.Config).Compressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxManifestBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxManifestBytes {
		return nil, fmt.Errorf("%w: the config is over %d bytes", ErrTooLarge, maxManifestBytes)
	}
	return b, nil
}

func (r *remoteImage) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	m, err := v1.ParseManifest(bytes.NewReader(r.raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	for _, d := range append([]v1.Descriptor{m.Config}, m.Layers...) {
		if d.Digest == h {
			return r.blob(d), nil
		}
	}
	return nil, fmt.Errorf("%w: the manifest has no blob %s", ErrNotFound, h)
}

func (r *remoteImage) blob(d v1.Descriptor) *remoteBlob {
	return &remoteBlob{img: r, d: d}
}

// remoteBlob is one blob of a remoteImage, read when Compressed is
// called and verified against its digest and size as it is read.
type remoteBlob struct {
	img *remoteImage
	d   v1.Descriptor
}

func (b *remoteBlob) Digest() (v1.Hash, error)            { return b.d.Digest, nil }
func (b *remoteBlob) Size() (int64, error)                { return b.d.Size, nil }
func (b *remoteBlob) MediaType() (types.MediaType, error) { return b.d.MediaType, nil }

func (b *remoteBlob) Compressed() (io.ReadCloser, error) {
	s := b.img.target
	ref := s.repo.Digest(b.d.Digest.String())
	c, base, err := s.client(b.img.ctx)
	if err != nil {
		return nil, classifyRegistryError(ref, err)
	}
	u := base.ResolveReference(&url.URL{Path: fmt.Sprintf("/v2/%s/blobs/%s", s.repo.RepositoryStr(), b.d.Digest)})
	req, err := http.NewRequestWithContext(b.img.ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, classifyRegistryError(ref, err)
	}
	if err := transport.CheckError(resp, http.StatusOK); err != nil {
		resp.Body.Close()
		return nil, classifyRegistryError(ref, err)
	}
	return &verifiedBody{rc: resp.Body, h: sha256.New(), want: b.d}, nil
}

// verifiedBody reads a blob and fails its last read when the bytes do
// not match the descriptor's digest and size.
type verifiedBody struct {
	rc   io.ReadCloser
	h    hash.Hash
	n    int64
	want v1.Descriptor
}

func (v *verifiedBody) Read(p []byte) (int, error) {
	n, err := v.rc.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if v.want.Size > 0 && v.n > v.want.Size {
		return n, fmt.Errorf("%w: blob %s is longer than its %d bytes", ErrDigestMismatch, v.want.Digest, v.want.Size)
	}
	if errors.Is(err, io.EOF) {
		got := v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(v.h.Sum(nil))}
		if v.want.Digest.Algorithm != "sha256" || got != v.want.Digest || v.want.Size > 0 && v.n != v.want.Size {
			return n, fmt.Errorf("%w: the registry served %s (%d bytes) for blob %s", ErrDigestMismatch, got, v.n, v.want.Digest)
		}
	}
	return n, err
}

func (v *verifiedBody) Close() error { return v.rc.Close() }

// Bounds on listing the referrers of one subject. The referrers API and
// the tag-schema index are written by anyone who may push to the
// repository, so a listing is bounded as any other read is.
const (
	// MaxReferrers is the most referrer descriptors one listing returns.
	MaxReferrers = 4096
	// MaxReferrerListBytes bounds the listing's bytes: every page of the
	// referrers API together, or the one tag-schema index.
	MaxReferrerListBytes = 16 << 20
	// maxReferrerPages bounds the pages followed, whatever their size.
	maxReferrerPages = 256
)

// ReferrersTruncatedError reports a referrer listing that a bound stopped:
// Store.Referrers returns it with the referrers listed up to that point.
type ReferrersTruncatedError struct {
	// Subject is the subject whose referrers were listed.
	Subject v1.Hash
	// Listed is how many referrers were listed before the bound.
	Listed int
	// Bound names the bound that stopped the listing.
	Bound string
}

// Error names the subject, what was listed and the bound.
func (e *ReferrersTruncatedError) Error() string {
	return fmt.Sprintf("listing the referrers of %s stopped after %d: %s", e.Subject, e.Listed, e.Bound)
}

// Truncated reports true: the listing holds only part of the referrers.
// Consumers that cannot import this package (pkg/sign) test for the method.
func (e *ReferrersTruncatedError) Truncated() bool { return true }

// Is makes a truncated listing an ErrTooLarge.
func (e *ReferrersTruncatedError) Is(target error) bool { return target == ErrTooLarge }

// referrerLister pages through one subject's referrers on a registry.
type referrerLister struct {
	client  *http.Client
	subject name.Digest
	hash    v1.Hash
	base    *url.URL // the registry's base URL, scheme and host
}

func (s *registryTarget) newLister(ctx context.Context, d name.Digest) (*referrerLister, error) {
	h, err := v1.NewHash(d.DigestStr())
	if err != nil {
		return nil, err
	}
	c, base, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return &referrerLister{client: c, subject: d, hash: h, base: base}, nil
}

// list reads the referrers API, page by page, or the tag-schema index.
func (l *referrerLister) list(ctx context.Context) ([]v1.Descriptor, error) {
	next := l.base.ResolveReference(&url.URL{Path: fmt.Sprintf("/v2/%s/referrers/%s", l.subject.Context().RepositoryStr(), l.subject.DigestStr())})
	out := []v1.Descriptor{}
	seen := map[v1.Hash]bool{}
	var read int64
	for page := 0; next != nil; page++ {
		if page == maxReferrerPages {
			return out, l.truncated(len(out), fmt.Sprintf("the registry pages on past %d pages", maxReferrerPages))
		}
		im, n, link, ok, err := l.page(ctx, next, MaxReferrerListBytes-read)
		if err != nil {
			return nil, err
		}
		if !ok {
			if page > 0 {
				return nil, fmt.Errorf("%w: page %d of the referrers list is not an image index", ErrMalformed, page+1)
			}
			return l.fallback(ctx)
		}
		read += n
		for _, d := range im.Manifests {
			if seen[d.Digest] {
				continue // a registry that pages by offset can repeat an entry
			}
			seen[d.Digest] = true
			if len(out) == MaxReferrers {
				return out, l.truncated(len(out), fmt.Sprintf("more than %d referrers", MaxReferrers))
			}
			out = append(out, d)
		}
		if link != nil && read >= MaxReferrerListBytes {
			return out, l.truncated(len(out), fmt.Sprintf("more than %d bytes of referrer listing", MaxReferrerListBytes))
		}
		next = link
	}
	return out, nil
}

func (l *referrerLister) truncated(n int, bound string) error {
	return &ReferrersTruncatedError{Subject: l.hash, Listed: n, Bound: bound}
}

// page reads one page of the referrers API at u within limit bytes. ok is
// false when the registry has no referrers API there.
func (l *referrerLister) page(ctx context.Context, u *url.URL, limit int64) (im *v1.IndexManifest, n int64, next *url.URL, ok bool, err error) {
	resp, err := l.get(ctx, u, types.OCIImageIndex)
	if err != nil {
		return nil, 0, nil, false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusBadRequest, resp.StatusCode == http.StatusNotAcceptable:
		return nil, 0, nil, false, nil
	case resp.StatusCode != http.StatusOK:
		return nil, 0, nil, false, transport.CheckError(resp, http.StatusOK)
	case mediaTypeOf(resp) != string(types.OCIImageIndex):
		return nil, 0, nil, false, nil
	}
	body, err := readLimited(resp, limit)
	if err != nil {
		return nil, 0, nil, false, err
	}
	im = &v1.IndexManifest{}
	if err := json.Unmarshal(body, im); err != nil {
		return nil, 0, nil, false, fmt.Errorf("%w: the referrers list does not parse: %w", ErrMalformed, err)
	}
	next, err = nextLink(u, resp.Header.Get("Link"))
	if err != nil {
		return nil, 0, nil, false, err
	}
	return im, int64(len(body)), next, true, nil
}

// fallback reads the referrers tag schema's index, sha256-<hex>; no such
// tag means no referrers.
func (l *referrerLister) fallback(ctx context.Context) ([]v1.Descriptor, error) {
	tag := l.hash.Algorithm + "-" + l.hash.Hex
	u := l.base.ResolveReference(&url.URL{Path: fmt.Sprintf("/v2/%s/manifests/%s", l.subject.Context().RepositoryStr(), tag)})
	resp, err := l.get(ctx, u, types.OCIImageIndex)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return []v1.Descriptor{}, nil
	}
	if err := transport.CheckError(resp, http.StatusOK); err != nil {
		return nil, err
	}
	body, err := readLimited(resp, MaxReferrerListBytes)
	if err != nil {
		return nil, err
	}
	var im v1.IndexManifest
	if err := json.Unmarshal(body, &im); err != nil {
		return nil, fmt.Errorf("%w: the referrers tag %s does not parse: %w", ErrMalformed, tag, err)
	}
	if len(im.Manifests) > MaxReferrers {
		return im.Manifests[:MaxReferrers], l.truncated(MaxReferrers, fmt.Sprintf("the referrers tag %s lists %d, more than %d", tag, len(im.Manifests), MaxReferrers))
	}
	if im.Manifests == nil {
		im.Manifests = []v1.Descriptor{}
	}
	return im.Manifests, nil
}

func (l *referrerLister) get(ctx context.Context, u *url.URL, accept types.MediaType) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", string(accept))
	return l.client.Do(req)
}

// mediaTypeOf is a response's Content-Type without parameters.
func mediaTypeOf(resp *http.Response) string {
	mt, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	return strings.TrimSpace(mt)
}

// readLimited reads a response body of at most limit bytes; more is
// ErrTooLarge.
func readLimited(resp *http.Response, limit int64) ([]byte, error) {
	if limit <= 0 || resp.ContentLength > limit {
		return nil, fmt.Errorf("%w: the referrer listing is over %d bytes", ErrTooLarge, MaxReferrerListBytes)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: the referrer listing is over %d bytes", ErrTooLarge, MaxReferrerListBytes)
	}
	return b, nil
}

// nextLink returns the target of a Link header's rel="next" entry,
// resolved against the page's URL, or nil. The next page must be on the
// same registry and the same referrers path.
func nextLink(page *url.URL, header string) (*url.URL, error) {
	if header == "" {
		return nil, nil
	}
	for _, part := range strings.Split(header, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok || !strings.Contains(strings.ReplaceAll(params, " ", ""), `rel="next"`) {
			continue
		}
		target = strings.TrimSpace(target)
		if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			return nil, fmt.Errorf("%w: Link header %q", ErrMalformed, header)
		}
		u, err := url.Parse(target[1 : len(target)-1])
		if err != nil {
			return nil, fmt.Errorf("%w: Link header %q: %w", ErrMalformed, header, err)
		}
		u = page.ResolveReference(u)
		if u.Host != page.Host || u.Path != page.Path {
			return nil, fmt.Errorf("%w: the next page of the referrers list is at %s, not %s", ErrMalformed, u.Redacted(), page.Path)
		}
		return u, nil
	}
	return nil, nil
}

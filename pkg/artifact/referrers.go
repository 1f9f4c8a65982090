package artifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The referrers of a kit (its signatures and attestations) live in its
// Target: a registry repository or an OCI layout directory.
//
// For registries the registry target uses go-containerregistry's remote
// package rather than oras-go: remote.Referrers asks the OCI 1.1
// referrers API and, where a registry has none (distribution v3 answers
// 404), reads the referrers tag schema (the index tagged sha256-<hex>);
// remote.Write of a manifest with a subject probes the same API and,
// where it is missing, merges the new referrer into that index. It never
// deletes the previous index, so a registry that answers DELETE with 405
// (GHCR, Docker Hub) cannot fail a push that already succeeded, and it
// keeps no per-repository cache of "referrers unsupported" as oras-go's
// Repository does.

// Referrers lists the manifests whose subject is subject, unfiltered: the
// artifactType a registry reports may be wrong (go-containerregistry's
// registry reports the config's media type), so callers check each
// manifest. An empty list and nil error mean none.
func (s *registryTarget) Referrers(ctx context.Context, subject v1.Descriptor) ([]v1.Descriptor, error) {
	ctx, cancel := s.opts.operation(ctx)
	defer cancel()
	d := s.repo.Digest(subject.Digest.String())
	idx, err := remote.Referrers(d, s.opts.remoteOptions(ctx)...)
	if err != nil {
		return nil, fmt.Errorf("listing the referrers of %s: %w", d, classifyRegistryError(d, err))
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("listing the referrers of %s: %w", d, classifyRegistryError(d, err))
	}
	return slices.Clone(im.Manifests), nil
}

// Referrers lists the referrers an OCI layout's index.json records.
func (s *layoutTarget) Referrers(ctx context.Context, subject v1.Descriptor) ([]v1.Descriptor, error) {
	ctx, cancel := s.opts.operation(ctx)
	defer cancel()
	return s.layoutReferrers(ctx, subject)
}

// Referrer reads the referrer manifest d. The manifest is read within the
// manifest limit and checked against d's digest and size; its config and
// layers must each be within the same limit, and are verified against
// their digests as they are read.
func (s *registryTarget) Referrer(ctx context.Context, d v1.Descriptor) (v1.Image, error) {
	return readReferrer(d, func() (v1.Image, error) {
		pinned := s.repo.Digest(d.Digest.String())
		img, err := remote.Image(pinned, s.opts.remoteOptions(ctx)...)
		if err != nil {
			return nil, classifyRegistryError(pinned, err)
		}
		return img, nil
	})
}

// Referrer reads the referrer manifest d from the layout, as the
// registry target does.
func (s *layoutTarget) Referrer(_ context.Context, d v1.Descriptor) (v1.Image, error) {
	return readReferrer(d, func() (v1.Image, error) { return s.layoutImage(d) })
}

// readReferrer reads the referrer d through read, within the bounds.
func readReferrer(d v1.Descriptor, read func() (v1.Image, error)) (v1.Image, error) {
	if !d.MediaType.IsImage() && d.MediaType != "" {
		return nil, fmt.Errorf("reading referrer %s: %w: it is %s, not an image manifest", d.Digest, ErrUnsupportedMediaType, d.MediaType)
	}
	if d.Size > maxManifestBytes {
		return nil, fmt.Errorf("reading referrer %s: %w: its manifest is %d bytes", d.Digest, ErrTooLarge, d.Size)
	}
	img, err := read()
	if err != nil {
		return nil, fmt.Errorf("reading referrer %s: %w", d.Digest, err)
	}
	if err := checkReferrer(img, d); err != nil {
		return nil, fmt.Errorf("reading referrer %s: %w", d.Digest, err)
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
			return fmt.Errorf("%w: blob %s is %d bytes, over the %d byte referrer blob limit", ErrTooLarge, b.Digest, b.Size, maxManifestBytes)
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

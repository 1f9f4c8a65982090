package artifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// structure is an artifact's manifests, read once: the index (if any),
// every platform manifest, and what the index lists that is not one.
type structure struct {
	// index is nil for a single manifest.
	index        *v1.IndexManifest
	indexDigest  v1.Hash
	indexType    types.MediaType
	indexSize    int64
	manifests    []*platformManifest
	attestations []v1.Descriptor
	// others are index entries that are neither platform manifests nor
	// attestation manifests (nested indexes, unknown media types).
	others []v1.Descriptor
}

// platformManifest is one platform image of a kit.
type platformManifest struct {
	platform string
	desc     v1.Descriptor // as listed in the index, or computed
	img      v1.Image
	manifest *v1.Manifest
	config   []byte
	cfgErr   error
}

// annotations returns the manifest's annotations, never nil.
func (m *platformManifest) annotations() map[string]string {
	if m.manifest.Annotations == nil {
		return map[string]string{}
	}
	return m.manifest.Annotations
}

// IsAttestation reports whether the index entry d is an attestation
// manifest (BuildKit's provenance or SBOM) rather than a platform image:
// its descriptor carries vnd.docker.reference.type "attestation-manifest"
// (AnnotationReferenceType, ReferenceTypeAttestation), the marker BuildKit
// writes and containerd, buildx and sbx read. It is the one rule build,
// check, inspect and sign --recursive apply. The platform unknown/unknown
// BuildKit gives attestations is not enough on its own: an entry with that
// platform and no marker is not an attestation, and Check reports it.
func IsAttestation(d v1.Descriptor) bool {
	return d.Annotations[AnnotationReferenceType] == ReferenceTypeAttestation
}

// unknownPlatform reports the platform unknown/unknown.
func unknownPlatform(d v1.Descriptor) bool {
	return d.Platform != nil && d.Platform.OS == "unknown" && d.Platform.Architecture == "unknown"
}

// load reads the artifact's manifests and configs.
func (a *Artifact) load(ctx context.Context) (*structure, error) {
	if a == nil || (a.index == nil && a.image == nil) {
		return nil, errors.New("artifact: no index or image; use Open, FromIndex or FromImage")
	}
	s := &structure{}
	if a.image != nil {
		m, err := readManifest(ctx, a.image, nil)
		if err != nil {
			return nil, err
		}
		s.manifests = []*platformManifest{m}
		return s, nil
	}
	im, err := a.index.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("reading the image index: %w", err)
	}
	if s.indexDigest, err = a.index.Digest(); err != nil {
		return nil, fmt.Errorf("reading the image index: %w", err)
	}
	if s.indexType, err = a.index.MediaType(); err != nil {
		return nil, fmt.Errorf("reading the image index: %w", err)
	}
	if s.indexSize, err = a.index.Size(); err != nil {
		return nil, fmt.Errorf("reading the image index: %w", err)
	}
	s.index = im
	for _, d := range im.Manifests {
		switch {
		case IsAttestation(d):
			s.attestations = append(s.attestations, d)
		case unknownPlatform(d):
			s.others = append(s.others, d)
		case d.MediaType.IsImage() || d.MediaType == "":
			if d.Size > maxManifestBytes {
				return nil, fmt.Errorf("%w: manifest %s is %d bytes", ErrTooLarge, d.Digest, d.Size)
			}
			img, err := a.index.Image(d.Digest)
			if err != nil {
				return nil, fmt.Errorf("reading manifest %s: %w", d.Digest, err)
			}
			m, err := readManifest(ctx, img, &d)
			if err != nil {
				return nil, err
			}
			s.manifests = append(s.manifests, m)
		default:
			s.others = append(s.others, d)
		}
	}
	return s, nil
}

// readManifest reads one image's manifest and config; listed is its
// descriptor in the index, if it has one.
func readManifest(ctx context.Context, img v1.Image, listed *v1.Descriptor) (*platformManifest, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m, err := img.Manifest()
	if err != nil {
		return nil, fmt.Errorf("reading a manifest: %w", err)
	}
	pm := &platformManifest{img: img, manifest: m}
	if listed != nil {
		pm.desc = *listed
	} else {
		if pm.desc.Digest, err = img.Digest(); err != nil {
			return nil, fmt.Errorf("reading a manifest: %w", err)
		}
		if pm.desc.MediaType, err = img.MediaType(); err != nil {
			return nil, fmt.Errorf("reading a manifest: %w", err)
		}
		if pm.desc.Size, err = img.Size(); err != nil {
			return nil, fmt.Errorf("reading a manifest: %w", err)
		}
	}
	if m.Config.Size > maxConfigBytes {
		pm.cfgErr = fmt.Errorf("%w: config %s is %d bytes", ErrTooLarge, m.Config.Digest, m.Config.Size)
	} else {
		pm.config, pm.cfgErr = img.RawConfigFile()
		if pm.cfgErr != nil && isIOError(pm.cfgErr) {
			return nil, fmt.Errorf("reading config %s: %w", m.Config.Digest, pm.cfgErr)
		}
	}
	pm.platform = platformName(listed, pm.config)
	return pm, nil
}

// platformName names a manifest's platform from its index descriptor, or
// from its config when the index says nothing (or there is no index).
func platformName(listed *v1.Descriptor, config []byte) string {
	if listed != nil && listed.Platform != nil && listed.Platform.OS != "" {
		return listed.Platform.String()
	}
	var c struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
		Variant      string `json:"variant"`
	}
	if json.Unmarshal(config, &c) == nil && c.OS != "" {
		return v1.Platform{OS: c.OS, Architecture: c.Architecture, Variant: c.Variant}.String()
	}
	return "unknown"
}

// samePlatform compares platform names, taking a missing variant as the
// default one (arm64 is arm64/v8, amd64 is amd64/v1).
func samePlatform(a, b string) bool {
	pa, err1 := v1.ParsePlatform(a)
	pb, err2 := v1.ParsePlatform(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	norm := func(p *v1.Platform) {
		switch {
		case p.Architecture == "arm64" && p.Variant == "":
			p.Variant = "v8"
		case p.Architecture == "amd64" && p.Variant == "":
			p.Variant = "v1"
		}
	}
	norm(pa)
	norm(pb)
	return pa.OS == pb.OS && pa.Architecture == pb.Architecture && pa.Variant == pb.Variant
}

// isIOError reports an error of reaching content (network, file system,
// cancellation), as opposed to content that is wrong.
func isIOError(err error) bool {
	var (
		te     *transport.Error
		netErr net.Error
		urlErr *url.Error
		pathEr *fs.PathError
	)
	return errors.As(err, &te) || errors.As(err, &netErr) || errors.As(err, &urlErr) || errors.As(err, &pathEr) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, fs.ErrNotExist)
}

// tarLayerTypes are the layer media types that hold a filesystem tar.
var tarLayerTypes = map[types.MediaType]bool{
	types.OCILayer: true, types.OCILayerZStd: true, types.OCIUncompressedLayer: true,
	types.OCIRestrictedLayer: true, types.OCIUncompressedRestrictedLayer: true,
	types.DockerLayer: true, types.DockerUncompressedLayer: true, types.DockerForeignLayer: true,
}

// wantedFiles are the files a check reads, with how many bytes each may
// hold.
func wantedFile(p string) int64 {
	switch p {
	case "/etc/passwd", "/etc/group":
		return maxAccountFile
	case DpkgStatusPath, ApkInstalledPath:
		return maxPackageDBFile
	}
	if rest, ok := strings.CutPrefix(p, StagedRoot+"/"); ok {
		stem, file, ok := strings.Cut(rest, "/")
		if ok && stem != "" && (file == StagedDescriptor || file == StagedRecipe) {
			return maxStagedFile
		}
	}
	return 0
}

// readFS composes the image's layers, charging what it keeps to b. Layers
// that are not filesystem tars are passed over and reported in skipped. A
// file a check reads through a symbolic link is fetched by a second pass
// over the layer that holds it. Every layer read is verified against its
// descriptor's digest and size and the config's diff_id.
func (m *platformManifest) readFS(ctx context.Context, b *memBudget) (*layerFS, []int, error) {
	layers, err := m.img.Layers()
	if err != nil {
		return nil, nil, fmt.Errorf("listing layers: %w", err)
	}
	diffIDs := configDiffIDs(m.config)
	var skipped []int
	f := newLayerFS(wantedFile, b)
	for i, l := range layers {
		if i < len(m.manifest.Layers) && !tarLayerTypes[m.manifest.Layers[i].MediaType] {
			skipped = append(skipped, i)
			continue
		}
		if err := m.readLayer(ctx, f, l, i, diffIDs); err != nil {
			return nil, skipped, err
		}
	}
	// Files reached through links: capture the target entries.
	need := map[int]map[string]int64{}
	for _, p := range f.wantedPaths() {
		n := f.lookup(p, true)
		if n == nil || n.typ != typeReg || n.captured || n.tooLarge {
			continue
		}
		if need[n.layer] == nil {
			need[n.layer] = map[string]int64{}
		}
		need[n.layer][n.path()] = wantedFile(p)
	}
	for i, paths := range need {
		scratch := newLayerFS(func(p string) int64 { return paths[p] }, b)
		if err := m.readLayer(ctx, scratch, layers[i], i, diffIDs); err != nil {
			return nil, skipped, err
		}
		walk(scratch.root, func(n *fsNode) {
			if !n.captured && !n.tooLarge {
				return
			}
			if dst := f.lookup(n.path(), false); dst != nil && dst.layer == i && dst.typ == typeReg {
				dst.content, dst.captured, dst.tooLarge = n.content, n.captured, n.tooLarge
			}
		})
	}
	return f, skipped, nil
}

// configDiffIDs are the diff_ids an image config lists; nil when the
// config does not parse (other checks report that).
func configDiffIDs(config []byte) []v1.Hash {
	var c struct {
		RootFS struct {
			DiffIDs []v1.Hash `json:"diff_ids"`
		} `json:"rootfs"`
	}
	if json.Unmarshal(config, &c) != nil {
		return nil
	}
	return c.RootFS.DiffIDs
}

// readLayer applies layer i to f, then reads the rest of the layer to
// its end so its digest, size and diff_id are verified.
func (m *platformManifest) readLayer(ctx context.Context, f *layerFS, l v1.Layer, i int, diffIDs []v1.Hash) error {
	var d v1.Descriptor
	if i < len(m.manifest.Layers) {
		d = m.manifest.Layers[i]
	}
	s, err := openLayer(l, d)
	if err != nil {
		return fmt.Errorf("reading layer %d: %w", i, err)
	}
	defer s.Close()
	if err := f.apply(ctx, s, i); err != nil {
		return fmt.Errorf("reading layer %d: %w", i, err)
	}
	var want v1.Hash
	if i < len(diffIDs) {
		want = diffIDs[i]
	}
	if err := s.finish(ctx, want); err != nil {
		return fmt.Errorf("reading layer %d: %w", i, err)
	}
	return nil
}

// wantedPaths lists the static paths checks read, plus the staged sources
// of every stem.
func (f *layerFS) wantedPaths() []string {
	out := []string{"/etc/passwd", "/etc/group", DpkgStatusPath, ApkInstalledPath}
	for _, stem := range f.stems() {
		out = append(out, stagedPath(stem, StagedDescriptor), stagedPath(stem, StagedRecipe))
	}
	return out
}

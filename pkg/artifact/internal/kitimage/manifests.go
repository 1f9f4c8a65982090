package kitimage

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

// Structure is an artifact's manifests, read once: the index (if any),
// every platform manifest, and what the index lists that is not one.
type Structure struct {
	// Index is nil for a single manifest.
	Index        *v1.IndexManifest
	IndexDigest  v1.Hash
	IndexType    types.MediaType
	IndexSize    int64
	Manifests    []*Manifest
	Attestations []v1.Descriptor
	// Others are index entries that are neither platform manifests nor
	// attestation manifests (nested indexes, unknown media types).
	Others []v1.Descriptor
}

// Manifest is one platform image of a kit.
type Manifest struct {
	Platform  string
	Desc      v1.Descriptor // as listed in the index, or computed
	Img       v1.Image
	Manifest  *v1.Manifest
	Config    []byte
	ConfigErr error
}

// Annotations returns the manifest's annotations, never nil.
func (m *Manifest) Annotations() map[string]string {
	if m.Manifest.Annotations == nil {
		return map[string]string{}
	}
	return m.Manifest.Annotations
}

// IsAttestation is artifact.IsAttestation (documented there).
func IsAttestation(d v1.Descriptor) bool {
	return d.Annotations[AnnotationReferenceType] == ReferenceTypeAttestation
}

// UnknownPlatform reports the platform unknown/unknown.
func UnknownPlatform(d v1.Descriptor) bool {
	return d.Platform != nil && d.Platform.OS == "unknown" && d.Platform.Architecture == "unknown"
}

// Load reads the manifests and configs of an artifact: of idx, or of img
// when idx is nil.
func Load(ctx context.Context, idx v1.ImageIndex, img v1.Image) (*Structure, error) {
	if idx == nil && img == nil {
		return nil, errors.New("artifact: no index or image; use Open, FromIndex or FromImage")
	}
	s := &Structure{}
	if img != nil {
		m, err := readManifest(ctx, img, nil)
		if err != nil {
			return nil, err
		}
		s.Manifests = []*Manifest{m}
		return s, nil
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("reading the image index: %w", err)
	}
	if s.IndexDigest, err = idx.Digest(); err != nil {
		return nil, fmt.Errorf("reading the image index: %w", err)
	}
	if s.IndexType, err = idx.MediaType(); err != nil {
		return nil, fmt.Errorf("reading the image index: %w", err)
	}
	if s.IndexSize, err = idx.Size(); err != nil {
		return nil, fmt.Errorf("reading the image index: %w", err)
	}
	s.Index = im
	for _, d := range im.Manifests {
		switch {
		case IsAttestation(d):
			s.Attestations = append(s.Attestations, d)
		case UnknownPlatform(d):
			s.Others = append(s.Others, d)
		case d.MediaType.IsImage() || d.MediaType == "":
			if d.Size > MaxManifestBytes {
				return nil, fmt.Errorf("%w: manifest %s is %d bytes", errTooLarge, d.Digest, d.Size)
			}
			img, err := idx.Image(d.Digest)
			if err != nil {
				return nil, fmt.Errorf("reading manifest %s: %w", d.Digest, err)
			}
			m, err := readManifest(ctx, img, &d)
			if err != nil {
				return nil, err
			}
			s.Manifests = append(s.Manifests, m)
		default:
			s.Others = append(s.Others, d)
		}
	}
	return s, nil
}

// readManifest reads one image's manifest and config; listed is its
// descriptor in the index, if it has one.
func readManifest(ctx context.Context, img v1.Image, listed *v1.Descriptor) (*Manifest, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m, err := img.Manifest()
	if err != nil {
		return nil, fmt.Errorf("reading a manifest: %w", err)
	}
	pm := &Manifest{Img: img, Manifest: m}
	if listed != nil {
		pm.Desc = *listed
	} else {
		if pm.Desc.Digest, err = img.Digest(); err != nil {
			return nil, fmt.Errorf("reading a manifest: %w", err)
		}
		if pm.Desc.MediaType, err = img.MediaType(); err != nil {
			return nil, fmt.Errorf("reading a manifest: %w", err)
		}
		if pm.Desc.Size, err = img.Size(); err != nil {
			return nil, fmt.Errorf("reading a manifest: %w", err)
		}
	}
	if m.Config.Size > MaxConfigBytes {
		pm.ConfigErr = fmt.Errorf("%w: config %s is %d bytes", errTooLarge, m.Config.Digest, m.Config.Size)
	} else {
		pm.Config, pm.ConfigErr = img.RawConfigFile()
		if pm.ConfigErr != nil && IsIOError(pm.ConfigErr) {
			return nil, fmt.Errorf("reading config %s: %w", m.Config.Digest, pm.ConfigErr)
		}
	}
	pm.Platform = platformName(listed, pm.Config)
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

// SamePlatform compares platform names, taking a missing variant as the
// default one (arm64 is arm64/v8, amd64 is amd64/v1).
func SamePlatform(a, b string) bool {
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

// IsIOError reports an error of reaching content (network, file system,
// cancellation), as opposed to content that is wrong.
func IsIOError(err error) bool {
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
var TarLayerTypes = map[types.MediaType]bool{
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

// ReadFS composes the image's layers, charging what it keeps to b. Layers
// that are not filesystem tars are passed over and reported in skipped. A
// file a check reads through a symbolic link is fetched by a second pass
// over the layer that holds it. Every layer read is verified against its
// descriptor's digest and size and the config's diff_id.
func (m *Manifest) ReadFS(ctx context.Context, b *Budget) (*FS, []int, error) {
	layers, err := m.Img.Layers()
	if err != nil {
		return nil, nil, fmt.Errorf("listing layers: %w", err)
	}
	diffIDs := configDiffIDs(m.Config)
	var skipped []int
	f := NewFS(wantedFile, b)
	for i, l := range layers {
		if i < len(m.Manifest.Layers) && !TarLayerTypes[m.Manifest.Layers[i].MediaType] {
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
		n := f.Lookup(p, true)
		if n == nil || n.Type != TypeReg || n.Captured || n.TooLarge {
			continue
		}
		if need[n.Layer] == nil {
			need[n.Layer] = map[string]int64{}
		}
		need[n.Layer][n.Path()] = wantedFile(p)
	}
	for i, paths := range need {
		scratch := NewFS(func(p string) int64 { return paths[p] }, b)
		if err := m.readLayer(ctx, scratch, layers[i], i, diffIDs); err != nil {
			return nil, skipped, err
		}
		Walk(scratch.Root, func(n *Node) {
			if !n.Captured && !n.TooLarge {
				return
			}
			if dst := f.Lookup(n.Path(), false); dst != nil && dst.Layer == i && dst.Type == TypeReg {
				dst.Content, dst.Captured, dst.TooLarge = n.Content, n.Captured, n.TooLarge
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
func (m *Manifest) readLayer(ctx context.Context, f *FS, l v1.Layer, i int, diffIDs []v1.Hash) error {
	var d v1.Descriptor
	if i < len(m.Manifest.Layers) {
		d = m.Manifest.Layers[i]
	}
	s, err := openLayer(l, d)
	if err != nil {
		return fmt.Errorf("reading layer %d: %w", i, err)
	}
	defer s.Close()
	if err := f.Apply(ctx, s, i); err != nil {
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
func (f *FS) wantedPaths() []string {
	out := []string{"/etc/passwd", "/etc/group", DpkgStatusPath, ApkInstalledPath}
	for _, stem := range f.Stems() {
		out = append(out, StagedPath(stem, StagedDescriptor), StagedPath(stem, StagedRecipe))
	}
	return out
}

// ManifestType is the manifest's own media type, or its descriptor's.
func ManifestType(m *Manifest) types.MediaType {
	if m.Manifest.MediaType != "" {
		return m.Manifest.MediaType
	}
	return m.Desc.MediaType
}

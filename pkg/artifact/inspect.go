package artifact

import (
	"context"
	"fmt"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Inspection is what a consumer sees of a kit image: where it is, what it
// is made of, and what the kit declares.
type Inspection struct {
	// Reference is the reference the artifact was opened by.
	Reference string
	// Digest, MediaType and Size are the top-level manifest's: the image
	// index's, or the single image manifest's.
	Digest    string
	MediaType string
	Size      int64
	// IndexAnnotations are the image index's annotations; nil without an
	// index.
	IndexAnnotations map[string]string
	// Manifests are the platform manifests, in index order.
	Manifests []ManifestInfo
	// Attestations are the attestation manifests the index lists (BuildKit
	// provenance or SBOM), which are not kit manifests.
	Attestations []BlobInfo
	// Referrers are the manifests a registry records as referring to the
	// artifact (signatures, attestations attached later), read through the
	// OCI referrers API or its tag-schema fallback. Registry artifacts
	// only; ReferrersError says why they could not be listed.
	Referrers      []BlobInfo
	ReferrersError string

	// Platform is the platform manifest the kit fields below describe:
	// the one WithPlatform selected, else the first.
	Platform string
	// AnnotationSource is where the kit annotations were read: "index",
	// or "manifest" when there is no index or the index lacks the
	// descriptor, as consumers fall back (SPEC-v3 §9.3).
	AnnotationSource string
	// Annotations are the annotations read from AnnotationSource.
	Annotations map[string]string
	// Descriptor is the decoded descriptor annotation; nil when it is
	// missing or does not decode, and DescriptorError says why.
	Descriptor      *spec.Descriptor
	DescriptorError string
	// Capabilities are the capability types the descriptor requests.
	Capabilities []string
	// Surface is the descriptor's permission surface (spec.SurfaceOf).
	Surface *spec.Surface
	// BuiltBy is the decoded built-by annotation; nil when absent or
	// malformed.
	BuiltBy *BuiltBy
	// Stem is the staged root holding the kit's own sources ("" when
	// none matches or the layers were not read).
	Stem string
	// StagedFiles are the regular files under /usr/share/sandbox/kit in
	// Platform's layers, in path order.
	StagedFiles []StagedFile

	descriptorRaw string
}

// ManifestInfo describes one platform manifest.
type ManifestInfo struct {
	Platform    string
	Digest      string
	MediaType   string
	Size        int64
	Config      BlobInfo
	Layers      []BlobInfo
	Annotations map[string]string
}

// BlobInfo is a content descriptor: a config, layer or manifest.
type BlobInfo struct {
	Digest    string
	MediaType string
	Size      int64
	// ArtifactType is a referrer's artifact type; "" otherwise.
	ArtifactType string
}

// StagedFile is a file staged under /usr/share/sandbox/kit.
type StagedFile struct {
	Path string
	Size int64
	// Mode is the file's permission bits, e.g. 0o644.
	Mode int64
}

// InspectOption configures Inspect.
type InspectOption func(*inspectOptions)

type inspectOptions struct {
	platform   string
	skipLayers bool
}

// WithPlatform selects the platform manifest ("linux/arm64";
// "linux/arm64/v8" matches too) whose annotations and layers Inspect reads.
// The default is the index's first platform manifest. Inspect fails with
// ErrNoPlatform when the artifact has none for the platform.
func WithPlatform(platform string) InspectOption {
	return func(o *inspectOptions) { o.platform = platform }
}

// WithoutLayers reads the manifests and annotations only: no layers
// (StagedFiles and Stem stay empty) and no referrers. The merged-set check
// reads the kits a set lists this way.
func WithoutLayers() InspectOption { return func(o *inspectOptions) { o.skipLayers = true } }

// Inspect reads what a consumer sees of the kit: digests, media types,
// platforms, annotations (falling back from the index to the selected
// platform manifest), the decoded descriptor with its capabilities and
// permission surface, built-by, and the staged files of the selected
// platform's layers. A missing or malformed descriptor is reported in
// DescriptorError, not as an error: Inspect shows what is there.
func (a *Artifact) Inspect(ctx context.Context, opts ...InspectOption) (*Inspection, error) {
	var o inspectOptions
	for _, opt := range opts {
		opt(&o)
	}
	st, err := kitimage.Load(ctx, a.index, a.image)
	if err != nil {
		return nil, err
	}
	in := &Inspection{Reference: a.ref}
	if st.Index != nil {
		in.Digest, in.MediaType, in.Size = st.IndexDigest.String(), string(st.IndexType), st.IndexSize
		in.IndexAnnotations = st.Index.Annotations
		for _, d := range st.Attestations {
			in.Attestations = append(in.Attestations, blobInfo(d))
		}
	}
	for _, m := range st.Manifests {
		in.Manifests = append(in.Manifests, manifestInfo(m))
	}
	if len(st.Manifests) == 0 {
		return nil, fmt.Errorf("%w: the index lists no platform image manifest", ErrNoPlatform)
	}
	if st.Index == nil {
		d := st.Manifests[0].Desc
		in.Digest, in.MediaType, in.Size = d.Digest.String(), string(kitimage.ManifestType(st.Manifests[0])), d.Size
	}
	m, err := selectManifest(st.Manifests, o.platform)
	if err != nil {
		return nil, err
	}
	if !o.skipLayers {
		a.referrers(ctx, in)
	}
	in.Platform = m.Platform
	in.Annotations, in.AnnotationSource = m.Annotations(), "manifest"
	if st.Index != nil && st.Index.Annotations[AnnotationDescriptor] != "" {
		in.Annotations, in.AnnotationSource = st.Index.Annotations, "index"
	}
	in.decode()
	if o.skipLayers || len(m.Manifest.Layers) == 0 {
		return in, nil
	}
	fs, _, err := m.ReadFS(ctx, kitimage.NewBudget())
	if err != nil {
		if kitimage.IsIOError(err) {
			return nil, fmt.Errorf("reading the layers of %s: %w", m.Platform, err)
		}
		return in, nil // content errors are Check's to report
	}
	in.StagedFiles = stagedFiles(fs)
	if in.Descriptor != nil {
		in.Stem = kitimage.OwnStem(fs, in.Descriptor, fs.Stems())
	}
	return in, nil
}

// decode fills the descriptor fields from the annotations.
func (in *Inspection) decode() {
	if v, ok := in.Annotations[AnnotationBuiltBy]; ok {
		if b, err := ParseBuiltBy(v); err == nil {
			in.BuiltBy = b
		}
	}
	raw, ok := in.Annotations[AnnotationDescriptor]
	if !ok || raw == "" {
		in.DescriptorError = fmt.Sprintf("no %s annotation", AnnotationDescriptor)
		return
	}
	k, err := spec.Parse(AnnotationDescriptor, []byte(raw))
	switch {
	case err != nil:
		in.DescriptorError = err.Error()
		return
	case k.Descriptor == nil || len(k.Problems().Errors) > 0:
		in.DescriptorError = "the descriptor annotation does not decode: " + k.Problems().Err().Error()
		return
	}
	in.descriptorRaw = raw
	in.Descriptor = k.Descriptor
	in.Capabilities = k.Descriptor.CapabilityTypes()
	in.Surface = spec.SurfaceOf(k.Descriptor)
}

// DescriptorJSON returns the descriptor annotation as published (compact
// JSON), or nil when there is no decodable descriptor.
func (in *Inspection) DescriptorJSON() []byte {
	if in.Descriptor == nil {
		return nil
	}
	return []byte(in.descriptorRaw)
}

func selectManifest(ms []*kitimage.Manifest, platform string) (*kitimage.Manifest, error) {
	if platform == "" {
		return ms[0], nil
	}
	var have []string
	for _, m := range ms {
		if kitimage.SamePlatform(m.Platform, platform) {
			return m, nil
		}
		have = append(have, m.Platform)
	}
	return nil, fmt.Errorf("%w %s: the artifact carries %s", ErrNoPlatform, platform, strings.Join(have, ", "))
}

func blobInfo(d v1.Descriptor) BlobInfo {
	return BlobInfo{Digest: d.Digest.String(), MediaType: string(d.MediaType), Size: d.Size, ArtifactType: d.ArtifactType}
}

// referrers lists what the registry records as referring to the artifact.
func (a *Artifact) referrers(ctx context.Context, in *Inspection) {
	if a.registry == nil {
		return
	}
	r, err := a.registry.registryRef(a.ref)
	if err != nil {
		in.ReferrersError = err.Error()
		return
	}
	h, err := v1.NewHash(in.Digest)
	if err != nil {
		in.ReferrersError = err.Error()
		return
	}
	st := &registryTarget{opts: a.registry, ref: r, repo: r.Context()}
	list, err := st.Referrers(ctx, v1.Descriptor{Digest: h})
	if err != nil {
		in.ReferrersError = err.Error()
		return
	}
	for _, d := range list {
		in.Referrers = append(in.Referrers, blobInfo(d))
	}
}

func manifestInfo(m *kitimage.Manifest) ManifestInfo {
	mi := ManifestInfo{
		Platform: m.Platform, Digest: m.Desc.Digest.String(), MediaType: string(kitimage.ManifestType(m)), Size: m.Desc.Size,
		Config: blobInfo(m.Manifest.Config), Annotations: m.Manifest.Annotations,
	}
	for _, l := range m.Manifest.Layers {
		mi.Layers = append(mi.Layers, blobInfo(l))
	}
	return mi
}

// stagedFiles lists the regular files under kitimage.StagedRoot.
func stagedFiles(fs *kitimage.FS) []StagedFile {
	root := fs.Lookup(kitimage.StagedRoot, true)
	if root == nil || !root.IsDir() {
		return nil
	}
	var out []StagedFile
	kitimage.Walk(root, func(n *kitimage.Node) {
		if n.Type == kitimage.TypeReg {
			out = append(out, StagedFile{Path: n.Path(), Size: n.Size, Mode: n.Mode & 0o7777})
		}
	})
	return out
}

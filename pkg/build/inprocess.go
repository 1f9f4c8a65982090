package build

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"io"

	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// buildDeclarationOnly assembles a declaration-only kit in-process: per
// platform, scratch plus the staged-sources layer and a config stating
// only the platform (and, as BuildKit's exporter does, the rootfs and the
// SOURCE_DATE_EPOCH as created).
func buildDeclarationOnly(ctx context.Context, p progress.Reporter, k *spec.Kit, opts *options) (*built, error) {
	pub, warnings, err := publishKit(ctx, p, k, opts)
	if err != nil {
		return nil, err
	}
	done := p.Step(ctx, "assemble", "[kitsmith] assemble "+k.Stem+" in-process (declaration-only)")
	b, err := assembleDeclarationOnly(k, pub, opts)
	done(err)
	if err != nil {
		return nil, err
	}
	b.warnings = warnings
	return b, nil
}

func assembleDeclarationOnly(k *spec.Kit, pub *spec.Published, opts *options) (*built, error) {
	files, err := stagedFiles(k, pub, pub.YAML)
	if err != nil {
		return nil, err
	}
	tb, err := stagedTar(files, opts.epochTime())
	if err != nil {
		return nil, err
	}
	layer, err := newMemLayer(tb)
	if err != nil {
		return nil, err
	}
	ann, err := artifact.Annotations(pub.Descriptor, opts.builtBy, opts.created)
	if err != nil {
		return nil, err
	}
	imgs := make([]v1.Image, 0, len(opts.platforms))
	for _, pl := range opts.platforms {
		img, err := ociImage([]v1.Layer{layer}, &v1.ConfigFile{
			Architecture: pl.Architecture, OS: pl.OS, Variant: pl.Variant, OSVersion: pl.OSVersion,
			Created: v1.Time{Time: opts.epochTime()},
		}, ann)
		if err != nil {
			return nil, err
		}
		imgs = append(imgs, img)
	}
	idx, err := ociIndex(imgs, opts.platforms, ann)
	if err != nil {
		return nil, err
	}
	return &built{route: RouteInProcess, index: idx, published: pub.Descriptor, yaml: pub.YAML, stem: k.Stem, kind: pub.Descriptor.Kind}, nil
}

// publishKit publishes the descriptor of a kit that is not a set.
func publishKit(ctx context.Context, p progress.Reporter, k *spec.Kit, opts *options) (*spec.Published, spec.Errors, error) {
	done := p.Step(ctx, "publish", "[kitsmith] stage the descriptor of "+k.Stem)
	pub, rep := k.Publish(opts.BuildArgs)
	if pub == nil || !rep.OK() {
		err := &DescriptorError{Kit: k.Path, Report: rep}
		done(err)
		return nil, nil, err
	}
	done(nil)
	return pub, rep.Warnings, nil
}

// ociImage returns an OCI image of layers with the config cfg (its rootfs
// filled in from the layers) and the manifest annotations ann.
func ociImage(layers []v1.Layer, cfg *v1.ConfigFile, ann map[string]string) (v1.Image, error) {
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	adds := make([]mutate.Addendum, 0, len(layers))
	cfg.RootFS = v1.RootFS{Type: "layers"}
	for _, l := range layers {
		adds = append(adds, mutate.Addendum{Layer: l})
		d, err := l.DiffID()
		if err != nil {
			return nil, fmt.Errorf("reading a layer: %w", err)
		}
		cfg.RootFS.DiffIDs = append(cfg.RootFS.DiffIDs, d)
	}
	img, err := mutate.Append(base, adds...)
	if err != nil {
		return nil, fmt.Errorf("assembling the image: %w", err)
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("assembling the image config: %w", err)
	}
	return mutate.Annotations(img, ann).(v1.Image), nil
}

// ociIndex returns an OCI image index of imgs, one per platform, with the
// index annotations ann. Its entries carry no artifactType, as BuildKit's
// exporter writes them: a kit is a plain image, and go-containerregistry
// would otherwise record the config media type there.
func ociIndex(imgs []v1.Image, plats []ocispecs.Platform, ann map[string]string) (v1.ImageIndex, error) {
	adds := make([]mutate.IndexAddendum, 0, len(imgs))
	for i, img := range imgs {
		pl := plats[i]
		adds = append(adds, mutate.IndexAddendum{Add: plainImage{img}, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: pl.OS, Architecture: pl.Architecture, Variant: pl.Variant, OSVersion: pl.OSVersion},
		}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	return mutate.Annotations(idx, ann).(v1.ImageIndex), nil
}

// plainImage is an image whose index entry carries no artifactType:
// go-containerregistry's index builder asks for ArtifactType before it
// falls back to the config media type.
type plainImage struct{ v1.Image }

// ArtifactType returns "".
func (plainImage) ArtifactType() (string, error) { return "", nil }

// memLayer is a gzip-compressed layer held in memory, compressed once.
type memLayer struct {
	compressed, uncompressed []byte
	digest, diffID           v1.Hash
}

var _ v1.Layer = (*memLayer)(nil)

// newMemLayer compresses the tar tb. The gzip stream carries no name and
// no time, so the same tar gives the same digest.
func newMemLayer(tb []byte) (*memLayer, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(tb); err != nil {
		return nil, fmt.Errorf("compressing a layer: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compressing a layer: %w", err)
	}
	return &memLayer{compressed: buf.Bytes(), uncompressed: tb, digest: sha256Hash(buf.Bytes()), diffID: sha256Hash(tb)}, nil
}

func sha256Hash(b []byte) v1.Hash {
	sum := sha256.Sum256(b)
	return v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(sum[:])}
}

func (l *memLayer) Digest() (v1.Hash, error) { return l.digest, nil }
func (l *memLayer) DiffID() (v1.Hash, error) { return l.diffID, nil }
func (l *memLayer) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.compressed)), nil
}
func (l *memLayer) Uncompressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.uncompressed)), nil
}
func (l *memLayer) Size() (int64, error)                { return int64(len(l.compressed)), nil }
func (l *memLayer) MediaType() (types.MediaType, error) { return types.OCILayer, nil }

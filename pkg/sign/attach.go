package sign

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// emptyConfigMediaType is the OCI empty descriptor's media type; its blob
// is "{}".
const emptyConfigMediaType types.MediaType = "application/vnd.oci.empty.v1+json"

// emptyConfig is the OCI empty blob.
var emptyConfig = []byte("{}")

// Attach stores b as a referrer of subject in st, exactly as cosign v3
// stores a bundle: an OCI image manifest with artifactType BundleMediaType,
// the OCI empty config, one layer holding the bundle JSON with that media
// type, the annotations dev.sigstore.bundle.content,
// dev.sigstore.bundle.predicateType and org.opencontainers.image.created,
// and subject as its subject. It returns the referrer's descriptor.
func Attach(ctx context.Context, st ReferrerStore, subject v1.Descriptor, b *Bundle) (v1.Descriptor, error) {
	if b == nil {
		return v1.Descriptor{}, errors.New("attaching a signature: no bundle")
	}
	img, err := referrerImage(subject, b, time.Now())
	if err != nil {
		return v1.Descriptor{}, err
	}
	d, err := st.PushReferrer(ctx, subject, img)
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("attaching the signature to %s: %w", subject.Digest, err)
	}
	return d, nil
}

// referrerImage builds the referrer manifest of bundle b for subject.
func referrerImage(subject v1.Descriptor, b *Bundle, created time.Time) (v1.Image, error) {
	data, err := b.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding the bundle: %w", err)
	}
	layer := static.NewLayer(data, BundleMediaType)
	ld, err := partial.Descriptor(layer)
	if err != nil {
		return nil, fmt.Errorf("describing the bundle layer: %w", err)
	}
	cfgHash, cfgSize, err := v1.SHA256(bytes.NewReader(emptyConfig))
	if err != nil {
		return nil, err
	}
	content := "dsse-envelope"
	if _, err := b.b.Envelope(); err != nil {
		content = "message-signature"
	}
	m := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		ArtifactType:  BundleMediaType,
		Config: v1.Descriptor{
			MediaType: emptyConfigMediaType, Size: cfgSize, Digest: cfgHash, ArtifactType: BundleMediaType,
		},
		Layers: []v1.Descriptor{{MediaType: ld.MediaType, Size: ld.Size, Digest: ld.Digest}},
		Annotations: map[string]string{
			AnnotationBundleContent:       content,
			AnnotationBundlePredicateType: b.PredicateType(),
			AnnotationCreated:             created.UTC().Format(time.RFC3339),
		},
		Subject: &v1.Descriptor{MediaType: subject.MediaType, Size: subject.Size, Digest: subject.Digest},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding the referrer manifest: %w", err)
	}
	return partial.CompressedToImage(&referrer{manifest: raw, layer: layer, layerDigest: ld.Digest})
}

// referrer is the referrer image: a fixed manifest, the empty config and
// one layer.
type referrer struct {
	manifest    []byte
	layer       v1.Layer
	layerDigest v1.Hash
}

func (r *referrer) RawManifest() ([]byte, error)        { return r.manifest, nil }
func (r *referrer) RawConfigFile() ([]byte, error)      { return emptyConfig, nil }
func (r *referrer) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }

func (r *referrer) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	if h == r.layerDigest {
		return r.layer, nil
	}
	if cfg, _, _ := v1.SHA256(bytes.NewReader(emptyConfig)); h == cfg {
		return static.NewLayer(emptyConfig, emptyConfigMediaType), nil
	}
	return nil, fmt.Errorf("the signature referrer has no blob %s", h)
}

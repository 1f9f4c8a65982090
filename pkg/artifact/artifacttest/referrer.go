package artifacttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// BundleType is the artifact and layer media type of a Sigstore bundle
// referrer, as cosign v3 writes it.
const BundleType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Referrer makes a referrer manifest shaped as cosign v3 stores a bundle:
// an OCI image manifest with artifactType, the OCI empty config, one layer
// holding body with mediaType artifactType, and subject.
func Referrer(t testing.TB, subject v1.Descriptor, artifactType string, body []byte) v1.Image {
	t.Helper()
	cfg := []byte("{}")
	ch, cn, _ := v1.SHA256(bytes.NewReader(cfg))
	lh, ln, _ := v1.SHA256(bytes.NewReader(body))
	subj := v1.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}
	m := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		ArtifactType:  artifactType,
		Config:        v1.Descriptor{MediaType: "application/vnd.oci.empty.v1+json", Digest: ch, Size: cn, ArtifactType: artifactType},
		Layers:        []v1.Descriptor{{MediaType: types.MediaType(artifactType), Digest: lh, Size: ln}},
		Subject:       &subj,
		Annotations:   map[string]string{"dev.sigstore.bundle.content": "dsse-envelope"},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	img, err := partial.CompressedToImage(&rawImage{raw: raw, config: cfg, blobs: map[v1.Hash]rawBlob{
		ch: {desc: m.Config, body: cfg}, lh: {desc: m.Layers[0], body: body},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

type rawImage struct {
	raw, config []byte
	blobs       map[v1.Hash]rawBlob
}

func (i *rawImage) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }
func (i *rawImage) RawManifest() ([]byte, error)        { return i.raw, nil }
func (i *rawImage) RawConfigFile() ([]byte, error)      { return i.config, nil }
func (i *rawImage) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	b, ok := i.blobs[h]
	if !ok {
		return nil, fmt.Errorf("no blob %s", h)
	}
	return b, nil
}

type rawBlob struct {
	desc v1.Descriptor
	body []byte
}

func (b rawBlob) Digest() (v1.Hash, error)            { return b.desc.Digest, nil }
func (b rawBlob) Size() (int64, error)                { return b.desc.Size, nil }
func (b rawBlob) MediaType() (types.MediaType, error) { return b.desc.MediaType, nil }
func (b rawBlob) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(b.body)), nil
}

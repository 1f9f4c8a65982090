package build

import (
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// TestResultAttestations: a build's result counts the index entries
// artifact.IsAttestation marks as attestations and lists every other
// entry as a platform manifest, an unmarked unknown/unknown one included,
// as check and sign --recursive see them.
func TestResultAttestations(t *testing.T) {
	unknown := &v1.Platform{OS: "unknown", Architecture: "unknown"}
	img := func(body string) v1.Image {
		return at.PlainImage(at.Image(t, "linux/amd64", v1.Config{}, nil, at.OCILayer(t, at.File("provenance.json", body))))
	}
	idx := mutate.AppendManifests(at.Mixin(t).Index(t),
		mutate.IndexAddendum{Add: img(`{"n":1}`), Descriptor: v1.Descriptor{Platform: unknown,
			Annotations: map[string]string{artifact.AnnotationReferenceType: artifact.ReferenceTypeAttestation}}},
		mutate.IndexAddendum{Add: img(`{"n":2}`), Descriptor: v1.Descriptor{Platform: unknown}})
	res, err := (&built{index: idx}).result(&options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Manifests {
		got = append(got, m.Platform)
	}
	if res.Attestations != 1 || len(got) != 3 || got[2] != "unknown/unknown" {
		t.Errorf("%d attestations, manifests %v; want 1 and the two platforms plus unknown/unknown", res.Attestations, got)
	}
}

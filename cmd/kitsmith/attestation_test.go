package main

import (
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// TestAttestationRule is issue 21: sign --recursive and check apply
// artifact.IsAttestation, the rule build applies too. A manifest marked as
// BuildKit marks attestations is neither signed as a platform nor judged;
// an unknown/unknown manifest without the mark is signed like any other
// manifest of the index, and check reports it.
func TestAttestationRule(t *testing.T) {
	unknown := &v1.Platform{OS: "unknown", Architecture: "unknown"}
	marked := at.PlainImage(at.Image(t, "linux/amd64", v1.Config{}, nil, at.OCILayer(t, at.File("provenance.json", `{"marked":true}`))))
	unmarked := at.PlainImage(at.Image(t, "linux/amd64", v1.Config{}, nil, at.OCILayer(t, at.File("provenance.json", `{"marked":false}`))))
	idx := mutate.AppendManifests(at.Mixin(t).Index(t),
		mutate.IndexAddendum{Add: marked, Descriptor: v1.Descriptor{Platform: unknown,
			Annotations: map[string]string{artifact.AnnotationReferenceType: artifact.ReferenceTypeAttestation}}},
		mutate.IndexAddendum{Add: unmarked, Descriptor: v1.Descriptor{Platform: unknown}})
	markedDigest, err := marked.Digest()
	if err != nil {
		t.Fatal(err)
	}
	unmarkedDigest, err := unmarked.Digest()
	if err != nil {
		t.Fatal(err)
	}
	f := newSignFixture(t)
	ref := at.Push(t, at.Registry(t, true)+"/kits/attested:1.0.0", idx)

	stdout, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(testSigner), "--recursive", ref)...)
	if code != exitOK {
		t.Fatalf("sign --recursive: exit %d\n%s", code, stderr)
	}
	if n := strings.Count(stdout, "signed sha256:"); n != 4 { // the index, two platforms, the unmarked manifest
		t.Errorf("signed %d manifests, want 4:\n%s", n, stdout)
	}
	if strings.Contains(stdout, markedDigest.String()) || !strings.Contains(stdout, unmarkedDigest.String()) {
		t.Errorf("want the unmarked %s signed and the attestation %s not:\n%s", unmarkedDigest, markedDigest, stdout)
	}

	stdout, _, code = runCLI(t, "check", ref)
	if code != exitFindings || !strings.Contains(stdout, unmarkedDigest.String()+" for platform unknown/unknown without") || strings.Contains(stdout, markedDigest.String()) {
		t.Errorf("check: exit %d, want 1 naming the unmarked manifest only:\n%s", code, stdout)
	}
}

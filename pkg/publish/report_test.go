package publish

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/internal/golden"
	"github.com/kitsmith/kitsmith/pkg/build"
)

func hash(c string) v1.Hash { return v1.Hash{Algorithm: "sha256", Hex: strings.Repeat(c, 64)} }

// sampleResult is one kit of each outcome, with fixed digests and times.
func sampleResult() *Result {
	idx := v1.Descriptor{MediaType: "application/vnd.oci.image.index.v1+json", Digest: hash("1"), Size: 900}
	manifests := []build.Manifest{{Platform: "linux/amd64", Digest: hash("2"), Size: 700}, {Platform: "linux/arm64", Digest: hash("3"), Size: 700}}
	sig := &Signature{Referrer: v1.Descriptor{Digest: hash("4")}, Subject: idx, Identity: "https://github.com/kitsmith/kitsmith/.github/workflows/release-kits.yml@refs/tags/v1.0.0", Issuer: "https://token.actions.githubusercontent.com", LogIndex: 42}
	prov := &Signature{Referrer: v1.Descriptor{Digest: hash("5")}, Subject: idx, Identity: sig.Identity, Issuer: sig.Issuer, LogIndex: 43}
	timings := []Timing{{StageValidate, time.Millisecond}, {StageLint, 2 * time.Millisecond}, {StageBuild, 30 * time.Millisecond},
		{StageTag, 4 * time.Millisecond}, {StagePush, 20 * time.Millisecond}, {StageSign, 900 * time.Millisecond},
		{StageAttest, 950 * time.Millisecond}, {StageVerify, 15 * time.Millisecond}, {StageTag, 5 * time.Millisecond}}
	return &Result{Kits: []*KitResult{
		{Kit: "kits/outside/reshapr-outside.yaml", Stem: "reshapr-outside", Reference: "registry.example.org/kitsmith/reshapr-outside:0.3.0",
			Index: idx, Manifests: manifests, Pushed: []v1.Descriptor{{Digest: hash("2")}, {Digest: hash("3")}, idx, sig.Referrer, prov.Referrer},
			Signature: sig, Provenance: prov, Verified: &Verification{Identity: sig.Identity, Issuer: sig.Issuer, Signatures: 1},
			Tagged: true, Moved: true, Previous: &v1.Descriptor{Digest: hash("9")}, Timings: timings},
		{Kit: "kits/inside/reshapr-inside.yaml", Stem: "reshapr-inside", Reference: "registry.example.org/kitsmith/reshapr-inside:0.4.0",
			Index: v1.Descriptor{Digest: hash("6")}, Manifests: manifests[:1], Pushed: []v1.Descriptor{{Digest: hash("6")}},
			Unsigned: true, Tagged: true, Timings: timings[:5]},
		{Kit: "kits/same/same.yaml", Stem: "same", Reference: "registry.example.org/kitsmith/same:1.0.0", Index: v1.Descriptor{Digest: hash("7")},
			Manifests: manifests[:1], Unchanged: true, Previous: &v1.Descriptor{Digest: hash("7")}, Timings: timings[:4]},
		{Kit: "kits/broken/broken.yaml", Stem: "broken", Reference: "registry.example.org/kitsmith/broken:1.0.0", Index: v1.Descriptor{Digest: hash("8")},
			Manifests: manifests[:1], Pushed: []v1.Descriptor{{Digest: hash("2")}, {Digest: hash("8")}},
			Err: &StageError{Kit: "kits/broken/broken.yaml", Stage: StageSign, Err: errors.New("getting a certificate: 401 Unauthorized")}, Timings: timings[:6]},
	}}
}

func TestReportGolden(t *testing.T) {
	for _, tt := range []struct {
		name  string
		write func(io.Writer, *Result) error
	}{
		{"metadata.json", WriteMetadata},
		{"summary.txt", WriteSummary},
		{"step-summary.md", WriteMarkdown},
		{"github-output.txt", WriteGitHubOutput},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b, sampleResult()); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "report", tt.name+".golden"), b.Bytes())
		})
	}
}

func TestReference(t *testing.T) {
	kit := load(t, "testdata/good")
	tests := []struct {
		tmpl, want, err string
	}{
		{tmpl: "registry.example.org/kits/{stem}:{version}", want: "registry.example.org/kits/good:1.0.0"},
		{tmpl: "127.0.0.1:5000/{name}-{kind}:{version}", want: "127.0.0.1:5000/good-mixin:1.0.0"},
		{tmpl: "registry.example.org/kits/{stem}", err: "does not make"},
		{tmpl: "registry.example.org/{who}:{version}", err: "unknown placeholder {who}"},
	}
	for _, tt := range tests {
		t.Run(tt.tmpl, func(t *testing.T) {
			got, err := Reference(tt.tmpl, kit)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Reference = %q, %v; want an error saying %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Reference = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	noVersion := load(t, "testdata/good")
	noVersion.Descriptor.Version = ""
	if _, err := Reference("r.example.org/{stem}:{version}", noVersion); err == nil || !strings.Contains(err.Error(), "{version}") {
		t.Errorf("a kit without a version: err = %v; want it to name {version}", err)
	}
}

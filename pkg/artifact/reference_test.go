package artifact_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

func TestParseReference(t *testing.T) {
	tests := []struct {
		in      string
		want    artifact.Ref
		wantErr bool
	}{
		{in: "oci:out/gh:1.2.0", want: artifact.Ref{Kind: artifact.OriginLayout, Path: "out/gh", Tag: "1.2.0"}},
		{in: "oci:out/gh", want: artifact.Ref{Kind: artifact.OriginLayout, Path: "out/gh"}},
		{in: "oci:/abs/dir:latest", want: artifact.Ref{Kind: artifact.OriginLayout, Path: "/abs/dir", Tag: "latest"}},
		{in: "oci:dir:with:colon:", want: artifact.Ref{Kind: artifact.OriginLayout, Path: "dir:with:colon"}},
		{in: "oci:a:b/c", want: artifact.Ref{Kind: artifact.OriginLayout, Path: "a:b/c"}},
		{in: "oci-archive:dist/gh.tar", want: artifact.Ref{Kind: artifact.OriginArchive, Path: "dist/gh.tar"}},
		{in: "oci-archive:dist/gh.tar:v1", want: artifact.Ref{Kind: artifact.OriginArchive, Path: "dist/gh.tar", Tag: "v1"}},
		{in: "registry.example/kits/gh:1.2.0", want: artifact.Ref{Kind: artifact.OriginRegistry, Name: "registry.example/kits/gh:1.2.0"}},
		{in: "127.0.0.1:5000/kits/gh@sha256:" + hex64, want: artifact.Ref{Kind: artifact.OriginRegistry, Name: "127.0.0.1:5000/kits/gh@sha256:" + hex64}},
		{in: "oci:", wantErr: true},
		{in: "oci-archive::v1", wantErr: true},
		{in: "", wantErr: true},
		{in: "Registry.Example/UPPER/case:1", wantErr: true},
		{in: "registry.example/kits/gh:bad tag", wantErr: true},
		// Another tool's transport, or a misspelt prefix, is not a host.
		{in: "docker://registry.example/kits/gh", wantErr: true},
		{in: "dir:/tmp/kit", wantErr: true},
		{in: "oci-layout:out/gh", wantErr: true},
		{in: "localhost:/kits/gh", wantErr: true},
		// Look-alikes that are registries: a port, an IPv6 literal, a tag.
		{in: "localhost:5000/kits/gh", want: artifact.Ref{Kind: artifact.OriginRegistry, Name: "localhost:5000/kits/gh"}},
		{in: "[::1]:5000/kits/gh:1", want: artifact.Ref{Kind: artifact.OriginRegistry, Name: "[::1]:5000/kits/gh:1"}},
		{in: "gh:1.2.0", want: artifact.Ref{Kind: artifact.OriginRegistry, Name: "gh:1.2.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := artifact.ParseReference(tt.in)
			if tt.wantErr {
				var de *artifact.DestinationError
				if !errors.As(err, &de) {
					t.Fatalf("ParseReference(%q) = %+v, %v; want a *DestinationError", tt.in, got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseReference(%q) (-want +got):\n%s", tt.in, diff)
			}
			again, err := artifact.ParseReference(got.String())
			if err != nil || again != got {
				t.Errorf("ParseReference(%q.String() = %q) = %+v, %v; want it unchanged", tt.in, got.String(), again, err)
			}
		})
	}
}

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestRefPinned(t *testing.T) {
	const dg = "sha256:0f766932453902de086724742b4d360d48c6e30cda14239f495c27515561ac75"
	tests := []struct {
		in, want    string
		notRegistry bool
	}{
		{in: "127.0.0.1:5000/kits/gh:1.2.0", want: "127.0.0.1:5000/kits/gh@" + dg},
		{in: "registry.example.org/kits/gh", want: "registry.example.org/kits/gh@" + dg},
		{in: "registry.example.org/kits/gh@sha256:" + "1111111111111111111111111111111111111111111111111111111111111111", want: "registry.example.org/kits/gh@" + dg},
		{in: "oci:out/gh:1.2.0", want: "oci:out/gh:1.2.0", notRegistry: true},
		{in: "oci-archive:out/gh.tar", want: "oci-archive:out/gh.tar", notRegistry: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := artifact.ParseReference(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Pinned(dg)
			if got != tt.want || errors.Is(err, artifact.ErrNotRegistry) != tt.notRegistry || (err != nil) != tt.notRegistry {
				t.Errorf("Pinned = %q, %v; want %q (not a registry: %v)", got, err, tt.want, tt.notRegistry)
			}
		})
	}
	r, _ := artifact.ParseReference("registry.example.org/kits/gh:1")
	if _, err := r.Pinned("sha256:short"); err == nil {
		t.Error("Pinned accepted a malformed digest")
	}
}

package artifact_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

func TestInspect(t *testing.T) {
	type view struct {
		Platform, Source, Stem, Kind string
		Capabilities                 []string
		Staged                       []string
		HasDescriptor                bool
	}
	toolStaged := []string{"/usr/share/sandbox/kit/tool/context.md", "/usr/share/sandbox/kit/tool/kit.dockerfile", "/usr/share/sandbox/kit/tool/kit.yaml"}
	toolCaps := []string{"com.docker.sandbox/agent-context@1", "com.docker.sandbox/network-policy@1"}
	tests := []struct {
		name     string
		artifact func(t testing.TB) *artifact.Artifact
		opts     []artifact.InspectOption
		want     view
	}{
		{
			name:     "index annotations",
			artifact: func(t testing.TB) *artifact.Artifact { return at.Mixin(t).Artifact(t) },
			want:     view{"linux/amd64", "index", "tool", "mixin", toolCaps, toolStaged, true},
		},
		{
			name: "falls back to the manifest when the index lacks the descriptor",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.IndexAnnotations = nil
				return k.Artifact(t)
			},
			opts: []artifact.InspectOption{artifact.WithPlatform("linux/arm64")},
			want: view{"linux/arm64", "manifest", "tool", "mixin", toolCaps, toolStaged, true},
		},
		{
			name:     "a single manifest",
			artifact: func(t testing.TB) *artifact.Artifact { return artifact.FromImage(at.Workload(t).Images(t)[1]) },
			want: view{"linux/arm64", "manifest", "shell", "workload", []string{"com.docker.sandbox/sbx@1"},
				[]string{"/usr/share/sandbox/kit/shell/kit.dockerfile", "/usr/share/sandbox/kit/shell/kit.yaml"}, true},
		},
		{
			name:     "not a kit",
			artifact: func(t testing.TB) *artifact.Artifact { return artifact.FromIndex(at.DockerClassic(t)) },
			want:     view{Platform: "linux/amd64", Source: "manifest", Staged: toolStaged},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := tt.artifact(t).Inspect(context.Background(), tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			got := view{Platform: in.Platform, Source: in.AnnotationSource, Stem: in.Stem, Capabilities: in.Capabilities,
				HasDescriptor: in.Descriptor != nil}
			if in.Descriptor != nil {
				got.Kind = in.Descriptor.Kind
			}
			for _, f := range in.StagedFiles {
				got.Staged = append(got.Staged, f.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Inspect mismatch (-want +got):\n%s", diff)
			}
			if !got.HasDescriptor && in.DescriptorError == "" {
				t.Error("no descriptor and no DescriptorError")
			}
		})
	}
}

func TestInspectNoPlatform(t *testing.T) {
	_, err := at.Mixin(t).Artifact(t).Inspect(context.Background(), artifact.WithPlatform("linux/riscv64"))
	if !errors.Is(err, artifact.ErrNoPlatform) {
		t.Errorf("Inspect error = %v, want ErrNoPlatform", err)
	}
}

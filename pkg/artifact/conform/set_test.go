package conform_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

var helloFiles = map[string]string{
	"hello/hello.yaml": `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
displayName: Hello
licenses: [BSD-3-Clause]
provides: ["hello@2.0"]
requires: ["tool >= 1.0"]
`,
}

// mergedSet pushes two kits to the registry at host and returns a merged
// set of them, edited by edit, with the staged sources of the kits named
// in staged.
func mergedSet(t testing.TB, host string, edit func(*spec.Descriptor), staged ...string) *at.Kit {
	t.Helper()
	tool, hello := at.Mixin(t), at.NewKit(t, helloFiles, "hello/hello.yaml")
	toolRef, helloRef := host+"/kits/tool:1.2.0", host+"/kits/hello:2.0"
	toolPinned := at.Push(t, toolRef, tool.Index(t))
	helloPinned := at.Push(t, helloRef, hello.Index(t))
	digest := func(p string) string { return p[strings.Index(p, "@")+1:] }
	d := &spec.Descriptor{
		SchemaVersion: "3", Kind: spec.KindMixin, DisplayName: "Team", Version: "1.0.0",
		Licenses: []string{"Apache-2.0", "BSD-3-Clause", "MIT"},
		Provides: []string{"tool@1.2.0", "hello@2.0"},
		Kits:     []spec.KitRef{{Ref: toolRef, Digest: digest(toolPinned)}, {Ref: helloRef, Digest: digest(helloPinned)}},
	}
	if edit != nil {
		edit(d)
	}
	set := &at.Kit{Stem: "team", Platforms: tool.Platforms}
	set.SetDescriptor(t, d)
	set.Content = tool.Content
	for _, s := range staged {
		switch s {
		case "tool":
			set.Extra = append(set.Extra, tool.StagedLayer(t))
		case "hello":
			set.Extra = append(set.Extra, hello.StagedLayer(t))
		}
	}
	return set
}

func TestCheckMergedSet(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(*spec.Descriptor)
		staged   []string
		want     []string
		contains string
	}{
		{name: "good", staged: []string{"tool", "hello"}, want: []string{}},
		{
			name: "a kit's sources not staged", staged: []string{"tool"},
			want:     each("fail merged-set", "fail merged-set-declarations"),
			contains: "hello:2.0 is listed but its staged sources are not in the image",
		},
		{
			name: "a license dropped", staged: []string{"tool", "hello"},
			edit:     func(d *spec.Descriptor) { d.Licenses = []string{"Apache-2.0", "MIT"} },
			want:     each("fail merged-set-declarations"),
			contains: "is licensed BSD-3-Clause, which the merged descriptor does not name",
		},
		{
			name: "a provide dropped", staged: []string{"tool", "hello"},
			edit:     func(d *spec.Descriptor) { d.Provides = []string{"hello@2.0"} },
			want:     each("fail merged-set-declarations"),
			contains: "provides tool@1.2.0, which the merged descriptor does not",
		},
		{
			name: "an internal requirement kept", staged: []string{"tool", "hello"},
			edit:     func(d *spec.Descriptor) { d.Requires = []string{"tool >= 1.0"} },
			want:     each("fail merged-set-declarations"),
			contains: `still requires "tool >= 1.0"`,
		},
		{
			name: "a recipe beside kits", staged: []string{"tool", "hello"},
			edit: func(d *spec.Descriptor) { d.Build = "FROM scratch\n" },
			want: each("fail descriptor-valid", "fail staged-recipe", "fail merged-set"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			host := at.Registry(t, true)
			set := mergedSet(t, host, tt.edit, tt.staged...)
			a, err := artifact.Open(ctx, at.Push(t, host+"/kits/team:1.0.0", set.Index(t)))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := conform.Check(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summary(rep.Findings)); diff != "" {
				t.Errorf("findings mismatch (-want +got):\n%s", diff)
				for _, f := range rep.Findings {
					t.Logf("%s %s [%s]: %s", f.Severity, f.Check, f.Platform, f.Message)
				}
			}
			if tt.contains != "" && !slices.ContainsFunc(rep.Findings, func(f conform.Finding) bool { return strings.Contains(f.Message, tt.contains) }) {
				t.Errorf("no finding says %q", tt.contains)
			}
		})
	}
}

func TestCheckMergedSetResolver(t *testing.T) {
	ctx := context.Background()
	host := at.Registry(t, false)
	set := mergedSet(t, host, nil, "tool", "hello")
	tests := []struct {
		name string
		opts []conform.Option
		want []string
	}{
		{name: "in memory, no resolver", want: each("skip merged-set-declarations")},
		{name: "in memory, registry resolver", opts: []conform.Option{conform.WithKitResolver(artifact.RegistryResolver())}, want: []string{}},
		{name: "a resolver that cannot reach the kits", opts: []conform.Option{conform.WithKitResolver(failingResolver{})}, want: each("skip merged-set-declarations")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := conform.Check(ctx, artifact.FromIndex(set.Index(t)), tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summary(rep.Findings)); diff != "" {
				t.Errorf("findings mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

type failingResolver struct{}

func (failingResolver) ResolveKit(context.Context, string, string) (*artifact.Artifact, error) {
	return nil, artifact.ErrUnreachable
}

var _ artifact.KitResolver = failingResolver{}

package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

func TestDeclarationOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	res, err := Build(context.Background(), nil, loadKit(t, "decl-mixin"), Options{
		SourceDateEpoch: epoch(1700000000),
		BuildArgs:       map[string]string{"version": "1.4.2"},
		Outputs:         []Output{{Type: OutputOCI, Dest: dir}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Route != RouteInProcess || res.Kind != spec.KindMixin || res.Stem != "decl-mixin" {
		t.Errorf("route, kind, stem = %s, %s, %s; want in-process, mixin, decl-mixin", res.Route, res.Kind, res.Stem)
	}
	if res.Check == nil || res.Check.Failed() {
		t.Errorf("check report = %+v, want no failure", res.Check)
	}
	idx := layoutIndex(t, dir)
	if mt, _ := idx.MediaType(); mt != types.OCIImageIndex {
		t.Errorf("index media type %s", mt)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Digest(); got != res.Index.Digest {
		t.Errorf("layout index %s, result %s", got, res.Index.Digest)
	}
	var plats []string
	for _, d := range im.Manifests {
		plats = append(plats, d.Platform.OS+"/"+d.Platform.Architecture)
		if d.MediaType != types.OCIManifestSchema1 {
			t.Errorf("manifest media type %s", d.MediaType)
		}
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, plats); diff != "" {
		t.Errorf("platforms (-want +got):\n%s", diff)
	}
	wantAnn := res.Annotations
	if wantAnn[artifact.AnnotationVersion] != "1.4.2" || wantAnn[artifact.AnnotationCreated] != "2023-11-14T22:13:20Z" {
		t.Errorf("index annotations %v: want version 1.4.2 and created from the epoch", wantAnn)
	}
	for _, d := range im.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		m, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantAnn, m.Annotations); diff != "" {
			t.Errorf("%s manifest annotations differ from the index's (-index +manifest):\n%s", d.Platform, diff)
		}
		if m.Config.MediaType != types.OCIConfigJSON || len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
			t.Errorf("manifest config %s, layers %v", m.Config.MediaType, m.Layers)
		}
		raw, err := img.RawConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		if err := json.Unmarshal(raw, &cfg); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"architecture", "config", "created", "os", "rootfs"}, slices.Sorted(maps.Keys(cfg))); diff != "" {
			t.Errorf("config keys (-want +got):\n%s", diff)
		}
		if c, _ := cfg["config"].(map[string]any); len(c) != 0 {
			t.Errorf("config states %v; a declaration-only kit's config states only the platform", c)
		}
		layers, err := img.Layers()
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, e := range layerEntries(t, layers[0]) {
			fmt.Fprintf(&b, "%s mode=%o uid=%d gid=%d mtime=%d\n", e.Name, e.Mode, e.UID, e.GID, e.MTime)
			if e.Body != "" {
				fmt.Fprintf(&b, "%s\n", indent(e.Body))
			}
		}
		golden(t, "decl-mixin.layer", []byte(b.String()))
	}
}

func indent(s string) string {
	return "  | " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  | ")
}

func TestDeclarationOnlyReproducible(t *testing.T) {
	build := func(o Options) string {
		t.Helper()
		res, err := Build(context.Background(), nil, loadKit(t, "decl-mixin"), o, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Index.Digest.String()
	}
	first := build(Options{})
	if again := build(Options{}); again != first {
		t.Errorf("two builds gave %s and %s", first, again)
	}
	if other := build(Options{SourceDateEpoch: epoch(1)}); other == first {
		t.Errorf("another SOURCE_DATE_EPOCH gave the same digest %s", other)
	}
	if other := build(Options{Platforms: []string{"linux/arm64", "linux/amd64"}}); other == first {
		t.Errorf("another platform order gave the same digest %s", other)
	}
	// The digest is pinned: a change in the staged layer or the config
	// shows up here (update it deliberately).
	golden(t, "decl-mixin.digest", []byte(first+"\n"))
}

func TestBuildRefusals(t *testing.T) {
	tests := []struct {
		name string
		kit  string
		o    Options
		want func(error) bool
		msg  string
	}{
		{
			name: "undeclared build arg",
			kit:  "decl-mixin",
			o:    Options{BuildArgs: map[string]string{"nope": "1"}},
			want: func(err error) bool { var pe *DescriptorError; return errors.As(err, &pe) },
			msg:  `kit arg "nope" is not declared`,
		},
		{
			name: "required arg missing",
			kit:  "pinned-mixin",
			o:    Options{},
			want: func(err error) bool { var pe *DescriptorError; return errors.As(err, &pe) },
			msg:  `kit arg "base" is required`,
		},
		{
			name: "recipe without a builder",
			kit:  "companion-workload",
			want: func(err error) bool { return errors.Is(err, ErrNoSolver) },
			msg:  "content recipe is solved by BuildKit",
		},
		{
			name: "provenance without a builder",
			kit:  "decl-mixin",
			o:    Options{Provenance: true},
			want: func(err error) bool { return errors.Is(err, ErrNoSolver) },
			msg:  "provenance attestation is made by BuildKit",
		},
		{
			name: "unpinned mixin base",
			kit:  "pinned-mixin",
			o:    Options{BuildArgs: map[string]string{"base": "127.0.0.1:5000/kitsmith-test/base:1"}},
			want: func(err error) bool { return errors.Is(err, ErrUnpinnedBase) },
			msg:  "FROM 127.0.0.1:5000/kitsmith-test/base@sha256:<digest>",
		},
		{
			name: "provenance for a set",
			kit:  "set",
			o:    Options{Provenance: true},
			want: func(err error) bool { return err != nil },
			msg:  "not available for a kind: set",
		},
		{
			name: "bad platform",
			kit:  "decl-mixin",
			o:    Options{Platforms: []string{"linux/amd64", "not a platform"}},
			want: func(err error) bool { return err != nil },
			msg:  `platform "not a platform"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			tc.o.Outputs = append(tc.o.Outputs, Output{Type: OutputOCI, Dest: dir})
			_, err := Build(context.Background(), nil, loadKit(t, tc.kit), tc.o, nil)
			if err == nil || !tc.want(err) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error = %v, want one mentioning %q", err, tc.msg)
			}
			if m, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "*")); len(m) != 0 {
				t.Errorf("a failed build left %v", m)
			}
		})
	}
}

func TestEventsClosed(t *testing.T) {
	ev := make(chan progress.Event)
	var names []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range ev {
			if e.Step != nil && !e.Step.Completed.IsZero() {
				names = append(names, e.Step.Name)
			}
			if e.Step == nil || e.Status != nil {
				t.Errorf("an in-process build sent %+v; want only its own steps", e)
			}
		}
	}()
	if _, err := Build(context.Background(), nil, loadKit(t, "decl-mixin"), Options{}, ev); err != nil {
		t.Fatal(err)
	}
	<-done // Build closed the channel
	want := []string{
		"[kitsmith] stage the descriptor of decl-mixin",
		"[kitsmith] assemble decl-mixin in-process (declaration-only)",
		"[kitsmith] check the kit image against SPEC-v3",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

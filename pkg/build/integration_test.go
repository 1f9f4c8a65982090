package build

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/platforms"
	"github.com/moby/buildkit/client"
	"github.com/tonistiigi/fsutil"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Integration tests run against the BuildKit daemon at $BUILDKIT_HOST and
// the registry at $KITSMITH_TEST_REGISTRY, as scripts/services.sh starts
// them (scripts/test.sh). They skip when those are not set, unless
// KITSMITH_INTEGRATION=1, which makes a missing service a failure.

// integration returns what the integration tests need, or skips.
func integration(t testing.TB) (*client.Client, string) {
	t.Helper()
	host, reg := os.Getenv("BUILDKIT_HOST"), os.Getenv("KITSMITH_TEST_REGISTRY")
	must := os.Getenv("KITSMITH_INTEGRATION") == "1"
	if host == "" || reg == "" {
		if must {
			t.Fatalf("KITSMITH_INTEGRATION=1 but BUILDKIT_HOST=%q and KITSMITH_TEST_REGISTRY=%q; start the services with scripts/services.sh", host, reg)
		}
		t.Skip("BUILDKIT_HOST and KITSMITH_TEST_REGISTRY are not set (scripts/services.sh env)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.New(ctx, host)
	if err == nil {
		_, err = c.Info(ctx)
	}
	if err != nil {
		if must {
			t.Fatalf("BuildKit at %s: %v", host, err)
		}
		t.Skipf("BuildKit at %s: %v", host, err)
	}
	t.Cleanup(func() { c.Close() })
	return c, reg
}

// workerRuns reports whether one of the daemon's workers runs platform.
func workerRuns(t *testing.T, c *client.Client, platform string) bool {
	t.Helper()
	ws, err := c.ListWorkers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		for _, p := range w.Platforms {
			if platforms.Format(platforms.Normalize(p)) == platform {
				return true
			}
		}
	}
	return false
}

// checkArtifact opens a written kit image and fails the test on any
// failed conformance check.
func checkArtifact(t *testing.T, ref string, opts ...conform.Option) {
	t.Helper()
	a, err := artifact.Open(context.Background(), ref)
	if err != nil {
		t.Fatalf("opening %s: %v", ref, err)
	}
	rep, err := conform.Check(context.Background(), a, opts...)
	if err != nil {
		t.Fatalf("checking %s: %v", ref, err)
	}
	if rep.Failed() {
		t.Errorf("%s fails the check: %+v", ref, rep.Findings)
	}
	if len(rep.Platforms) == 0 {
		t.Errorf("%s: no platform judged", ref)
	}
}

// pushBase builds testdata/kits/base-image with a plain dockerfile.v0
// solve, pushes it and returns it pinned by digest.
func pushBase(t *testing.T, c *client.Client, reg string) string {
	t.Helper()
	dir := filepath.Join("testdata", "kits", "base-image")
	fs, err := fsutil.NewFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	ref := reg + "/kitsmith-it/base:1"
	resp, err := c.Solve(context.Background(), nil, client.SolveOpt{
		Frontend:      "dockerfile.v0",
		FrontendAttrs: map[string]string{"platform": "linux/amd64,linux/arm64", "build-arg:SOURCE_DATE_EPOCH": "0"},
		LocalMounts:   map[string]fsutil.FS{"context": fs, "dockerfile": fs},
		Exports: []client.ExportEntry{{Type: client.ExporterImage, Attrs: map[string]string{
			"name": ref, "push": "true", "oci-mediatypes": "true", "rewrite-timestamp": "true",
		}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return reg + "/kitsmith-it/base@" + resp.ExporterResponse["containerimage.digest"]
}

func TestIntegrationKits(t *testing.T) {
	c, reg := integration(t)
	base := pushBase(t, c, reg)
	// RUN needs the platform's binaries to execute: linux/arm64 only when
	// the daemon emulates it (qemu in binfmt_misc).
	runPlatforms := []string{"linux/amd64"}
	if workerRuns(t, c, "linux/arm64") {
		runPlatforms = append(runPlatforms, "linux/arm64")
	} else {
		t.Log("the daemon does not run linux/arm64; run-workload is built for linux/amd64 only")
	}
	tests := []struct {
		kit        string
		dir        string // a prepared copy of the kit; "" for testdata/kits/<kit>
		platforms  []string
		args       map[string]string
		route      Route
		kind       string
		has, lacks string // a path the first platform's layers must (not) hold
		env        string // the config's Env, joined with " "
	}{
		{kit: "decl-mixin", route: RouteInProcess, kind: spec.KindMixin},
		{kit: "companion-workload", route: RouteBuildKit, kind: spec.KindWorkload},
		{kit: "explicit-mixin", route: RouteBuildKit, kind: spec.KindMixin,
			has: "opt/tool/bin/tool", lacks: "opt/base/base.txt", env: "PATH=/opt/tool/bin"},
		{kit: "inline-mixin", route: RouteBuildKit, kind: spec.KindMixin, has: "opt/inline/hello.txt", env: "INLINE_KIT=1"},
		{kit: "comment-workload", route: RouteBuildKit, kind: spec.KindWorkload},
		{kit: "pinned-mixin", args: map[string]string{"base": base}, route: RouteBuildKit, kind: spec.KindMixin,
			has: "opt/extra/extra.txt", lacks: "etc/base-image.txt", env: "PATH=/opt/extra/bin"},
		{kit: "run-workload", dir: copyKit(t, "run-workload", map[string]string{"busybox": "file:/bin/busybox"}),
			platforms: runPlatforms, route: RouteBuildKit, kind: spec.KindWorkload, has: "etc/kit/greeting"},
	}
	for _, tc := range tests {
		t.Run(tc.kit, func(t *testing.T) {
			dir := tc.dir
			if dir == "" {
				dir = filepath.Join("testdata", "kits", tc.kit)
			}
			k, err := spec.LoadPath(dir)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "layout")
			ref := reg + "/kitsmith-it/" + tc.kit + ":1"
			res, err := Build(context.Background(), c, k, Options{
				Platforms: tc.platforms, BuildArgs: tc.args,
				Outputs: []Output{{Type: OutputOCI, Dest: out}, {Type: OutputRegistry, Dest: ref}},
			}, drain(t))
			if err != nil {
				t.Fatal(err)
			}
			if res.Route != tc.route || res.Kind != tc.kind {
				t.Errorf("route %s, kind %s; want %s, %s", res.Route, res.Kind, tc.route, tc.kind)
			}
			want := tc.platforms
			if want == nil {
				want = DefaultPlatforms()
			}
			if len(res.Manifests) != len(want) {
				t.Errorf("%d manifests, want %d", len(res.Manifests), len(want))
			}
			checkArtifact(t, "oci:"+out)
			checkArtifact(t, ref)

			idx := layoutIndex(t, out)
			im, _ := idx.IndexManifest()
			img, err := idx.Image(im.Manifests[0].Digest)
			if err != nil {
				t.Fatal(err)
			}
			layers, _ := img.Layers()
			files := map[string]bool{}
			for _, l := range layers {
				for _, e := range layerEntries(t, l) {
					files[e.Name] = true
				}
			}
			if !files["usr/share/sandbox/kit/"+k.Stem+"/kit.yaml"] {
				t.Errorf("no staged kit.yaml in %v", slices.Sorted(maps.Keys(files)))
			}
			if tc.has != "" && !files[tc.has] {
				t.Errorf("the layers lack %s: %v", tc.has, slices.Sorted(maps.Keys(files)))
			}
			if tc.lacks != "" && files[tc.lacks] {
				t.Errorf("the overlay carries its base's %s", tc.lacks)
			}
			cf, _ := img.ConfigFile()
			if tc.env != "" && strings.Join(cf.Config.Env, " ") != tc.env {
				t.Errorf("config Env %q, want %q", cf.Config.Env, tc.env)
			}
		})
	}
}

func TestIntegrationDetails(t *testing.T) {
	c, _ := integration(t)
	build := func(t *testing.T, kit string, o Options) *Result {
		t.Helper()
		res, err := Build(context.Background(), c, loadKit(t, kit), o, drain(t))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("reproducible", func(t *testing.T) {
		for _, kit := range []string{"companion-workload", "explicit-mixin"} {
			first := build(t, kit, Options{SourceDateEpoch: epoch(1700000000)})
			again := build(t, kit, Options{SourceDateEpoch: epoch(1700000000), NoCache: true})
			if first.Index.Digest != again.Index.Digest {
				t.Errorf("%s: two builds gave %s and %s", kit, first.Index.Digest, again.Index.Digest)
			}
		}
	})
	t.Run("derived provides", func(t *testing.T) {
		res := build(t, "companion-workload", Options{})
		want := []string{"io.kitsmith.test/workload", "deb/hello@2.10", "deb/tzdata@2024"}
		if strings.Join(res.Descriptor.Provides, " ") != strings.Join(want, " ") {
			t.Errorf("provides %v, want %v", res.Descriptor.Provides, want)
		}
		if !strings.Contains(string(res.DescriptorYAML), "- deb/hello@2.10") {
			t.Errorf("the staged descriptor lacks the derived provides:\n%s", res.DescriptorYAML)
		}
	})
	t.Run("provenance", func(t *testing.T) {
		for _, kit := range []string{"decl-mixin", "inline-mixin"} {
			res := build(t, kit, Options{Provenance: true})
			if res.Route != RouteBuildKit || res.Attestations != 2 || len(res.Manifests) != 2 {
				t.Errorf("%s: route %s, %d attestations, %d manifests", kit, res.Route, res.Attestations, len(res.Manifests))
			}
			if res.Annotations[artifact.AnnotationDescriptor] == "" {
				t.Errorf("%s: the index carries no kit annotations", kit)
			}
		}
	})
	t.Run("workload without entrypoint", func(t *testing.T) {
		k := writeKit(t, "noentry", `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: workload
version: "1.0.0"
build: |
  FROM scratch
  COPY noentry.yaml /kit.yaml
`)
		_, err := Build(context.Background(), c, k, Options{}, drain(t))
		if err == nil || !strings.Contains(err.Error(), "declares no ENTRYPOINT or CMD") {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("failing recipe", func(t *testing.T) {
		k := writeKit(t, "broken", `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
version: "1.0.0"
build: |
  FROM scratch
  COPY missing-file /x
`)
		out := filepath.Join(t.TempDir(), "out")
		_, err := Build(context.Background(), c, k, Options{Outputs: []Output{{Type: OutputOCI, Dest: out}}}, drain(t))
		if err == nil || !strings.Contains(err.Error(), "broken.yaml") || !strings.Contains(err.Error(), `"/missing-file": not found`) {
			t.Fatalf("error = %v", err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("a failed build wrote %s", out)
		}
	})
}

func TestIntegrationSet(t *testing.T) {
	c, reg := integration(t)
	// A namespace of this run's own: the registry is shared with other
	// checkouts' test runs, which push the same kits under the same tags.
	reg += fmt.Sprintf("/run-%d", time.Now().UnixNano())
	for kit, tag := range map[string]string{"decl-mixin": "1.0.0", "decl-mixin-b": "2.1.0", "companion-workload": "0.4.0"} {
		if _, err := Build(context.Background(), c, loadKit(t, kit), Options{
			Outputs: []Output{{Type: OutputRegistry, Dest: reg + "/kitsmith-test/" + kit + ":" + tag}},
		}, drain(t)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "set")
	ref := reg + "/kitsmith-it/set:1.0.0"
	build := func() *Result {
		res, err := Build(context.Background(), nil, loadKit(t, "set"), Options{
			BuildArgs: map[string]string{"registry": reg},
			Outputs:   []Output{{Type: OutputOCI, Dest: out}, {Type: OutputRegistry, Dest: ref}},
		}, drain(t))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := build()
	if first.Route != RouteSet || first.Kind != spec.KindWorkload || len(first.Manifests) != 2 {
		t.Errorf("route %s, kind %s, %d manifests", first.Route, first.Kind, len(first.Manifests))
	}
	if again := build(); again.Index.Digest != first.Index.Digest {
		t.Errorf("two builds gave %s and %s", first.Index.Digest, again.Index.Digest)
	}
	checkArtifact(t, "oci:"+out, conform.WithKitResolver(artifact.RegistryResolver()))
	checkArtifact(t, ref)
}

// drain returns an event channel whose events are read and dropped, and
// checks that Build closes it.
func drain(t testing.TB) chan<- progress.Event {
	ch := make(chan progress.Event)
	var wg sync.WaitGroup
	wg.Go(func() {
		for range ch {
		}
	})
	t.Cleanup(wg.Wait)
	return ch
}

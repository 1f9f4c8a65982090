package build

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/go-containerregistry/pkg/v1"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

func TestMakeOptions(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		ids     []string
		created string
		err     string
	}{
		{name: "defaults", ids: []string{"linux/amd64", "linux/arm64"}},
		{name: "normalised and deduplicated", o: Options{Platforms: []string{"linux/x86_64", " linux/amd64", "linux/aarch64", ""}}, ids: []string{"linux/amd64", "linux/arm64"}},
		{name: "epoch", o: Options{SourceDateEpoch: epoch(0)}, ids: []string{"linux/amd64", "linux/arm64"}, created: "1970-01-01T00:00:00Z"},
		{name: "negative epoch", o: Options{SourceDateEpoch: epoch(-1)}, err: "negative"},
		{name: "no platform", o: Options{Platforms: []string{" ", ""}}, err: "no platform"},
		{name: "bad platform", o: Options{Platforms: []string{"linux/amd64/v2/x"}}, err: "platform"},
		{name: "output twice", o: Options{Outputs: []Output{{Type: OutputOCI, Dest: "a"}, {Type: OutputOCI, Dest: "./a"}}}, err: "named twice"},
		{name: "bad output type", o: Options{Outputs: []Output{{Type: "docker", Dest: "a"}}}, err: "unknown type"},
		{name: "bad reference", o: Options{Outputs: []Output{{Type: OutputRegistry, Dest: "UPPER/case:tag"}}}, err: "registry:UPPER"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := makeOptions(tc.o)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.ids, got.ids); diff != "" {
				t.Errorf("platforms (-want +got):\n%s", diff)
			}
			if got.created != tc.created {
				t.Errorf("created = %q, want %q", got.created, tc.created)
			}
			if got.builtBy == nil || got.builtBy.Name != "kitsmith" || got.keychain == nil || got.TempDir == "" {
				t.Errorf("defaults not applied: %+v", got)
			}
		})
	}
}

func TestParseOutput(t *testing.T) {
	tests := []struct {
		in   string
		want Output
		err  string
	}{
		{in: "oci:out/kit", want: Output{Type: OutputOCI, Dest: "out/kit"}},
		{in: "oci-archive:kit.tar", want: Output{Type: OutputOCIArchive, Dest: "kit.tar"}},
		{in: "registry:127.0.0.1:5000/kits/x:1", want: Output{Type: OutputRegistry, Dest: "127.0.0.1:5000/kits/x:1"}},
		{in: "oci:", err: "write oci:DIR"},
		{in: "out", err: "write oci:DIR"},
		{in: "tar:x", err: "unknown type"},
		{in: "registry:oci:out", err: "not a registry reference"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseOutput(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.String() != tc.in {
				t.Errorf("String() = %q, want %q", got.String(), tc.in)
			}
		})
	}
}

func TestRecipeOptions(t *testing.T) {
	caller := map[string]string{
		"build-arg:BUILDKIT_SYNTAX": "x", "multi-platform": "true", "build-arg:BUILDKIT_MULTI_PLATFORM": "1",
		"cmdline": "x", "source": "x", "frontend.caps": "x", "requestid": "x", "dockerfilekey": "x",
		"attest:provenance": "mode=max", "build-arg:BUILDKIT_ATTEST_X": "1", "filename": "old", "platform": "old",
		"image-resolve-mode": "pull", "context:base": "docker-image://x", "build-arg:KEEP": "yes",
	}
	got := recipeOptions(caller, "kit.build.dockerfile", "linux/arm64", map[string]string{"SOURCE_DATE_EPOCH": "0", "V": "1"}, "base", true)
	want := map[string]string{
		"image-resolve-mode": "pull", "context:base": "docker-image://x", "build-arg:KEEP": "yes",
		"filename": "kit.build.dockerfile", "platform": "linux/arm64", "build-arg:SOURCE_DATE_EPOCH": "0",
		"build-arg:V": "1", "target": "base", "no-cache": "",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestConfigDelta(t *testing.T) {
	tests := []struct {
		name         string
		lower, upper ocispecs.ImageConfig
		want         ocispecs.ImageConfig
	}{
		{
			name:  "scratch defaults are not statements",
			lower: scratchDefaults(),
			upper: ocispecs.ImageConfig{Env: []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "A=1"}, WorkingDir: "/"},
			want:  ocispecs.ImageConfig{Env: []string{"A=1"}},
		},
		{
			name:  "PATH reduced to added elements",
			lower: ocispecs.ImageConfig{Env: []string{"PATH=/usr/bin:/bin", "HOME=/root"}},
			upper: ocispecs.ImageConfig{Env: []string{"PATH=/opt/x/bin:/usr/bin:/bin:/opt/x/bin:/opt/y", "HOME=/root"}},
			want:  ocispecs.ImageConfig{Env: []string{"PATH=/opt/x/bin:/opt/y"}},
		},
		{
			name:  "changed values and contract fields",
			lower: ocispecs.ImageConfig{Env: []string{"A=1"}, User: "root", Cmd: []string{"sh"}, Labels: map[string]string{"a": "1", "b": "2"}, ExposedPorts: map[string]struct{}{"80/tcp": {}}},
			upper: ocispecs.ImageConfig{Env: []string{"A=2"}, User: "agent", Cmd: []string{"sh"}, Entrypoint: []string{"/x"}, WorkingDir: "/w", StopSignal: "SIGINT",
				Labels: map[string]string{"a": "1", "b": "3", "c": "4"}, ExposedPorts: map[string]struct{}{"80/tcp": {}, "8080/tcp": {}}, Volumes: map[string]struct{}{"/data": {}}},
			want: ocispecs.ImageConfig{Env: []string{"A=2"}, User: "agent", Entrypoint: []string{"/x"}, WorkingDir: "/w", StopSignal: "SIGINT",
				Labels: map[string]string{"b": "3", "c": "4"}, ExposedPorts: map[string]struct{}{"8080/tcp": {}}, Volumes: map[string]struct{}{"/data": {}}},
		},
		{name: "nothing stated", lower: ocispecs.ImageConfig{Env: []string{"A=1"}}, upper: ocispecs.ImageConfig{Env: []string{"A=1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, configDelta(tc.lower, tc.upper)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFinalStageBase(t *testing.T) {
	tests := []struct {
		name   string
		recipe string
		args   map[string]string
		want   finalBase
		err    string
	}{
		{name: "scratch", recipe: "FROM scratch\nCOPY a /a\n", want: finalBase{name: "scratch"}},
		{name: "earlier stage", recipe: "FROM scratch AS Base\nCOPY a /a\nFROM base\nCOPY b /b\n", want: finalBase{name: "base", stage: true}},
		{name: "image", recipe: "FROM scratch AS b\nFROM alpine@sha256:0123\n", want: finalBase{name: "alpine@sha256:0123"}},
		{name: "meta arg default", recipe: "ARG BASE=debian:12\nFROM ${BASE}\n", want: finalBase{name: "debian:12"}},
		{name: "build arg wins", recipe: "ARG BASE=debian:12\nFROM $BASE\n", args: map[string]string{"BASE": "r/x@sha256:1"}, want: finalBase{name: "r/x@sha256:1"}},
		{name: "unresolved", recipe: "ARG BASE\nFROM ${BASE}\n", err: "does not expand"},
		{name: "no FROM", recipe: "# nothing\n", err: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := finalStageBase([]byte(tc.recipe), tc.args)
			if tc.name == "no FROM" {
				if err == nil {
					t.Fatal("no error for a recipe without FROM")
				}
				return
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(finalBase{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPinnedBase(t *testing.T) {
	const d = "sha256:0123456789012345678901234567890123456789012345678901234567890123"
	if got, err := pinnedBase("127.0.0.1:5000/base@"+d, "r"); err != nil || got != "127.0.0.1:5000/base@"+d {
		t.Errorf("pinned = %q, %v", got, err)
	}
	if got, err := pinnedBase("debian:12@"+d, "r"); err != nil || got != "docker.io/library/debian:12@"+d {
		t.Errorf("tag and digest = %q, %v", got, err)
	}
	_, err := pinnedBase("debian:12", "kit.dockerfile")
	if !errors.Is(err, ErrUnpinnedBase) || !strings.Contains(err.Error(), "FROM docker.io/library/debian@sha256:<digest>") {
		t.Errorf("unpinned: %v", err)
	}
}

func TestWithDerivedProvides(t *testing.T) {
	pub := []byte(`# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: workload
version: "1.0.0"
# what the kit offers
provides: [io.example/tool]
`)
	d, y, err := withDerivedProvides(pub, "tool", []string{"deb/bash@5.2", "deb/coreutils@9.1"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"io.example/tool", "deb/bash@5.2", "deb/coreutils@9.1"}, d.Provides); diff != "" {
		t.Errorf("provides (-want +got):\n%s", diff)
	}
	golden(t, "derived-provides.yaml", y)

	if _, _, err := withDerivedProvides([]byte("schemaVersion: \"3\"\nkind: workload\nversion: \"1\"\n"), "x", []string{"deb/a@1"}); err != nil {
		t.Errorf("no provides key: %v", err)
	}
	for _, bad := range []string{
		"schemaVersion: \"3\"\nkind: workload\nversion: \"1\"\nprovides: oops\n",
		"schemaVersion: \"3\"\nkind: workload\nversion: \"1\"\nprovides: &p [a/b]\nconflicts: *p\n",
	} {
		if _, _, err := withDerivedProvides([]byte(bad), "x", []string{"deb/a@1"}); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

func TestStagedDirs(t *testing.T) {
	got := stagedDirs([]stagedFile{{Path: "/usr/share/sandbox/kit/a/context-0/x.md"}, {Path: "/usr/share/sandbox/kit/a/kit.yaml"}})
	want := []string{"/usr", "/usr/share", "/usr/share/sandbox", "/usr/share/sandbox/kit", "/usr/share/sandbox/kit/a", "/usr/share/sandbox/kit/a/context-0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestMergeConfigs(t *testing.T) {
	m := func(ref string, env map[string]string) *member { return &member{ref: ref, env: env} }
	tests := []struct {
		name    string
		stack   []*member
		configs []v1.Config
		kind    string
		want    v1.Config
		err     string
	}{
		{
			name:  "workload anchors, mixins add",
			stack: []*member{m("w", nil), m("a", map[string]string{"TOKEN_FILE": "/run/t"}), m("b", nil)},
			configs: []v1.Config{
				{Entrypoint: []string{"/bin/agent"}, User: "agent", Env: []string{"PATH=/usr/bin:/bin", "HOME=/home/agent"}, Labels: map[string]string{"l": "w"}},
				{Entrypoint: []string{"/ignored"}, Env: []string{"PATH=/opt/a/bin", "A=1"}, ExposedPorts: map[string]struct{}{"80/tcp": {}}},
				{Env: []string{"PATH=/opt/b/bin:/usr/bin"}, Labels: map[string]string{"l": "b"}, Volumes: map[string]struct{}{"/data": {}}},
			},
			kind: spec.KindWorkload,
			want: v1.Config{Entrypoint: []string{"/bin/agent"}, User: "agent",
				Env:    []string{"PATH=/usr/bin:/bin:/opt/a/bin:/opt/b/bin", "HOME=/home/agent", "A=1", "TOKEN_FILE=/run/t"},
				Labels: map[string]string{"l": "b"}, ExposedPorts: map[string]struct{}{"80/tcp": {}}, Volumes: map[string]struct{}{"/data": {}}},
		},
		{
			name:    "conflicting variable",
			stack:   []*member{m("w", nil), m("a", nil)},
			configs: []v1.Config{{Env: []string{"EDITOR=vi"}}, {Env: []string{"EDITOR=nano"}}},
			kind:    spec.KindWorkload,
			err:     "w and a set EDITOR to different values",
		},
		{
			name:    "one mixin states a contract",
			stack:   []*member{m("a", nil), m("b", nil)},
			configs: []v1.Config{{Cmd: []string{"tool"}}, {Env: []string{"B=1"}}},
			kind:    spec.KindMixin,
			want:    v1.Config{Cmd: []string{"tool"}, Env: []string{"B=1"}},
		},
		{
			name:    "two mixins state contracts",
			stack:   []*member{m("a", nil), m("b", nil)},
			configs: []v1.Config{{Cmd: []string{"tool"}}, {User: "x"}},
			kind:    spec.KindMixin,
			want:    v1.Config{},
		},
		{
			name:    "exports disagree",
			stack:   []*member{m("a", map[string]string{"X": "1"}), m("b", map[string]string{"X": "2"})},
			configs: []v1.Config{{}, {}},
			kind:    spec.KindMixin,
			err:     "a and b export X",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mergeConfigs(tc.stack, tc.configs, tc.kind)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

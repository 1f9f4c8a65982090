package build

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// workloadConfig is the fake workload's image config.
func workloadConfig() v1.Config {
	return v1.Config{Entrypoint: []string{"/usr/local/bin/hello"}, Env: []string{"PATH=/usr/bin:/bin"}, WorkingDir: "/"}
}

// setRegistry holds the kits the test set lists.
func setRegistry(t *testing.T) *kitRegistry {
	t.Helper()
	reg := newRegistry(t)
	reg.push(t, "decl-mixin", "1.0.0", Options{})
	reg.push(t, "decl-mixin-b", "2.1.0", Options{})
	reg.pushIndex(t, fakeWorkload(t, "companion-workload", nil, workloadConfig()), "companion-workload", "0.4.0")
	return reg
}

func TestSet(t *testing.T) {
	reg := setRegistry(t)
	dir := filepath.Join(t.TempDir(), "set")
	res, err := Build(context.Background(), nil, loadKit(t, "set"), Options{
		BuildArgs: map[string]string{"registry": reg.host},
		Outputs:   []Output{{Type: OutputOCI, Dest: dir}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Route != RouteSet || res.Kind != spec.KindWorkload {
		t.Errorf("route %s, kind %s; want set, workload", res.Route, res.Kind)
	}
	golden(t, "set.kit.yaml", []byte(strings.ReplaceAll(string(res.DescriptorYAML), reg.host, "REGISTRY")))

	idx := layoutIndex(t, dir)
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	// The members' layer blobs are reused as they are: the workload's
	// first, then the mixins' in dependency order, then the set's own.
	var want []string
	for _, kit := range []string{"companion-workload:0.4.0", "decl-mixin:1.0.0", "decl-mixin-b:2.1.0"} {
		lp := memberLayers(t, reg, kit)
		want = append(want, lp...)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range layers[:len(layers)-1] {
		d, _ := l.Digest()
		got = append(got, d.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layers (-members +set):\n%s", diff)
	}
	var staged strings.Builder
	for _, e := range layerEntries(t, layers[len(layers)-1]) {
		fmt.Fprintf(&staged, "%s mode=%o\n", e.Name, e.Mode)
		if strings.HasSuffix(e.Name, ".md") {
			fmt.Fprintf(&staged, "%s\n", indent(e.Body))
		}
	}
	golden(t, "set.staged", []byte(strings.ReplaceAll(staged.String(), reg.host, "REGISTRY")))
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(workloadConfig(), cf.Config); diff != "" {
		t.Errorf("config (-workload +set):\n%s", diff)
	}

	again, err := Build(context.Background(), nil, loadKit(t, "set"), Options{BuildArgs: map[string]string{"registry": reg.host}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Index.Digest != res.Index.Digest {
		t.Errorf("two builds of the set gave %s and %s", res.Index.Digest, again.Index.Digest)
	}
}

// memberLayers returns the layer digests of a pushed kit's first platform.
func memberLayers(t *testing.T, reg *kitRegistry, ref string) []string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "m")
	k := writeKit(t, "probe", fmt.Sprintf(`# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: set
kits:
  - ref: %s/kitsmith-test/%s
`, reg.host, ref))
	if _, err := Build(context.Background(), nil, k, Options{Outputs: []Output{{Type: OutputOCI, Dest: dir}}}, nil); err != nil {
		t.Fatal(err)
	}
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	_ = lp
	idx := layoutIndex(t, dir)
	im, _ := idx.IndexManifest()
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	layers, _ := img.Layers()
	var out []string
	for _, l := range layers[:len(layers)-1] { // without the probe set's own staged layer
		d, _ := l.Digest()
		out = append(out, d.String())
	}
	return out
}

// writeKit writes a descriptor <stem>.yaml into a new directory and loads
// it.
func writeKit(t testing.TB, stem, yaml string, files ...string) *spec.Kit {
	t.Helper()
	dir := filepath.Join(t.TempDir(), stem)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, stem+".yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(files); i += 2 {
		if err := os.WriteFile(filepath.Join(dir, files[i]), []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k, err := spec.LoadPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// mixinYAML is a declaration-only mixin descriptor with extra lines.
func mixinYAML(version, extra string) string {
	return `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
version: "` + version + `"
` + extra
}

func TestSetRefusals(t *testing.T) {
	reg := setRegistry(t)
	push := func(stem, tag, yaml string, o Options) {
		t.Helper()
		o.Outputs = []Output{{Type: OutputRegistry, Dest: reg.host + "/kitsmith-test/" + stem + ":" + tag}}
		if _, err := Build(context.Background(), nil, writeKit(t, stem, yaml), o, nil); err != nil {
			t.Fatal(err)
		}
	}
	push("res-a", "1.0.0", mixinYAML("1.0.0", "provides: [io.kitsmith.test/res-a]\ncapabilities:\n  - type: com.docker.sandbox/resources@1\n    config: {memory: 2g}\n"), Options{})
	push("res-b", "1.0.0", mixinYAML("1.0.0", "provides: [io.kitsmith.test/res-b]\ncapabilities:\n  - type: com.docker.sandbox/resources@1\n    config: {memory: 4g}\n"), Options{})
	push("vol-a", "1.0.0", mixinYAML("1.0.0", "provides: [io.kitsmith.test/vol-a]\ncapabilities:\n  - type: com.docker.sandbox/volume@1\n    config: {path: /data, mode: \"0755\"}\n"), Options{})
	push("vol-b", "1.0.0", mixinYAML("1.0.0", "provides: [io.kitsmith.test/vol-b]\ncapabilities:\n  - type: com.docker.sandbox/volume@1\n    config: {path: /data/, mode: \"0700\"}\n"), Options{})
	push("hater", "1.0.0", mixinYAML("1.0.0", "provides: [io.kitsmith.test/hater]\nconflicts: [io.kitsmith.test/decl]\n"), Options{})
	push("dup-provider", "1.0.0", mixinYAML("1.0.0", "provides: [io.kitsmith.test/decl]\n"), Options{})
	push("amd64-only", "1.0.0", mixinYAML("1.0.0", "provides: [io.kitsmith.test/amd64]\n"), Options{Platforms: []string{"linux/amd64"}})
	if _, err := Build(context.Background(), nil, writeKit(t, "decl-mixin", loadKitSource(t, "decl-mixin"), "CONTEXT.md", "## old\n"),
		Options{BuildArgs: map[string]string{"version": "0.5.0"}, Outputs: []Output{{Type: OutputRegistry, Dest: reg.host + "/kitsmith-test/decl-mixin:0.5.0"}}}, nil); err != nil {
		t.Fatal(err)
	}
	reg.pushIndex(t, fakeWorkload(t, "comment-workload", nil, workloadConfig()), "comment-workload", "0.2.0")

	set := func(head string, refs ...string) string {
		s := "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\n" + head + "kits:\n"
		for _, r := range refs {
			s += "  - ref: " + reg.host + "/kitsmith-test/" + r + "\n"
		}
		return s
	}
	tests := []struct {
		name, stem, yaml, want string
	}{
		{"two workloads", "s", set("kind: set\n", "companion-workload:0.4.0", "comment-workload:0.2.0"), "lists two workloads"},
		{"authored kind disagrees", "s", set("kind: mixin\n", "companion-workload:0.4.0", "decl-mixin:1.0.0"), "make it a workload"},
		{"singleton configs differ", "s", set("kind: set\n", "res-a:1.0.0", "res-b:1.0.0"), "both declare com.docker.sandbox/resources@1 with different configs"},
		{"instance key configs differ", "s", set("kind: set\n", "vol-a:1.0.0", "vol-b:1.0.0"), "volume@1 for /data with different configs"},
		{"conflict inside the set", "s", set("kind: set\n", "decl-mixin:1.0.0", "hater:1.0.0"), "would exclude itself"},
		{"one name, two owners", "s", set("kind: set\n", "decl-mixin:1.0.0", "dup-provider:1.0.0"), "both provide io.kitsmith.test/decl"},
		{"unsatisfiable requirement", "s", set("kind: set\n", "decl-mixin:0.5.0", "decl-mixin-b:2.1.0"), "could never satisfy it"},
		{"missing platform", "s", set("kind: set\n", "amd64-only:1.0.0"), "has no linux/arm64 image"},
		{"stem collision", "decl-mixin", set("kind: set\n", "decl-mixin:1.0.0"), "both stage their sources in /usr/share/sandbox/kit/decl-mixin"},
		{"unknown kit arg", "s", set("kind: set\n", "decl-mixin-b:2.1.0") + "    args: {nope: x}\n", `names "nope", which the kit does not declare`},
		{"re-export of an undeclared set arg", "s", set("kind: set\n", "decl-mixin-b:2.1.0") + "    args: {greeting: \"${{ kit.args.hello }}\"}\n", `declares no arg "hello"`},
		{"not a kit", "s", set("kind: set\n", "nothing-here:1"), "kits[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			_, err := Build(context.Background(), nil, writeKit(t, tc.stem, tc.yaml), Options{Outputs: []Output{{Type: OutputOCI, Dest: dir}}}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one mentioning %q", err, tc.want)
			}
			if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
				t.Errorf("a refused set wrote %s", dir)
			}
		})
	}
}

func loadKitSource(t *testing.T, kit string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kits", kit, kit+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSetArgsAndReexport(t *testing.T) {
	reg := setRegistry(t)
	k := writeKit(t, "greeter", fmt.Sprintf(`# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: set
version: "3.0.0"
args:
  greeting:
    description: What to say at startup.
    default: hi
kits:
  - ref: %s/kitsmith-test/decl-mixin:1.0.0
  - ref: %s/kitsmith-test/decl-mixin-b:2.1.0
    args:
      greeting: ${{ kit.args.greeting }}
`, reg.host, reg.host))
	res, err := Build(context.Background(), nil, k, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != spec.KindMixin {
		t.Errorf("kind %s, want mixin (no workload listed)", res.Kind)
	}
	y := string(res.DescriptorYAML)
	if !strings.Contains(y, "command: echo ${{ kit.args.greeting }}") || !strings.Contains(y, "greeting:\n") {
		t.Errorf("the re-exported arg did not reach the merged descriptor:\n%s", y)
	}
}

// rewriteHost sends every request for host "from" to "to": a set built
// with it reaches its kits only through Options.Transport.
type rewriteHost struct {
	from, to string
	n        atomic.Int64
}

func (r *rewriteHost) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == r.from {
		req = req.Clone(req.Context())
		req.URL.Host, req.Host = r.to, r.to
		r.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestSetUsesTransport: the kits a set lists are read, and the merged set
// checked against them, through Options.Transport (it was dropped when
// checking).
func TestSetUsesTransport(t *testing.T) {
	reg := setRegistry(t)
	const unreachable = "127.0.0.1:1"
	rt := &rewriteHost{from: unreachable, to: reg.host}
	res, err := Build(context.Background(), nil, loadKit(t, "set"), Options{
		BuildArgs: map[string]string{"registry": unreachable},
		Transport: rt,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Check == nil {
		t.Fatal("no check report")
	}
	for _, f := range res.Check.Findings {
		if f.Check == "merged-set-declarations" && f.Severity == conform.SeveritySkip {
			t.Errorf("merged-set-declarations skipped: %s", f.Message)
		}
	}
	if rt.n.Load() == 0 {
		t.Error("no request went through Options.Transport")
	}
	if _, err := Build(context.Background(), nil, loadKit(t, "set"), Options{
		BuildArgs: map[string]string{"registry": unreachable}, Transport: rt, InsecureRegistry: true,
	}, nil); err == nil || !strings.Contains(err.Error(), "InsecureRegistry and Transport") {
		t.Errorf("Transport with InsecureRegistry: error = %v", err)
	}
}

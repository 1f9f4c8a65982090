package artifacttest

import (
	"encoding/json"
	"io"
	"maps"
	"path"
	"slices"
	"testing"
	"testing/fstest"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Kit is a kit image under construction: its published descriptor and
// annotations, content, staged sources and config, built once per
// platform. Change the fields, then call Index, Images or Artifact.
type Kit struct {
	// Stem names the staged root, /usr/share/sandbox/kit/<Stem>.
	Stem       string
	Descriptor *spec.Descriptor
	// Annotations go on every manifest, IndexAnnotations on the index
	// (nil: none).
	Annotations      map[string]string
	IndexAnnotations map[string]string
	// Content is the first layer (none when empty).
	Content []Entry
	// Staged maps file names under the stem to their bodies, staged in the
	// second layer (none when nil).
	Staged map[string]string
	// Extra layers come last.
	Extra     []v1.Layer
	Config    v1.Config
	Platforms []string
}

// BuiltBy is the built-by stamp of test kits.
func BuiltBy() *artifact.BuiltBy {
	return &artifact.BuiltBy{Name: "kitsmith", Version: "v0.0.0-test", Revision: "0123456789abcdef"}
}

// NewKit loads authored sources (path → body) and publishes the kit at
// name as a build would: published descriptor, annotations promoted to the
// index, staged kit.yaml, recipe and context bodies, for linux/amd64 and
// linux/arm64.
func NewKit(t testing.TB, files map[string]string, name string) *Kit {
	t.Helper()
	fsys := fstest.MapFS{}
	for p, body := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(body)}
	}
	k, err := spec.Load(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	pub, rep := k.Publish(nil)
	if pub == nil {
		t.Fatalf("publishing %s: %v", name, rep.Err())
	}
	ann, err := artifact.Annotations(pub.Descriptor, BuiltBy(), "")
	if err != nil {
		t.Fatal(err)
	}
	staged := map[string]string{artifact.StagedDescriptor: string(pub.YAML)}
	if k.Recipe != nil {
		staged[artifact.StagedRecipe] = string(k.Recipe.Text)
	}
	for dst, src := range pub.Staged {
		staged[path.Base(dst)] = string(k.Files[src])
	}
	return &Kit{Stem: k.Stem, Descriptor: pub.Descriptor, Annotations: ann, IndexAnnotations: maps.Clone(ann), Staged: staged,
		Platforms: []string{"linux/amd64", "linux/arm64"}}
}

// SetDescriptor replaces the published descriptor everywhere: the
// annotations (recomputed, index included) and the staged kit.yaml
// (written as JSON, which is YAML).
func (k *Kit) SetDescriptor(t testing.TB, d *spec.Descriptor) *Kit {
	t.Helper()
	ann, err := artifact.Annotations(d, BuiltBy(), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	k.Descriptor, k.Annotations, k.IndexAnnotations = d, ann, maps.Clone(ann)
	if k.Staged == nil {
		k.Staged = map[string]string{}
	}
	k.Staged[artifact.StagedDescriptor] = spec.SyntaxLine + "\n" + string(b) + "\n"
	return k
}

// Edit changes a copy of the descriptor and sets it with SetDescriptor.
func (k *Kit) Edit(t testing.TB, fn func(d *spec.Descriptor)) *Kit {
	t.Helper()
	d := *k.Descriptor
	fn(&d)
	return k.SetDescriptor(t, &d)
}

// SetAnnotation sets an annotation on the manifests and the index.
func (k *Kit) SetAnnotation(key, value string) *Kit {
	k.Annotations[key] = value
	if k.IndexAnnotations != nil {
		k.IndexAnnotations[key] = value
	}
	return k
}

// DeleteAnnotation removes an annotation from the manifests and the index.
func (k *Kit) DeleteAnnotation(key string) *Kit {
	delete(k.Annotations, key)
	delete(k.IndexAnnotations, key)
	return k
}

// Replace swaps the content entry of the same name.
func (k *Kit) Replace(t testing.TB, e Entry) *Kit {
	t.Helper()
	i := slices.IndexFunc(k.Content, func(c Entry) bool { return c.Name == e.Name })
	if i < 0 {
		t.Fatalf("no content entry %s", e.Name)
	}
	k.Content[i] = e
	return k
}

// Remove drops the content entry of that name.
func (k *Kit) Remove(t testing.TB, name string) *Kit {
	t.Helper()
	i := slices.IndexFunc(k.Content, func(c Entry) bool { return c.Name == name })
	if i < 0 {
		t.Fatalf("no content entry %s", name)
	}
	k.Content = slices.Delete(k.Content, i, i+1)
	return k
}

// StagedLayer is the layer of staged sources.
func (k *Kit) StagedLayer(t testing.TB) v1.Layer {
	t.Helper()
	root := path.Join(artifact.StagedRoot, k.Stem)[1:]
	es := []Entry{Dir("usr/", 0), Dir("usr/share/", 0), Dir("usr/share/sandbox/", 0), Dir("usr/share/sandbox/kit/", 0), Dir(root+"/", 0)}
	for _, name := range slices.Sorted(maps.Keys(k.Staged)) {
		es = append(es, File(path.Join(root, name), k.Staged[name]))
	}
	return OCILayer(t, es...)
}

// Layers are the kit's layers: content, staged sources, extras.
func (k *Kit) Layers(t testing.TB) []v1.Layer {
	t.Helper()
	var layers []v1.Layer
	if len(k.Content) > 0 {
		layers = append(layers, OCILayer(t, k.Content...))
	}
	if k.Staged != nil {
		layers = append(layers, k.StagedLayer(t))
	}
	return append(layers, k.Extra...)
}

// Images builds one image per platform.
func (k *Kit) Images(t testing.TB) []v1.Image {
	t.Helper()
	layers := k.Layers(t)
	var out []v1.Image
	for _, p := range k.Platforms {
		out = append(out, Image(t, p, k.Config, k.Annotations, layers...))
	}
	return out
}

// Index builds the kit's multi-platform index.
func (k *Kit) Index(t testing.TB) v1.ImageIndex {
	t.Helper()
	return Index(t, k.IndexAnnotations, k.Platforms, k.Images(t)...)
}

// Artifact wraps the kit's index in memory.
func (k *Kit) Artifact(t testing.TB) *artifact.Artifact { return artifact.FromIndex(k.Index(t)) }

// MixinFiles are the authored sources of the "tool" mixin: a companion
// recipe, a network policy and an agent-context body.
var MixinFiles = map[string]string{
	"tool/tool.yaml": `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
displayName: Tool
description: A tool for tests.
author: Kit Smith <kit@example.com>
sourceUrl: https://example.com/tool
licenses: [MIT, Apache-2.0]
version: "1.2.0"
provides: ["tool"]
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime:
        allow: [example.com]
  - type: com.docker.sandbox/agent-context@1
    config:
      contentFile: ./context.md
`,
	"tool/tool.dockerfile": "FROM scratch\nCOPY --chown=0:0 home/ /home/\nCOPY --chown=1000:1000 files/ /home/agent/\n",
	"tool/context.md":      "Use the tool.\n",
}

// Mixin is a conforming two-platform mixin, "tool": a root-owned /home,
// /home/agent owned by uid 1000, a binary and a link to it.
func Mixin(t testing.TB) *Kit {
	t.Helper()
	k := NewKit(t, MixinFiles, "tool/tool.yaml")
	k.Content = []Entry{
		Dir("home/", 0), Dir("home/agent/", 1000),
		{Name: "home/agent/.toolrc", Mode: 0o644, UID: 1000, GID: 1000, Body: "tool=1\n"},
		Dir("usr/", 0), Dir("usr/local/", 0), Dir("usr/local/bin/", 0),
		Exe("usr/local/bin/tool", "#!/bin/sh\n"), Symlink("usr/local/bin/t", "tool"),
	}
	return k
}

// WorkloadFiles are the authored sources of the "shell" workload, which
// declares sbx@1.
var WorkloadFiles = map[string]string{
	"shell/shell.yaml": `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: workload
displayName: Shell
version: "1.0.0"
provides: ["shell"]
capabilities:
  - type: com.docker.sandbox/sbx@1
`,
	"shell/shell.dockerfile": "FROM debian:bookworm-slim\nUSER agent\n",
}

// DpkgStatus is the package database of the Workload kit.
const DpkgStatus = "Package: bash\nStatus: install ok installed\nVersion: 5.2.15-2+b2\n\nPackage: dash\nStatus: install ok installed\nVersion: 0.5.12-2\n"

// Workload is a conforming two-platform workload, "shell", on a merged-/usr
// root filesystem (/bin → usr/bin), declaring sbx@1 (bash, sh, USER agent
// in /etc/passwd, BASH_ENV), with deb/ provides derived from DpkgStatus.
func Workload(t testing.TB) *Kit {
	t.Helper()
	k := NewKit(t, WorkloadFiles, "shell/shell.yaml")
	k.Edit(t, func(d *spec.Descriptor) {
		d.Provides = append(slices.Clone(d.Provides), conform.DerivedProvides([]byte(DpkgStatus), nil)...)
	})
	k.Content = []Entry{
		Symlink("bin", "usr/bin"), Dir("usr/", 0), Dir("usr/bin/", 0),
		Exe("usr/bin/bash", "ELF"), Exe("usr/bin/dash", "ELF"), Symlink("usr/bin/sh", "dash"),
		Dir("etc/", 0),
		File("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nagent:x:1000:1000::/home/agent:/bin/bash\n"),
		File("etc/group", "root:x:0:\nagent:x:1000:\n"),
		File("etc/sandbox-persistent.sh", "# persistent env\n"),
		Dir("var/", 0), Dir("var/lib/", 0), Dir("var/lib/dpkg/", 0), File("var/lib/dpkg/status", DpkgStatus),
		Dir("home/", 0), Dir("home/agent/", 1000),
	}
	k.Config = v1.Config{User: "agent", Entrypoint: []string{"/bin/bash"}, Env: []string{"BASH_ENV=/etc/sandbox-persistent.sh"}}
	return k
}

// DockerClassic is the Mixin kit as Docker's default build driver (the
// classic image store) pushes it: a Docker manifest list of Docker v2
// manifests with Docker config and layer media types, and no annotations.
func DockerClassic(t testing.TB) v1.ImageIndex {
	t.Helper()
	k := Mixin(t)
	staged, err := k.StagedLayer(t).Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(staged)
	if err != nil {
		t.Fatal(err)
	}
	layers := []v1.Layer{Layer(t, types.DockerLayer, k.Content...), BytesLayer(t, types.DockerLayer, b)}
	var imgs []v1.Image
	for _, p := range k.Platforms {
		img := Image(t, p, v1.Config{}, nil, layers...)
		img = mutate.MediaType(img, types.DockerManifestSchema2)
		img = mutate.ConfigMediaType(img, types.DockerConfigJSON)
		imgs = append(imgs, img)
	}
	return mutate.IndexMediaType(Index(t, nil, k.Platforms, imgs...), types.DockerManifestList)
}

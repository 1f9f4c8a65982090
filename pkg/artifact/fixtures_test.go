package artifact

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"path"
	"slices"
	"testing"
	"testing/fstest"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// entry is one tar entry of a test layer.
type entry struct {
	name string
	typ  byte // tar.TypeReg when zero
	mode int64
	uid  int
	gid  int
	body string
	link string
}

func dir(name string, uid int) entry {
	return entry{name: name, typ: tar.TypeDir, mode: 0o755, uid: uid, gid: uid}
}
func file(name, body string) entry { return entry{name: name, mode: 0o644, body: body} }
func exe(name, body string) entry  { return entry{name: name, mode: 0o755, body: body} }
func symlink(name, target string) entry {
	return entry{name: name, typ: tar.TypeSymlink, mode: 0o777, link: target}
}

// tarBytes writes entries as an uncompressed tar.
func tarBytes(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: e.mode, Uid: e.uid, Gid: e.gid, Linkname: e.link, Format: tar.FormatPAX}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := io.WriteString(tw, e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// layer makes a gzipped layer of the given media type.
func layerOf(t testing.TB, mt types.MediaType, entries ...entry) v1.Layer {
	t.Helper()
	b := tarBytes(t, entries...)
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(mt))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func ociLayer(t testing.TB, entries ...entry) v1.Layer { return layerOf(t, types.OCILayer, entries...) }

// published loads an authored kit from files and publishes it.
func published(t testing.TB, files map[string]string, name string) (*spec.Kit, *spec.Published) {
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
	return k, pub
}

// image assembles a single-platform OCI image.
func image(t testing.TB, platform string, cfg v1.Config, ann map[string]string, layers ...v1.Layer) v1.Image {
	t.Helper()
	p, err := v1.ParsePlatform(platform)
	if err != nil {
		t.Fatal(err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{OS: p.OS, Architecture: p.Architecture, Variant: p.Variant,
		RootFS: v1.RootFS{Type: "layers"}, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		if img, err = mutate.Append(img, mutate.Addendum{Layer: l}); err != nil {
			t.Fatal(err)
		}
	}
	if ann != nil {
		img = mutate.Annotations(img, ann).(v1.Image)
	}
	return img
}

// index assembles an OCI index of images keyed by platform, in order.
func index(t testing.TB, ann map[string]string, platforms []string, imgs ...v1.Image) v1.ImageIndex {
	t.Helper()
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for i, img := range imgs {
		p, err := v1.ParsePlatform(platforms[i])
		if err != nil {
			t.Fatal(err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: p}})
	}
	if ann != nil {
		idx = mutate.Annotations(idx, ann).(v1.ImageIndex)
	}
	return idx
}

// kit is a test kit image under construction: its published descriptor,
// annotations, content layers, staged files and config, per platform.
type kit struct {
	stem      string
	d         *spec.Descriptor
	ann       map[string]string
	indexAnn  map[string]string
	content   []entry
	staged    map[string]string // staged file name (under the stem) → body
	extra     []v1.Layer
	config    v1.Config
	platforms []string
}

func kitBuiltBy() *BuiltBy {
	return &BuiltBy{Name: "kitsmith", Version: "v0.0.0-test", Revision: "0123456789abcdef"}
}

// newKit starts a kit from authored sources, as a build would publish it.
func newKit(t testing.TB, files map[string]string, name string) *kit {
	t.Helper()
	k, pub := published(t, files, name)
	ann, err := Annotations(pub.Descriptor, kitBuiltBy(), "")
	if err != nil {
		t.Fatal(err)
	}
	staged := map[string]string{StagedDescriptor: string(pub.YAML)}
	if k.Recipe != nil {
		staged[StagedRecipe] = string(k.Recipe.Text)
	}
	for dst, src := range pub.Staged {
		staged[path.Base(dst)] = string(k.Files[src])
	}
	return &kit{stem: k.Stem, d: pub.Descriptor, ann: ann, indexAnn: maps.Clone(ann), staged: staged,
		platforms: []string{"linux/amd64", "linux/arm64"}}
}

// setDescriptor replaces the published descriptor everywhere (annotations,
// index, staged kit.yaml as JSON, which is YAML).
func (k *kit) setDescriptor(t testing.TB, d *spec.Descriptor) {
	t.Helper()
	ann, err := Annotations(d, kitBuiltBy(), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	k.d, k.ann, k.indexAnn = d, ann, maps.Clone(ann)
	k.staged[StagedDescriptor] = spec.SyntaxLine + "\n" + string(b) + "\n"
}

// stagedLayer is the layer of staged sources.
func (k *kit) stagedLayer(t testing.TB) v1.Layer {
	root := path.Join(StagedRoot, k.stem)
	es := []entry{dir("usr/", 0), dir("usr/share/", 0), dir("usr/share/sandbox/", 0), dir("usr/share/sandbox/kit/", 0), dir(root[1:]+"/", 0)}
	for _, name := range slices.Sorted(maps.Keys(k.staged)) {
		es = append(es, file(path.Join(root[1:], name), k.staged[name]))
	}
	return ociLayer(t, es...)
}

// images builds one image per platform.
func (k *kit) images(t testing.TB) []v1.Image {
	t.Helper()
	var layers []v1.Layer
	if len(k.content) > 0 {
		layers = append(layers, ociLayer(t, k.content...))
	}
	if k.staged != nil {
		layers = append(layers, k.stagedLayer(t))
	}
	layers = append(layers, k.extra...)
	var out []v1.Image
	for _, p := range k.platforms {
		out = append(out, image(t, p, k.config, k.ann, layers...))
	}
	return out
}

// index builds the kit's multi-platform index.
func (k *kit) index(t testing.TB) v1.ImageIndex {
	t.Helper()
	return index(t, k.indexAnn, k.platforms, k.images(t)...)
}

// artifact wraps the kit's index in memory.
func (k *kit) artifact(t testing.TB) *Artifact { return FromIndex(k.index(t)) }

// Test kits.

var mixinFiles = map[string]string{
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

// goodMixin is a conforming two-platform mixin.
func goodMixin(t testing.TB) *kit {
	k := newKit(t, mixinFiles, "tool/tool.yaml")
	k.content = []entry{
		dir("home/", 0), dir("home/agent/", 1000),
		{name: "home/agent/.toolrc", mode: 0o644, uid: 1000, gid: 1000, body: "tool=1\n"},
		dir("usr/", 0), dir("usr/local/", 0), dir("usr/local/bin/", 0),
		exe("usr/local/bin/tool", "#!/bin/sh\n"), symlink("usr/local/bin/t", "tool"),
	}
	return k
}

var workloadFiles = map[string]string{
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

const testDpkgStatus = "Package: bash\nStatus: install ok installed\nVersion: 5.2.15-2+b2\n\nPackage: dash\nStatus: install ok installed\nVersion: 0.5.12-2\n"

// goodWorkload is a conforming two-platform workload on a merged-/usr
// root filesystem, declaring sbx@1, with derived deb/ provides.
func goodWorkload(t testing.TB) *kit {
	k := newKit(t, workloadFiles, "shell/shell.yaml")
	d := *k.d
	d.Provides = append(append([]string{}, d.Provides...), DerivedProvides([]byte(testDpkgStatus), nil)...)
	k.setDescriptor(t, &d)
	k.content = []entry{
		symlink("bin", "usr/bin"), dir("usr/", 0), dir("usr/bin/", 0),
		exe("usr/bin/bash", "ELF"), exe("usr/bin/dash", "ELF"), symlink("usr/bin/sh", "dash"),
		dir("etc/", 0),
		file("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nagent:x:1000:1000::/home/agent:/bin/bash\n"),
		file("etc/group", "root:x:0:\nagent:x:1000:\n"),
		file("etc/sandbox-persistent.sh", "# persistent env\n"),
		dir("var/", 0), dir("var/lib/", 0), dir("var/lib/dpkg/", 0), file("var/lib/dpkg/status", testDpkgStatus),
		dir("home/", 0), dir("home/agent/", 1000),
	}
	k.config = v1.Config{User: "agent", Entrypoint: []string{"/bin/bash"}, Env: []string{"BASH_ENV=/etc/sandbox-persistent.sh"}}
	return k
}

package conform_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// summary renders findings as "severity check [platform]" lines.
func summary(fs []conform.Finding) []string {
	out := []string{}
	for _, f := range fs {
		p := f.Platform
		if p == "" {
			p = "index"
		}
		out = append(out, fmt.Sprintf("%s %s [%s]", f.Severity, f.Check, p))
	}
	return out
}

// each repeats lines for both test platforms.
func each(lines ...string) []string {
	var out []string
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		for _, l := range lines {
			out = append(out, l+" ["+p+"]")
		}
	}
	return out
}

// editedImage is an image whose manifest or config was edited in ways
// go-containerregistry's mutate cannot express.
type editedImage struct {
	v1.Image
	raw    []byte
	config []byte
}

func (e *editedImage) RawManifest() ([]byte, error) { return e.raw, nil }
func (e *editedImage) Manifest() (*v1.Manifest, error) {
	return v1.ParseManifest(bytes.NewReader(e.raw))
}
func (e *editedImage) Digest() (v1.Hash, error) {
	sum := sha256.Sum256(e.raw)
	return v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(sum[:])}, nil
}
func (e *editedImage) Size() (int64, error) { return int64(len(e.raw)), nil }
func (e *editedImage) RawConfigFile() ([]byte, error) {
	if e.config != nil {
		return e.config, nil
	}
	return e.Image.RawConfigFile()
}

// editManifest edits an image's manifest as JSON.
func editManifest(t testing.TB, img v1.Image, edit func(map[string]any)) v1.Image {
	t.Helper()
	raw, err := img.RawManifest()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return &editedImage{Image: img, raw: b}
}

// withImages builds an artifact from the kit's index with its images
// replaced.
func withImages(t testing.TB, k *at.Kit, edit func(i int, img v1.Image) v1.Image) *artifact.Artifact {
	t.Helper()
	imgs := k.Images(t)
	for i := range imgs {
		imgs[i] = edit(i, imgs[i])
	}
	return artifact.FromIndex(at.Index(t, k.IndexAnnotations, k.Platforms, imgs...))
}

func dockerClassic(t testing.TB) *artifact.Artifact { return artifact.FromIndex(at.DockerClassic(t)) }

func TestCheck(t *testing.T) {
	tests := []struct {
		name     string
		artifact func(t testing.TB) *artifact.Artifact
		want     []string
		// contains are substrings some finding's message must hold.
		contains []string
	}{
		{name: "good mixin", artifact: func(t testing.TB) *artifact.Artifact { return at.Mixin(t).Artifact(t) }, want: []string{}},
		{name: "good workload", artifact: func(t testing.TB) *artifact.Artifact { return at.Workload(t).Artifact(t) }, want: []string{}},
		{
			name: "single-platform image", want: []string{},
			artifact: func(t testing.TB) *artifact.Artifact { return artifact.FromImage(at.Mixin(t).Images(t)[0]) },
		},
		{
			name: "attestation manifests are skipped", want: []string{},
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				att := at.Image(t, "linux/amd64", v1.Config{}, nil, at.OCILayer(t, at.File("intoto.json", "{}")))
				idx := mutate.AppendManifests(k.Index(t), mutate.IndexAddendum{Add: at.PlainImage(att), Descriptor: v1.Descriptor{
					Platform:    &v1.Platform{OS: "unknown", Architecture: "unknown"},
					Annotations: map[string]string{artifact.AnnotationReferenceType: artifact.ReferenceTypeAttestation},
				}})
				return artifact.FromIndex(idx)
			},
		},
		{
			name: "an unknown/unknown manifest without the attestation marker",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				att := at.Image(t, "linux/amd64", v1.Config{}, nil, at.OCILayer(t, at.File("intoto.json", "{}")))
				idx := mutate.AppendManifests(k.Index(t), mutate.IndexAddendum{Add: at.PlainImage(att), Descriptor: v1.Descriptor{
					Platform: &v1.Platform{OS: "unknown", Architecture: "unknown"},
				}})
				return artifact.FromIndex(idx)
			},
			want:     []string{"fail oci-media-types [index]"},
			contains: []string{"for platform unknown/unknown without vnd.docker.reference.type: attestation-manifest"},
		},
		// oci-media-types
		{
			name:     "pushed by Docker's classic image store",
			artifact: dockerClassic,
			want: append([]string{"fail oci-media-types [index]"},
				each("fail oci-media-types", "fail descriptor-annotation")...),
			contains: []string{"pushed by Docker's default `docker` driver", "drops annotations", "oci-mediatypes=true",
				"kitsmith build", "a Docker v2 manifest (application/vnd.docker.distribution.manifest.v2+json), a Docker image config", "see oci-media-types"},
		},
		{
			name: "index entries carry artifactType",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
				for i, img := range k.Images(t) {
					p, _ := v1.ParsePlatform(k.Platforms[i])
					idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: p}})
				}
				return artifact.FromIndex(mutate.Annotations(idx, k.IndexAnnotations).(v1.ImageIndex))
			},
			want:     []string{"warn oci-media-types [index]", "warn oci-media-types [index]"},
			contains: []string{`carries artifactType "application/vnd.oci.image.config.v1+json"`, "BuildKit writes none"},
		},
		{
			name: "artifactType set",
			artifact: func(t testing.TB) *artifact.Artifact {
				return withImages(t, at.Mixin(t), func(_ int, img v1.Image) v1.Image {
					return editManifest(t, img, func(m map[string]any) { m["artifactType"] = "application/vnd.example.kit" })
				})
			},
			want:     each("fail oci-media-types"),
			contains: []string{`artifactType "application/vnd.example.kit"`},
		},
		{
			name: "empty config descriptor",
			artifact: func(t testing.TB) *artifact.Artifact {
				return withImages(t, at.Mixin(t), func(_ int, img v1.Image) v1.Image {
					return mutate.ConfigMediaType(img, types.OCIEmptyJSON)
				})
			},
			want:     each("fail oci-media-types"),
			contains: []string{"OCI empty descriptor"},
		},
		{
			name: "a layer that is not a filesystem",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.Extra = []v1.Layer{at.Layer(t, "application/vnd.example.blob", at.File("x", "y"))}
				return k.Artifact(t)
			},
			want:     each("fail oci-media-types"),
			contains: []string{"not a filesystem layer"},
		},
		// descriptor-annotation
		{
			name: "descriptor annotation missing",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).DeleteAnnotation(artifact.AnnotationDescriptor).Artifact(t)
			},
			want:     each("fail descriptor-annotation"),
			contains: []string{"annotation-manifest.<key>=<value>"},
		},
		{
			name: "descriptor annotation only on the index",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				delete(k.Annotations, artifact.AnnotationDescriptor)
				return k.Artifact(t)
			},
			want:     each("fail descriptor-annotation"),
			contains: []string{"The index carries it"},
		},
		{
			name: "descriptor annotation does not decode",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).SetAnnotation(artifact.AnnotationDescriptor, `{"schemaVersion": [`).Artifact(t)
			},
			want:     each("fail descriptor-annotation"),
			contains: []string{"does not decode"},
		},
		// agent-skill-content
		{
			name: "agent skill without SKILL.md",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).Edit(t, addSkill).Artifact(t)
			},
			want:     each("fail agent-skill-content"),
			contains: []string{`bundled skill "review" does not carry /home/agent/skills/review/SKILL.md`},
		},
		{
			name: "agent skill with SKILL.md", want: []string{},
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t).Edit(t, addSkill)
				k.Content = append(k.Content, at.Dir("home/agent/skills/", 1000), at.Dir("home/agent/skills/review/", 1000),
					at.Entry{Name: "home/agent/skills/review/SKILL.md", Mode: 0o644, UID: 1000, GID: 1000, Body: "# Review\n"})
				return k.Artifact(t)
			},
		},
		// descriptor-valid
		{
			name: "published descriptor invalid",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).Edit(t, func(d *spec.Descriptor) { d.Version = "" }).Artifact(t)
			},
			want:     each("fail descriptor-valid"),
			contains: []string{`provides entry "tool" has no version`},
		},
		// schema-version-annotation
		{
			name: "schema-version annotation wrong",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).SetAnnotation(artifact.AnnotationSchemaVersion, "2").Artifact(t)
			},
			want: each("fail schema-version-annotation"),
		},
		{
			name: "schema-version annotation missing",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).DeleteAnnotation(artifact.AnnotationSchemaVersion).Artifact(t)
			},
			want: each("fail schema-version-annotation"),
		},
		// capabilities-annotation
		{
			name: "capabilities annotation wrong",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).SetAnnotation(artifact.AnnotationCapabilities, "com.docker.sandbox/network-policy@1").Artifact(t)
			},
			want: each("fail capabilities-annotation"),
		},
		{
			name: "capabilities annotation missing",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).DeleteAnnotation(artifact.AnnotationCapabilities).Artifact(t)
			},
			want: each("fail capabilities-annotation"),
		},
		{
			name: "capabilities annotation present without capabilities",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t).Edit(t, func(d *spec.Descriptor) { d.Capabilities = nil })
				delete(k.Staged, "context.md")
				return k.SetAnnotation(artifact.AnnotationCapabilities, "").Artifact(t)
			},
			want:     each("fail capabilities-annotation"),
			contains: []string{"the key is omitted when there are none"},
		},
		// built-by-annotation
		{
			name: "built-by malformed",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).SetAnnotation(artifact.AnnotationBuiltBy, `{"name":"kitsmith"}`).Artifact(t)
			},
			want: each("fail built-by-annotation"),
		},
		{
			name: "built-by absent", want: []string{},
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).DeleteAnnotation(artifact.AnnotationBuiltBy).Artifact(t)
			},
		},
		// oci-annotations
		{
			name: "OCI annotations wrong, forbidden and malformed",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).SetAnnotation(artifact.AnnotationTitle, "Other").SetAnnotation(artifact.AnnotationRevision, "abc").
					SetAnnotation(artifact.AnnotationCreated, "yesterday").DeleteAnnotation(artifact.AnnotationLicenses).Artifact(t)
			},
			want:     each("fail oci-annotations", "fail oci-annotations", "fail oci-annotations", "fail oci-annotations"),
			contains: []string{`org.opencontainers.image.title is "Other"; the descriptor derives "Tool"`, "must not be set on a kit", "not an RFC 3339 timestamp", "org.opencontainers.image.licenses is missing"},
		},
		{
			name: "created from SOURCE_DATE_EPOCH", want: []string{},
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).SetAnnotation(artifact.AnnotationCreated, "1970-01-01T00:00:00Z").Artifact(t)
			},
		},
		// at-least-one-layer
		{
			name: "no layers",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.Content, k.Staged = nil, nil
				return k.Artifact(t)
			},
			want: each("fail at-least-one-layer", "skip staged-sources", "skip staged-recipe", "skip agent-context-staged",
				"skip overlay-home-ownership", "skip overlay-links-resolve"),
		},
		{
			name: "a layer that is not a tar",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				b := bytes.Repeat([]byte("not a tar "), 100)
				l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
					tarball.WithMediaType(types.OCILayer))
				if err != nil {
					t.Fatal(err)
				}
				k.Extra = []v1.Layer{l}
				return k.Artifact(t)
			},
			want: each("fail at-least-one-layer", "skip staged-sources", "skip staged-recipe", "skip agent-context-staged",
				"skip overlay-home-ownership", "skip overlay-links-resolve"),
			contains: []string{"do not read as filesystem tars"},
		},
		// staged-sources
		{
			name: "nothing staged",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.Staged = nil
				return k.Artifact(t)
			},
			want:     each("fail staged-sources", "skip staged-recipe", "skip agent-context-staged"),
			contains: []string{"no kit sources are staged"},
		},
		{
			name: "staged descriptor differs",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.Staged[artifact.StagedDescriptor] = strings.Replace(k.Staged[artifact.StagedDescriptor], "displayName: Tool", "displayName: Tool 2", 1)
				return k.Artifact(t)
			},
			want:     each("fail staged-sources"),
			contains: []string{"differ in: displayName"},
		},
		// staged-recipe
		{
			name: "workload recipe not staged",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				delete(k.Staged, artifact.StagedRecipe)
				return k.Artifact(t)
			},
			want: each("fail staged-recipe"),
		},
		// agent-context-staged
		{
			name: "context body not staged",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				delete(k.Staged, "context.md")
				return k.Artifact(t)
			},
			want:     each("fail agent-context-staged"),
			contains: []string{"which the image does not carry"},
		},
		{
			name: "context file not rewritten",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).Edit(t, func(d *spec.Descriptor) {
					d.Capabilities = slices.Clone(d.Capabilities)
					d.Capabilities[1].Config = map[string]any{"contentFile": "./context.md"}
				}).Artifact(t)
			},
			want:     each("fail agent-context-staged"),
			contains: []string{"publishing rewrites it"},
		},
		// image-config
		{
			name: "workload without entrypoint",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Config.Entrypoint = nil
				return k.Artifact(t)
			},
			want: each("fail image-config"),
		},
		{
			name: "config does not parse",
			artifact: func(t testing.TB) *artifact.Artifact {
				return withImages(t, at.Mixin(t), func(_ int, img v1.Image) v1.Image {
					raw, _ := img.RawManifest()
					return &editedImage{Image: img, raw: raw, config: []byte(`{"config": [`)}
				})
			},
			want: each("fail image-config"),
		},
		{
			name: "config over the read limit",
			artifact: func(t testing.TB) *artifact.Artifact {
				return withImages(t, at.Mixin(t), func(_ int, img v1.Image) v1.Image {
					return editManifest(t, img, func(m map[string]any) { m["config"].(map[string]any)["size"] = 9 << 20 })
				})
			},
			want:     each("fail image-config"),
			contains: []string{"over the read limit"},
		},
		// overlay-home-ownership
		{
			name: "mixin ships /home owned by the agent",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.Content[0] = at.Dir("home/", 1000)
				return k.Artifact(t)
			},
			want: each("fail overlay-home-ownership"),
			contains: []string{"/home owned by uid 1000", "COPY --chown=1000:1000 … /home/agent/",
				"COPY --chown=0:0 home/ /home/", "RUN install -d -o 0 -g 0 /home"},
		},
		{
			name: "mixin ships /home/agent owned by root",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.Content[1] = at.Dir("home/agent/", 0)
				return k.Artifact(t)
			},
			want:     each("fail overlay-home-ownership"),
			contains: []string{"/home/agent owned by uid 0"},
		},
		{
			name: "only one platform's overlay is wrong",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				good := k.Images(t)[0]
				k.Content[0] = at.Dir("home/", 1000)
				bad := k.Images(t)[1]
				return artifact.FromIndex(at.Index(t, k.IndexAnnotations, k.Platforms, good, bad))
			},
			want: []string{"fail overlay-home-ownership [linux/arm64]"},
		},
		{
			name: "mixin staying out of /home", want: []string{},
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.Content = k.Content[3:]
				return k.Artifact(t)
			},
		},
		{
			name: "workload /home is not judged", want: []string{},
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Content = append(k.Content, at.Dir("home/", 1000))
				return k.Artifact(t)
			},
		},
		// overlay-links-resolve
		{
			name: "mixin ships a dangling link",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.Content = append(k.Content, at.Symlink("usr/local/bin/node", "../lib/node/bin/node"))
				return k.Artifact(t)
			},
			want:     each("warn overlay-links-resolve"),
			contains: []string{"/usr/local/bin/node links to ../lib/node/bin/node"},
		},
		{
			name: "whiteout removes a link target",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.Extra = []v1.Layer{at.OCILayer(t, at.File("usr/local/bin/.wh.tool", ""))}
				return k.Artifact(t)
			},
			want:     each("warn overlay-links-resolve"),
			contains: []string{"/usr/local/bin/t links to tool"},
		},
		// sbx-platform-floor
		{
			name: "sbx@1 workload without USER",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Config.User = ""
				return k.Artifact(t)
			},
			want:     each("fail sbx-platform-floor"),
			contains: []string{"declares no USER"},
		},
		{
			name: "sbx@1 user not in passwd",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Config.User = "builder"
				return k.Artifact(t)
			},
			want: each("fail sbx-platform-floor"),
		},
		{
			name: "sbx@1 user with a numeric group", want: []string{},
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Config.User = "1000:1000"
				return k.Artifact(t)
			},
		},
		{
			name: "sbx@1 without bash, and sh not executable",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Replace(t, at.File("usr/bin/dash", "ELF"))
				k.Extra = []v1.Layer{at.OCILayer(t, at.File("usr/bin/.wh.bash", ""))}
				return k.Artifact(t)
			},
			want:     each("fail sbx-platform-floor", "fail sbx-platform-floor"),
			contains: []string{"/bin/sh is not executable by agent", "/bin/bash is missing"},
		},
		{
			name: "sbx@1 on a mixin",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).Edit(t, func(d *spec.Descriptor) {
					d.Capabilities = append(slices.Clone(d.Capabilities), spec.Capability{Type: spec.TypeSBX})
				}).Artifact(t)
			},
			want: each("fail descriptor-valid", "fail sbx-platform-floor"),
		},
		// sbx-persistent-env
		{
			name: "sbx@1 without BASH_ENV",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Config.Env = nil
				return k.Artifact(t)
			},
			want: each("warn sbx-persistent-env"),
		},
		{
			name: "sbx@1 BASH_ENV names a missing file",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Config.Env = []string{"BASH_ENV=/etc/profile.d/sandbox.sh"}
				return k.Artifact(t)
			},
			want: each("warn sbx-persistent-env"),
		},
		// derived-provides
		{
			name: "derived provides disagree with dpkg",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Replace(t, at.File("var/lib/dpkg/status", strings.Replace(at.DpkgStatus, "5.2.15-2+b2", "5.2.21-2", 1)))
				return k.Artifact(t)
			},
			want:     each("fail derived-provides"),
			contains: []string{"deb/bash@5.2.15 names version 5.2.15, but /var/lib/dpkg/status records 5.2.21-2"},
		},
		{
			name: "derived provide of a package not installed",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Replace(t, at.File("var/lib/dpkg/status", "Package: bash\nStatus: install ok installed\nVersion: 5.2.15-2+b2\n\nPackage: dash\nStatus: deinstall ok config-files\nVersion: 0.5.12-2\n"))
				return k.Artifact(t)
			},
			want: each("fail derived-provides"),
		},
		{
			name: "derived provides without a package database",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Workload(t)
				k.Remove(t, "var/lib/dpkg/status")
				return k.Artifact(t)
			},
			want:     each("fail derived-provides"),
			contains: []string{"has no /var/lib/dpkg/status"},
		},
		{
			name: "derived provides on a mixin",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).Edit(t, func(d *spec.Descriptor) {
					d.Provides = append(slices.Clone(d.Provides), "deb/bash@5.2.15")
				}).Artifact(t)
			},
			want:     each("fail derived-provides"),
			contains: []string{"only a workload's root filesystem answers for those"},
		},
		// merged-set
		{
			name: "merged set without its kits' sources",
			artifact: func(t testing.TB) *artifact.Artifact {
				return at.Mixin(t).Edit(t, func(d *spec.Descriptor) {
					d.Kits = []spec.KitRef{{Ref: "registry.example/kits/a:1.0", Digest: "sha256:" + strings.Repeat("a", 64)}}
				}).Artifact(t)
			},
			want:     each("fail merged-set", "skip merged-set-declarations"),
			contains: []string{"at least 2 staged roots are expected"},
		},
		// index-annotations
		{
			name: "index without kit annotations",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.IndexAnnotations = nil
				return k.Artifact(t)
			},
			want: each("warn index-annotations", "warn index-annotations", "warn index-annotations", "warn index-annotations"),
		},
		{
			name: "index annotation disagrees",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				k.IndexAnnotations[artifact.AnnotationDescriptor] = `{"schemaVersion":"3","kind":"mixin"}`
				return k.Artifact(t)
			},
			want: each("fail index-annotations"),
		},
		{
			name: "annotation only on the index",
			artifact: func(t testing.TB) *artifact.Artifact {
				k := at.Mixin(t)
				delete(k.Annotations, artifact.AnnotationBuiltBy)
				return k.Artifact(t)
			},
			want: each("fail index-annotations"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := conform.Check(context.Background(), tt.artifact(t))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summary(rep.Findings)); diff != "" {
				t.Errorf("findings mismatch (-want +got):\n%s", diff)
				for _, f := range rep.Findings {
					t.Logf("%s %s [%s]: %s", f.Severity, f.Check, f.Platform, f.Message)
				}
			}
			for _, c := range tt.contains {
				if !slices.ContainsFunc(rep.Findings, func(f conform.Finding) bool { return strings.Contains(f.Message, c) }) {
					t.Errorf("no finding says %q", c)
				}
			}
			if got, want := rep.Failed(), slices.ContainsFunc(tt.want, func(s string) bool { return strings.HasPrefix(s, "fail ") }); got != want {
				t.Errorf("Failed() = %v, want %v", got, want)
			}
		})
	}
}

// addSkill adds an agent-skill@1 entry to a descriptor.
func addSkill(d *spec.Descriptor) {
	d.Capabilities = append(slices.Clone(d.Capabilities), spec.Capability{
		Type: spec.TypeAgentSkill, Config: map[string]any{"path": "/home/agent/skills/review"}, HasConfig: true,
	})
}

func TestChecksListed(t *testing.T) {
	var ids []string
	for _, c := range conform.Checks() {
		ids = append(ids, c.ID)
		if c.Summary == "" || !strings.HasSuffix(c.Summary, ".") || c.Spec == "" {
			t.Errorf("check %s lacks a one-sentence summary or a spec reference", c.ID)
		}
	}
	want := []string{"oci-media-types",
		"descriptor-annotation", "agent-skill-content", "descriptor-valid", "schema-version-annotation",
		"capabilities-annotation", "built-by-annotation", "oci-annotations", "at-least-one-layer", "staged-sources",
		"staged-recipe", "agent-context-staged", "image-config", "overlay-home-ownership", "overlay-links-resolve",
		"sbx-platform-floor", "sbx-persistent-env", "derived-provides", "merged-set", "merged-set-declarations",
		"index-annotations"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("conform.Checks() mismatch (-want +got):\n%s", diff)
	}
}

func TestCheckEmptyIndex(t *testing.T) {
	rep, err := conform.Check(context.Background(), artifact.FromIndex(empty.Index))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"fail descriptor-annotation [index]"}, summary(rep.Findings)); diff != "" {
		t.Errorf("findings mismatch (-want +got):\n%s", diff)
	}
}

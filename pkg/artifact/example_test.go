package artifact_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

func ExampleAnnotations() {
	d := &spec.Descriptor{
		SchemaVersion: "3", Kind: spec.KindMixin, DisplayName: "Tool", Licenses: []string{"MIT", "Apache-2.0"},
		Provides:     []string{"tool@1.2.0"},
		Capabilities: []spec.Capability{{Type: spec.TypeLongRunning}},
	}
	ann, err := artifact.Annotations(d, &artifact.BuiltBy{Name: "kitsmith", Version: "dev"}, "1970-01-01T00:00:00Z")
	if err != nil {
		panic(err)
	}
	for _, k := range []string{artifact.AnnotationDescriptor, artifact.AnnotationCapabilities, artifact.AnnotationBuiltBy,
		artifact.AnnotationLicenses, artifact.AnnotationVersion, artifact.AnnotationCreated} {
		fmt.Printf("%s: %s\n", k, ann[k])
	}
	// Output:
	// vnd.docker.sandbox.kit.descriptor: {"schemaVersion":"3","displayName":"Tool","licenses":["MIT","Apache-2.0"],"kind":"mixin","provides":["tool@1.2.0"],"capabilities":[{"type":"com.docker.sandbox/long-running@1"}]}
	// vnd.docker.sandbox.kit.capabilities: com.docker.sandbox/long-running@1
	// vnd.docker.sandbox.kit.built-by: {"name":"kitsmith","version":"dev"}
	// org.opencontainers.image.licenses: MIT,Apache-2.0
	// org.opencontainers.image.version: 1.2.0
	// org.opencontainers.image.created: 1970-01-01T00:00:00Z
}

func ExampleParseReference() {
	for _, s := range []string{"oci:out/gh:1.2.0", "oci-archive:dist/gh.tar", "registry.example/kits/gh:1.2.0"} {
		r, err := artifact.ParseReference(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: kind %s, path %q, tag %q, name %q\n", s, r.Kind, r.Path, r.Tag, r.Name)
	}
	// Output:
	// oci:out/gh:1.2.0: kind oci-layout, path "out/gh", tag "1.2.0", name ""
	// oci-archive:dist/gh.tar: kind oci-archive, path "dist/gh.tar", tag "", name ""
	// registry.example/kits/gh:1.2.0: kind registry, path "", tag "", name "registry.example/kits/gh:1.2.0"
}

func ExampleWrite() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kitsmith-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	d, err := artifact.Write(ctx, artifact.FromImage(img), "oci:"+filepath.Join(dir, "layout")+":1.0.0")
	if err != nil {
		panic(err)
	}
	got, err := artifact.Head(ctx, "oci:"+filepath.Join(dir, "layout")+":1.0.0")
	if err != nil {
		panic(err)
	}
	fmt.Println(d.MediaType, got.Digest == d.Digest)
	// Output:
	// application/vnd.oci.image.manifest.v1+json true
}

func ExampleNewTarget() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kitsmith-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	// A layout here; a registry reference (registry.example.org/kits/gh:1.0.0)
	// opens a registry repository with the same methods.
	t, err := artifact.NewTarget(ctx, "oci:"+filepath.Join(dir, "layout")+":1.0.0")
	if err != nil {
		panic(err)
	}
	// Push by digest, attach a signature, and only then tag.
	subject, err := t.Push(ctx, artifact.FromImage(mutate.MediaType(empty.Image, types.OCIManifestSchema1)))
	if err != nil {
		panic(err)
	}
	if _, err := t.Head(ctx); errors.Is(err, artifact.ErrNotFound) {
		fmt.Println("not tagged yet")
	}
	sig := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	sig = mutate.ConfigMediaType(sig, "application/vnd.example.signature")
	sig = mutate.Subject(sig, subject).(v1.Image)
	if _, err := t.PushReferrer(ctx, subject, sig); err != nil {
		panic(err)
	}
	if err := t.Tag(ctx, subject); err != nil {
		panic(err)
	}
	head, err := t.Head(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("tagged:", head.Digest == subject.Digest)
	list, err := t.Referrers(ctx, subject)
	if err != nil {
		panic(err)
	}
	for _, d := range list {
		fmt.Println(d.ArtifactType)
	}
	// Output:
	// not tagged yet
	// tagged: true
	// application/vnd.example.signature
}

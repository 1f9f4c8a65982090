package build

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

func TestOutputs(t *testing.T) {
	reg := newRegistry(t)
	dir := t.TempDir()
	layoutDir := filepath.Join(dir, "layout")
	archive := filepath.Join(dir, "sub", "kit.tar")
	ref := reg.host + "/kitsmith-test/decl-mixin:1.0.0"
	res, err := Build(context.Background(), nil, loadKit(t, "decl-mixin"), Options{
		SourceDateEpoch: epoch(1700000000),
		Outputs: []Output{
			{Type: OutputRegistry, Dest: ref},
			{Type: OutputOCI, Dest: layoutDir, Tag: "1.0.0"},
			{Type: OutputOCIArchive, Dest: archive},
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := res.Index.Digest

	// The OCI layout: oci-layout, index.json naming the index, blobs.
	layoutFile, err := os.ReadFile(filepath.Join(layoutDir, "oci-layout"))
	if err != nil {
		t.Fatal(err)
	}
	var lf map[string]string
	if err := json.Unmarshal(layoutFile, &lf); err != nil || lf["imageLayoutVersion"] != "1.0.0" {
		t.Errorf("oci-layout = %s (%v)", layoutFile, err)
	}
	var top struct {
		MediaType string `json:"mediaType"`
		Manifests []struct {
			MediaType   string            `json:"mediaType"`
			Digest      string            `json:"digest"`
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	b, err := os.ReadFile(filepath.Join(layoutDir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	if len(top.Manifests) != 1 || top.Manifests[0].Digest != want.String() ||
		top.Manifests[0].MediaType != "application/vnd.oci.image.index.v1+json" ||
		top.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "1.0.0" {
		t.Errorf("index.json = %s", b)
	}
	blobs := layoutFiles(t, layoutDir)

	// The archive holds the same layout.
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			names = append(names, h.Name)
		}
		if h.ModTime.Unix() != 1700000000 {
			t.Errorf("%s mtime %v", h.Name, h.ModTime)
		}
	}
	if diff := cmp.Diff(blobs, names); diff != "" {
		t.Errorf("archive entries (-layout +archive):\n%s", diff)
	}

	// The registry serves the same index.
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(r)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Digest(); got != want {
		t.Errorf("pushed index %s, built %s", got, want)
	}

	// The metadata file's shape; paths made relative for the golden file.
	m := res.Metadata()
	m.References = []string{strings.Replace(m.References[0], reg.host, "REGISTRY", 1)}
	for i, o := range m.Outputs {
		m.Outputs[i] = strings.Replace(o, dir, "DIR", 1)
	}
	j, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "metadata.json", append(j, '\n'))
}

// layoutFiles lists the regular files of a layout directory, relative,
// sorted.
func layoutFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestOutputDestinations(t *testing.T) {
	build := func(t *testing.T, outs ...Output) error {
		t.Helper()
		_, err := Build(context.Background(), nil, loadKit(t, "decl-mixin"), Options{Outputs: outs}, nil)
		return err
	}
	t.Run("previous layout updated, other files kept", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "layout")
		if err := build(t, Output{Type: OutputOCI, Dest: dir}); err != nil {
			t.Fatal(err)
		}
		keep := filepath.Join(dir, "blobs", "sha256", "not-ours")
		if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := build(t, Output{Type: OutputOCI, Dest: dir}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("writing into the layout removed a file it does not own: %v", err)
		}
		if m, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*")); len(m) != 0 {
			t.Errorf("temporary paths left: %v", m)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
			t.Errorf("temporary paths left: %v", m)
		}
	})
	t.Run("empty directory used", func(t *testing.T) {
		dir := t.TempDir()
		if err := build(t, Output{Type: OutputOCI, Dest: dir}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("other directory refused", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := build(t, Output{Type: OutputOCI, Dest: dir})
		if err == nil || !strings.Contains(err.Error(), "not an OCI layout") {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("archive onto a directory refused", func(t *testing.T) {
		err := build(t, Output{Type: OutputOCIArchive, Dest: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("failed push withdraws local outputs", func(t *testing.T) {
		dir := t.TempDir()
		err := build(t,
			Output{Type: OutputOCI, Dest: filepath.Join(dir, "layout")},
			Output{Type: OutputOCIArchive, Dest: filepath.Join(dir, "kit.tar")},
			Output{Type: OutputRegistry, Dest: "127.0.0.1:1/kitsmith-test/unreachable:1"},
		)
		if err == nil || !strings.Contains(err.Error(), "pushing to 127.0.0.1:1/kitsmith-test/unreachable:1") {
			t.Fatalf("error = %v", err)
		}
		if left := layoutFilesOrNone(dir); len(left) != 0 {
			t.Errorf("a failed build left %v", left)
		}
	})
}

func layoutFilesOrNone(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestArchiveReadsBack(t *testing.T) {
	res, err := Build(context.Background(), nil, loadKit(t, "decl-mixin"), Options{
		Outputs: []Output{{Type: OutputOCIArchive, Dest: filepath.Join(t.TempDir(), "kit.tar")}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := artifact.Open(context.Background(), artifact.ArchivePrefix+res.Written[0].Reference)
	if err != nil {
		t.Fatal(err)
	}
	idx, ok := a.Index()
	if !ok {
		t.Fatal("the archive holds no index")
	}
	if d, _ := idx.Digest(); d != res.Index.Digest {
		t.Errorf("index %s, built %s", d, res.Index.Digest)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range im.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := img.Digest(); got != res.Manifests[i].Digest {
			t.Errorf("manifest %s, built %s", got, res.Manifests[i].Digest)
		}
		layers, err := img.Layers()
		if err != nil {
			t.Fatal(err)
		}
		if names := layerEntries(t, layers[0]); len(names) != 7 {
			t.Errorf("layer entries %v", names)
		}
		if _, err := img.ConfigFile(); err != nil {
			t.Error(err)
		}
	}
	if _, err := idx.Image(res.Index.Digest); err == nil {
		t.Error("an index read as an image")
	}
}

// TestIndexEntriesCarryNoArtifactType: an in-process build's index lists
// its platform manifests as plain images, as BuildKit writes them.
func TestIndexEntriesCarryNoArtifactType(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "layout")
	if _, err := Build(context.Background(), nil, loadKit(t, "decl-mixin"), Options{Outputs: []Output{{Type: OutputOCI, Dest: dir}}}, nil); err != nil {
		t.Fatal(err)
	}
	a, err := artifact.Open(context.Background(), artifact.LayoutPrefix+dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, ok := a.Index()
	if !ok {
		t.Fatal("no index")
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range im.Manifests {
		if d.ArtifactType != "" {
			t.Errorf("index entry %s carries artifactType %q", d.Digest, d.ArtifactType)
		}
	}
	if len(im.Manifests) != 2 {
		t.Errorf("index lists %d manifests, want 2", len(im.Manifests))
	}
}

// TestParseOutputTagged: an output names a layout's tag as artifact.Open
// reads it.
func TestParseOutputTagged(t *testing.T) {
	out, err := ParseOutput("oci:out/gh:1.2.0")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Output{Type: OutputOCI, Dest: "out/gh", Tag: "1.2.0"}, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := ParseOutput("tar:x"); !errors.As(err, new(*artifact.DestinationError)) {
		t.Errorf("ParseOutput(tar:x) error = %v, want a *artifact.DestinationError", err)
	}
	// An Output built in code with a tag the grammar cannot read back is
	// refused, not written as a directory named after it.
	for _, tag := range []string{"a b", ".hidden", "x/y"} {
		o := Output{Type: OutputOCI, Dest: "out/gh", Tag: tag}
		if err := o.validate(); !errors.As(err, new(*artifact.DestinationError)) {
			t.Errorf("Output{Tag: %q}.validate() = %v, want a *artifact.DestinationError", tag, err)
		}
	}
	if err := (Output{Type: OutputOCI, Dest: "out/gh", Tag: "1.2.0"}).validate(); err != nil {
		t.Errorf("a valid tag is refused: %v", err)
	}
}

// FuzzParseOutput: ParseOutput never panics, refuses with a
// *artifact.DestinationError, and an output prints back to itself.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{"oci:out/kit", "oci:out/gh:1.2.0", "oci-archive:kit.tar:v1", "registry:127.0.0.1:5000/kits/x:1", "oci:", "tar:x", "oci:a:b:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ParseOutput(s)
		if err != nil {
			if !errors.As(err, new(*artifact.DestinationError)) {
				t.Fatalf("ParseOutput(%q) error %T is not a *artifact.DestinationError: %v", s, err, err)
			}
			return
		}
		again, err := ParseOutput(out.String())
		if err != nil || again != out {
			t.Fatalf("ParseOutput(%q) = %+v prints %q, which parses to %+v, %v", s, out, out.String(), again, err)
		}
	})
}

package artifact_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// TestWriteDestinations writes a kit to every destination kind and reads
// it back through Open with the same reference.
func TestWriteDestinations(t *testing.T) {
	ctx := context.Background()
	kit := at.Mixin(t).Artifact(t)
	want, err := kit.Index()
	if !err {
		t.Fatal("kit is not an index")
	}
	wantDigest, _ := want.Digest()
	dir := t.TempDir()
	host := at.Registry(t, false)
	for _, dest := range []string{
		"oci:" + filepath.Join(dir, "out/gh"),
		"oci:" + filepath.Join(dir, "out/gh2") + ":1.2.0",
		"oci-archive:" + filepath.Join(dir, "dist/gh.tar"),
		"oci-archive:" + filepath.Join(dir, "dist/gh2.tar") + ":1.2.0",
		host + "/kits/gh:1.2.0",
		host + "/kits/gh@" + wantDigest.String(),
	} {
		t.Run(dest, func(t *testing.T) {
			d, err := artifact.Write(ctx, kit, dest)
			if err != nil {
				t.Fatal(err)
			}
			if d.Digest != wantDigest || d.ArtifactType != "" {
				t.Errorf("Write returned %+v, want digest %s and no artifactType", d, wantDigest)
			}
			a, err := artifact.Open(ctx, dest)
			if err != nil {
				t.Fatal(err)
			}
			idx, ok := a.Index()
			if !ok {
				t.Fatal("read back a single manifest")
			}
			if got, _ := idx.Digest(); got != wantDigest {
				t.Errorf("read back %s, want %s", got, wantDigest)
			}
			if got := mustCheck(t, a); len(got) != 0 {
				t.Errorf("Check = %v, want no findings", got)
			}
		})
	}
}

func TestWriteRefusesDestinations(t *testing.T) {
	ctx := context.Background()
	kit := at.Mixin(t).Artifact(t)
	dir := t.TempDir()
	write := func(p, body string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notLayout := filepath.Join(dir, "src")
	write(filepath.Join(notLayout, "main.go"), "package main\n")
	fifo := filepath.Join(dir, "fifo.tar")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.tar")
	target := write(filepath.Join(dir, "precious"), "keep me\n")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.tar")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	file := write(filepath.Join(dir, "file"), "a file\n")
	host := at.Registry(t, false)
	tests := []struct {
		dest  string
		keeps string // a path that must be unchanged afterwards
	}{
		{dest: "oci:" + notLayout, keeps: filepath.Join(notLayout, "main.go")},
		{dest: "oci:" + file, keeps: file},
		{dest: "oci-archive:" + fifo},
		{dest: "oci-archive:" + link, keeps: target},
		{dest: "oci-archive:" + sock},
		{dest: "oci-archive:" + notLayout, keeps: filepath.Join(notLayout, "main.go")},
		{dest: "oci-archive:"},
		{dest: host + "/kits/gh@sha256:" + hex64},
	}
	for _, tt := range tests {
		t.Run(tt.dest, func(t *testing.T) {
			var before []byte
			if tt.keeps != "" {
				before, _ = os.ReadFile(tt.keeps)
			}
			_, err := artifact.Write(ctx, kit, tt.dest)
			var de *artifact.DestinationError
			if !errors.As(err, &de) {
				t.Fatalf("Write(%s) error = %v, want a *DestinationError", tt.dest, err)
			}
			if tt.keeps != "" {
				after, err := os.ReadFile(tt.keeps)
				if err != nil || string(after) != string(before) {
					t.Errorf("%s changed: %q, %v", tt.keeps, after, err)
				}
			}
		})
	}
	t.Run("nothing to write", func(t *testing.T) {
		_, err := artifact.Write(ctx, nil, "oci:"+filepath.Join(dir, "empty"))
		var de *artifact.DestinationError
		if !errors.As(err, &de) {
			t.Fatalf("Write(nil) error = %v, want a *DestinationError", err)
		}
	})
	t.Run("regular file replaced", func(t *testing.T) {
		old := write(filepath.Join(dir, "old.tar"), "an old archive\n")
		if _, err := artifact.Write(ctx, kit, "oci-archive:"+old); err != nil {
			t.Fatal(err)
		}
		if _, err := artifact.Open(ctx, "oci-archive:"+old); err != nil {
			t.Fatal(err)
		}
	})
}

// indexEntries reads a layout's index.json entries as (tag, digest).
func indexEntries(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var im v1.IndexManifest
	if err := json.Unmarshal(b, &im); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range im.Manifests {
		if d.ArtifactType != "" {
			t.Errorf("index.json entry %s carries artifactType %q", d.Digest, d.ArtifactType)
		}
		out = append(out, d.Annotations[artifact.AnnotationRefName]+"="+d.Digest.String())
	}
	slices.Sort(out)
	return out
}

// TestWriteKeepsLayoutEntries is issue 10 item 9: writing into an existing
// layout keeps every other entry and file, and replaces only the entry of
// its own tag.
func TestWriteKeepsLayoutEntries(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "layout")
	other := at.Workload(t).Artifact(t)
	od, err := artifact.Write(ctx, other, "oci:"+dir+":other")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := at.Mixin(t)
	fd, err := artifact.Write(ctx, first.Artifact(t), "oci:"+dir+":kit")
	if err != nil {
		t.Fatal(err)
	}
	second := first.SetAnnotation("org.opencontainers.image.revision", "2")
	sd, err := artifact.Write(ctx, second.Artifact(t), "oci:"+dir+":kit")
	if err != nil {
		t.Fatal(err)
	}
	if fd.Digest == sd.Digest {
		t.Fatal("the second kit has the first one's digest")
	}
	want := []string{"kit=" + sd.Digest.String(), "other=" + od.Digest.String()}
	slices.Sort(want)
	if diff := cmp.Diff(want, indexEntries(t, dir)); diff != "" {
		t.Errorf("index.json entries (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "README")); err != nil || string(b) != "mine\n" {
		t.Errorf("README = %q, %v; want it kept", b, err)
	}
	for tag, d := range map[string]v1.Descriptor{"other": od, "kit": sd} {
		got, err := artifact.Head(ctx, "oci:"+dir+":"+tag)
		if err != nil {
			t.Fatal(err)
		}
		if got.Digest != d.Digest {
			t.Errorf("oci:DIR:%s is %s, want %s", tag, got.Digest, d.Digest)
		}
	}
}

// TestWriteModes is issue 10 item 12: files 0644 and directories 0755,
// less the umask, in layouts and archives alike.
func TestWriteModes(t *testing.T) {
	ctx := context.Background()
	kit := at.Mixin(t).Artifact(t)
	for _, umask := range []int{0o022, 0o077} {
		old := syscall.Umask(umask)
		dir := t.TempDir()
		layout := filepath.Join(dir, "layout")
		archive := filepath.Join(dir, "kit.tar")
		_, err := artifact.Write(ctx, kit, "oci:"+layout)
		if err == nil {
			_, err = artifact.Write(ctx, kit, "oci-archive:"+archive)
		}
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		wantFile, wantDir := fs.FileMode(0o644&^umask), fs.FileMode(0o755&^umask)
		paths := []string{archive}
		err = filepath.WalkDir(layout, func(p string, _ fs.DirEntry, err error) error {
			paths = append(paths, p)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			want := wantFile
			if fi.IsDir() {
				want = wantDir | fs.ModeDir
			}
			if fi.Mode() != want {
				t.Errorf("umask %03o: %s is %s, want %s", umask, p, fi.Mode(), want)
			}
		}
	}
}

func TestPushTagHead(t *testing.T) {
	ctx := context.Background()
	host := at.Registry(t, false)
	kit := at.Mixin(t).Artifact(t)
	ref := host + "/kits/gh:1.2.0"
	d, err := artifact.Push(ctx, kit, ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := artifact.Head(ctx, ref); !errors.Is(err, artifact.ErrNotFound) {
		t.Fatalf("Head after Push = %v, want ErrNotFound: Push sets no tag", err)
	}
	if _, err := artifact.Open(ctx, host+"/kits/gh@"+d.Digest.String()); err != nil {
		t.Fatalf("the pushed digest does not open: %v", err)
	}
	if err := artifact.Tag(ctx, ref, d); err != nil {
		t.Fatal(err)
	}
	got, err := artifact.Head(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, got); diff != "" {
		t.Errorf("Head after Tag (-want +got):\n%s", diff)
	}
	if err := artifact.Tag(ctx, host+"/other/repo:1", d); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("Tag in a repository without the manifest = %v, want ErrNotFound", err)
	}
}

// TestPushErrors classifies registry failures on writes as Open does on
// reads.
func TestPushErrors(t *testing.T) {
	kit := at.Mixin(t).Artifact(t)
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v2/" {
				w.WriteHeader(http.StatusOK)
				return
			}
			w.WriteHeader(code)
		}))
		t.Cleanup(srv.Close)
		return srv.Listener.Addr().String()
	}
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return addr
	}
	tests := []struct {
		name string
		host string
		want error
	}{
		{"401", status(http.StatusUnauthorized), artifact.ErrUnauthorized},
		{"403", status(http.StatusForbidden), artifact.ErrDenied},
		{"404", status(http.StatusNotFound), artifact.ErrNotFound},
		{"nothing listening", closed(), artifact.ErrUnreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := artifact.Push(context.Background(), kit, tt.host+"/kits/gh:1")
			if !errors.Is(err, tt.want) {
				t.Errorf("Push error = %v, want %v", err, tt.want)
			}
			_, err = artifact.Write(context.Background(), kit, tt.host+"/kits/gh:1")
			if !errors.Is(err, tt.want) {
				t.Errorf("Write error = %v, want %v", err, tt.want)
			}
		})
	}
}

// cancelLayer is a layer whose content cancels ctx once it starts to be
// read, as Ctrl-C during a write would.
type cancelLayer struct {
	v1.Layer
	cancel context.CancelFunc
}

func (l cancelLayer) Compressed() (io.ReadCloser, error) {
	l.cancel()
	return l.Layer.Compressed()
}

// TestWriteCancelled is issue 10 item 8 for outputs: a write that is
// cancelled leaves no partial output and no temporary file.
func TestWriteCancelled(t *testing.T) {
	for _, kind := range []string{"oci:", "oci-archive:"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			k := at.Mixin(t)
			k.Platforms = k.Platforms[:1]
			k.Extra = []v1.Layer{cancelLayer{at.OCILayer(t, at.File("opt/x", "x")), cancel}}
			dir := t.TempDir()
			_, err := artifact.Write(ctx, k.Artifact(t), kind+filepath.Join(dir, "out"))
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Write error = %v, want context.Canceled", err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
				t.Errorf("a cancelled write left %v", left)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
				t.Errorf("a cancelled write left %v", left)
			}
		})
	}
}

package build

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	goldenfile "github.com/kitsmith/kitsmith/internal/golden"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// golden compares got with testdata/golden/<name>, rewriting it under
// KITSMITH_UPDATE_GOLDEN=1.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got)
}

// loadKit loads a kit of testdata/kits.
func loadKit(t testing.TB, name string) *spec.Kit {
	t.Helper()
	k, err := spec.LoadPath(filepath.Join("testdata", "kits", name))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// epoch returns a pointer to n.
func epoch(n int64) *int64 { return &n }

// layoutIndex opens the image index of an OCI layout written by Build.
func layoutIndex(t testing.TB, dir string) v1.ImageIndex {
	t.Helper()
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 {
		t.Fatalf("index.json lists %d descriptors, want 1", len(im.Manifests))
	}
	idx, err := top.ImageIndex(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// tarEntry is a layer entry as tests compare it.
type tarEntry struct {
	Name  string
	Mode  int64
	UID   int
	GID   int
	MTime int64
	Body  string
}

// layerEntries lists a layer's entries (bodies of files up to 4 KiB).
func layerEntries(t testing.TB, l v1.Layer) []tarEntry {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var out []tarEntry
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		e := tarEntry{Name: h.Name, Mode: h.Mode, UID: h.Uid, GID: h.Gid, MTime: h.ModTime.Unix()}
		if h.Typeflag == tar.TypeReg && h.Size <= 4096 {
			b, _ := io.ReadAll(tr)
			e.Body = string(b)
		}
		out = append(out, e)
	}
	return out
}

// kitRegistry is an in-process registry.
type kitRegistry struct {
	host string
}

func newRegistry(t testing.TB) *kitRegistry {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return &kitRegistry{host: u.Host}
}

// push builds a kit of testdata/kits in-process and pushes it as
// <host>/kitsmith-test/<name>:<tag>.
func (r *kitRegistry) push(t testing.TB, kit, tag string, o Options) *Result {
	t.Helper()
	o.Outputs = append(o.Outputs, Output{Type: OutputRegistry, Dest: r.host + "/kitsmith-test/" + kit + ":" + tag})
	res, err := Build(context.Background(), nil, loadKit(t, kit), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// pushIndex pushes idx as <host>/kitsmith-test/<repo>:<tag>.
func (r *kitRegistry) pushIndex(t testing.TB, idx v1.ImageIndex, repo, tag string) {
	t.Helper()
	ref, err := name.ParseReference(r.host + "/kitsmith-test/" + repo + ":" + tag)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(ref, idx); err != nil {
		t.Fatal(err)
	}
}

// fakeWorkload assembles a workload kit image in-process, as BuildKit
// would build the kit: a root filesystem layer, the staged sources, an
// image config with an entrypoint and extra config.
func fakeWorkload(t testing.TB, kit string, plats []string, cfg v1.Config) v1.ImageIndex {
	t.Helper()
	k := loadKit(t, kit)
	opts, err := makeOptions(Options{Platforms: plats})
	if err != nil {
		t.Fatal(err)
	}
	pub, rep := k.Publish(nil)
	if pub == nil {
		t.Fatalf("publishing %s: %v", kit, rep.Err())
	}
	files, err := stagedFiles(k, pub, pub.YAML)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := stagedTar(files, opts.epochTime())
	if err != nil {
		t.Fatal(err)
	}
	staged, err := newMemLayer(tb)
	if err != nil {
		t.Fatal(err)
	}
	rootTar, err := stagedTar([]stagedFile{{Path: "/usr/local/bin/hello", Data: []byte("#!/bin/sh\necho hello\n")}}, opts.epochTime())
	if err != nil {
		t.Fatal(err)
	}
	root, err := newMemLayer(rootTar)
	if err != nil {
		t.Fatal(err)
	}
	ann, err := artifact.Annotations(pub.Descriptor, opts.builtBy, "")
	if err != nil {
		t.Fatal(err)
	}
	var imgs []v1.Image
	for _, pl := range opts.platforms {
		img, err := ociImage([]v1.Layer{root, staged}, &v1.ConfigFile{OS: pl.OS, Architecture: pl.Architecture, Variant: pl.Variant, Config: cfg}, ann)
		if err != nil {
			t.Fatal(err)
		}
		imgs = append(imgs, img)
	}
	idx, err := ociIndex(imgs, opts.platforms, ann)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// copyKit copies a kit of testdata/kits to a temporary directory, with
// extra files (name → content or, prefixed with "file:", a path to copy).
func copyKit(t testing.TB, kit string, extra map[string]string) string {
	t.Helper()
	src := filepath.Join("testdata", "kits", kit)
	dst := filepath.Join(t.TempDir(), kit)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	for n, v := range extra {
		mode := os.FileMode(0o644)
		b := []byte(v)
		if from, ok := strings.CutPrefix(v, "file:"); ok {
			if b, err = os.ReadFile(from); err != nil {
				t.Fatal(err)
			}
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dst, n), b, mode); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

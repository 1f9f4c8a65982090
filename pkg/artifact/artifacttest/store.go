package artifacttest

import (
	"archive/tar"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

// Registry starts an in-process registry for the test, with or without
// the OCI referrers API, and returns its host:port (a loopback address,
// reached over plain HTTP).
func Registry(t testing.TB, referrers bool) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.WithReferrersSupport(referrers), registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// ConditionalRegistry is Registry (with the referrers API) honouring
// conditional manifest writes as a registry that supports them does: a
// PUT with If-Match "<digest>" or If-None-Match: * is answered 412 when
// the tag does not hold that digest (or exists). Distribution ignores
// both headers. It returns host:port.
func ConditionalRegistry(t testing.TB) string {
	t.Helper()
	reg := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		match, none := r.Header.Get("If-Match"), r.Header.Get("If-None-Match")
		if r.Method != http.MethodPut || !strings.Contains(r.URL.Path, "/manifests/") || match == "" && none == "" {
			reg.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		head := httptest.NewRecorder()
		reg.ServeHTTP(head, httptest.NewRequestWithContext(r.Context(), http.MethodHead, r.URL.Path, nil))
		current := ""
		if head.Code == http.StatusOK {
			current = `"` + head.Header().Get("Docker-Content-Digest") + `"`
		}
		if none == "*" && current != "" || match != "" && match != current {
			w.WriteHeader(http.StatusPreconditionFailed)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// Push writes idx to ref and returns ref pinned by digest
// (registry/repo@sha256:…).
func Push(t testing.TB, ref string, idx v1.ImageIndex) string {
	t.Helper()
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(r, idx); err != nil {
		t.Fatal(err)
	}
	h, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return r.Context().Digest(h.String()).String()
}

// WriteLayout writes idx to an OCI layout at dir as BuildKit does:
// index.json holds one entry, the kit's image index, tagged with tag.
func WriteLayout(t testing.TB, dir, tag string, idx v1.ImageIndex) {
	t.Helper()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{artifact.AnnotationRefName: tag})); err != nil {
		t.Fatal(err)
	}
}

// TarLayout archives the layout at dir into file, then appends extra
// entries (to make hostile archives).
func TarLayout(t testing.TB, dir, file string, extra ...Entry) {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if d.IsDir() {
			hdr.Name += "/"
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range extra {
		typ := e.Type
		if typ == 0 {
			typ = tar.TypeReg
		}
		if err := tw.WriteHeader(&tar.Header{Name: e.Name, Typeflag: typ, Linkname: e.Link, Mode: 0o644, Size: int64(len(e.Body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, e.Body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
}

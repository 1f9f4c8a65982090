package artifact

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// testRegistry starts an in-process registry and returns its host:port.
func testRegistry(t testing.TB, referrers bool) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.WithReferrersSupport(referrers), registry.Logger(discardLogger())))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// push writes an index to ref and returns ref pinned by digest.
func push(t testing.TB, ref string, idx v1.ImageIndex) string {
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

func mustCheck(t testing.TB, a *Artifact) []string {
	t.Helper()
	rep, err := a.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		t.Logf("%s %s [%s]: %s", f.Severity, f.Check, f.Platform, f.Message)
	}
	return summary(rep.Findings)
}

func TestOpenRegistry(t *testing.T) {
	for _, referrers := range []bool{true, false} {
		name := "referrers API"
		if !referrers {
			name = "tag-schema fallback"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			host := testRegistry(t, referrers)
			ref := host + "/kits/tool:1.2.0"
			pinned := push(t, ref, goodMixin(t).index(t))

			// A signature-like artifact attached to the kit.
			dig, _ := name2digest(t, pinned)
			sig := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
			sig = mutate.ConfigMediaType(sig, "application/vnd.dev.sigstore.bundle.v0.3+json")
			desc, err := remote.Head(dig)
			if err != nil {
				t.Fatal(err)
			}
			sig = mutate.Subject(sig, *desc).(v1.Image)
			sh, _ := sig.Digest()
			if err := remote.Write(dig.Context().Digest(sh.String()), sig); err != nil {
				t.Fatal(err)
			}

			for _, r := range []string{ref, pinned} {
				a, err := Open(ctx, r)
				if err != nil {
					t.Fatal(err)
				}
				if got := mustCheck(t, a); len(got) != 0 {
					t.Errorf("Check(%s) = %v, want no findings", r, got)
				}
				in, err := a.Inspect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(in.Referrers) != 1 || in.Referrers[0].Digest != sh.String() {
					t.Errorf("Inspect(%s).Referrers = %+v (%s), want the signature %s", r, in.Referrers, in.ReferrersError, sh)
				}
			}
		})
	}
}

func name2digest(t testing.TB, ref string) (name.Digest, error) {
	t.Helper()
	d, err := name.NewDigest(ref)
	if err != nil {
		t.Fatal(err)
	}
	return d, nil
}

func TestOpenRegistryErrors(t *testing.T) {
	ctx := context.Background()
	host := testRegistry(t, true)
	push(t, host+"/kits/tool:1.2.0", goodMixin(t).index(t))

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	tests := []struct {
		ref  string
		want error
	}{
		{ref: host + "/kits/tool:9.9.9", want: ErrNotFound},
		{ref: host + "/kits/nothing:1", want: ErrNotFound},
		{ref: host + "/kits/tool@sha256:" + strings.Repeat("0", 64), want: ErrNotFound},
		{ref: closed + "/kits/tool:1.2.0", want: ErrUnreachable},
		{ref: "Not A Reference!"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			_, err := Open(ctx, tt.ref)
			if err == nil {
				t.Fatal("Open succeeded, want an error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Open error = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.ref) {
				t.Errorf("Open error %q does not name the reference", err)
			}
		})
	}
}

// writeLayout writes idx as BuildKit does: index.json holding one entry,
// the kit's index, tagged.
func writeLayout(t testing.TB, dir string, tag string, idx v1.ImageIndex) {
	t.Helper()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{AnnotationRefName: tag})); err != nil {
		t.Fatal(err)
	}
}

func TestOpenLayout(t *testing.T) {
	ctx := context.Background()
	k := goodMixin(t)
	idx := k.index(t)

	nested := t.TempDir()
	writeLayout(t, nested, "1.2.0", idx)

	flat := t.TempDir()
	if _, err := layout.Write(flat, idx); err != nil {
		t.Fatal(err)
	}

	single := t.TempDir()
	p, err := layout.Write(single, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(k.images(t)[0], layout.WithAnnotations(map[string]string{AnnotationRefName: "docker.io/kits/tool:amd64"})); err != nil {
		t.Fatal(err)
	}

	two := t.TempDir()
	writeLayout(t, two, "1.2.0", idx)
	p2, _ := layout.FromPath(two)
	if err := p2.AppendIndex(goodWorkload(t).index(t), layout.WithAnnotations(map[string]string{AnnotationRefName: "shell"})); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		ref       string
		platforms []string
		digest    v1.Hash
	}{
		{ref: "oci:" + nested, platforms: []string{"linux/amd64", "linux/arm64"}},
		{ref: "oci:" + nested + ":1.2.0", platforms: []string{"linux/amd64", "linux/arm64"}},
		{ref: "oci:" + flat, platforms: []string{"linux/amd64", "linux/arm64"}},
		{ref: "oci:" + single + ":amd64", platforms: []string{"linux/amd64"}},
		{ref: "oci:" + two + ":shell", platforms: []string{"linux/amd64", "linux/arm64"}},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			a, err := Open(ctx, tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := a.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Findings) != 0 {
				t.Errorf("findings: %v", summary(rep.Findings))
			}
			if diff := cmp.Diff(tt.platforms, rep.Platforms); diff != "" {
				t.Errorf("platforms mismatch (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("the nested index is the artifact's", func(t *testing.T) {
		a, err := Open(ctx, "oci:"+nested)
		if err != nil {
			t.Fatal(err)
		}
		in, err := a.Inspect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := idx.Digest()
		if in.Digest != want.String() || in.AnnotationSource != "index" {
			t.Errorf("Inspect digest %s from %s, want %s from the index", in.Digest, in.AnnotationSource, want)
		}
	})
}

func TestOpenLayoutErrors(t *testing.T) {
	ctx := context.Background()
	idx := goodMixin(t).index(t)
	two := t.TempDir()
	writeLayout(t, two, "1.2.0", idx)
	p, _ := layout.FromPath(two)
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{AnnotationRefName: "latest"})); err != nil {
		t.Fatal(err)
	}
	notLayout := t.TempDir()
	aFile := filepath.Join(t.TempDir(), "kit.tar")
	if err := os.WriteFile(aFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	huge := t.TempDir()
	writeLayout(t, huge, "1", idx)
	if err := os.WriteFile(filepath.Join(huge, "index.json"), []byte(strings.Repeat(" ", maxManifestBytes+1)), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		ref     string
		want    error
		message string
	}{
		{ref: "oci:" + two + ":9", want: ErrNotFound, message: "tags: 1.2.0, latest"},
		{ref: "oci:" + two, message: "name one with :TAG"},
		{ref: "oci:" + notLayout, want: ErrNotLayout},
		{ref: "oci:" + aFile, want: ErrNotLayout, message: "oci-archive:"},
		{ref: "oci:" + filepath.Join(notLayout, "missing"), want: fs.ErrNotExist},
		{ref: "oci:", message: "names no path"},
		{ref: "oci:" + huge, want: ErrTooLarge},
		{ref: "oci-archive:" + notLayout, want: ErrNotLayout, message: "oci:"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			_, err := Open(ctx, tt.ref)
			if err == nil {
				t.Fatal("Open succeeded, want an error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Open error = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("Open error %q does not say %q", err, tt.message)
			}
		})
	}
}

// tarLayout archives a layout directory, with extra hostile entries.
func tarLayout(t testing.TB, dir, file string, extra ...entry) {
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
		if d.Type().IsRegular() {
			src, err := os.Open(p)
			if err != nil {
				return err
			}
			defer src.Close()
			_, err = io.Copy(tw, src)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range extra {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Typeflag: typ, Linkname: e.link, Mode: 0o644, Size: int64(len(e.body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenArchive(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeLayout(t, dir, "1.2.0", goodMixin(t).index(t))
	tmp := t.TempDir()
	good := filepath.Join(tmp, "kit.tar")
	tarLayout(t, dir, good)

	for _, ref := range []string{"oci-archive:" + good, "oci-archive:" + good + ":1.2.0"} {
		a, err := Open(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if got := mustCheck(t, a); len(got) != 0 {
			t.Errorf("Check(%s) = %v, want no findings", ref, got)
		}
	}

	tests := []struct {
		name  string
		extra entry
	}{
		{name: "parent escape", extra: file("../../etc/cron.d/evil", "x")},
		{name: "nested parent escape", extra: file("blobs/../../evil", "x")},
		{name: "absolute path", extra: file("/etc/evil", "x")},
		{name: "symbolic link", extra: symlink("blobs/sha256/evil", "/etc/passwd")},
		{name: "hard link", extra: entry{name: "blobs/sha256/evil", typ: tar.TypeLink, link: "oci-layout"}},
		{name: "duplicate", extra: file("oci-layout", `{"imageLayoutVersion":"1.0.0"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(tmp, strings.ReplaceAll(tt.name, " ", "-")+".tar")
			tarLayout(t, dir, file, tt.extra)
			_, err := Open(ctx, "oci-archive:"+file)
			if !errors.Is(err, ErrUnsafeArchive) {
				t.Errorf("Open error = %v, want ErrUnsafeArchive", err)
			}
		})
	}
}

func TestOpenCorruptLayout(t *testing.T) {
	ctx := context.Background()
	k := goodMixin(t)
	k.platforms = k.platforms[:1]
	dir := t.TempDir()
	writeLayout(t, dir, "1", k.index(t))
	img := k.images(t)[0]
	layers, _ := img.Layers()
	h, _ := layers[0].Digest()
	blob := filepath.Join(dir, "blobs", h.Algorithm, h.Hex)
	b, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-10] ^= 0xff // inside the gzip trailer
	if err := os.WriteFile(blob, b, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Open(ctx, "oci:"+dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := a.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() || rep.Findings[0].Check != "at-least-one-layer" {
		t.Errorf("Check of a corrupt layer = %v, want an at-least-one-layer failure", summary(rep.Findings))
	}
}

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }

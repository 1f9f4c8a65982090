package artifact_test

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
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

func mustCheck(t testing.TB, a *artifact.Artifact) []string {
	t.Helper()
	rep, err := conform.Check(context.Background(), a)
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
		label := "referrers API"
		if !referrers {
			label = "tag-schema fallback"
		}
		t.Run(label, func(t *testing.T) {
			ctx := context.Background()
			host := at.Registry(t, referrers)
			ref := host + "/kits/tool:1.2.0"
			pinned := at.Push(t, ref, at.Mixin(t).Index(t))

			// A signature-like artifact attached to the kit.
			dig, err := name.NewDigest(pinned)
			if err != nil {
				t.Fatal(err)
			}
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
				a, err := artifact.Open(ctx, r)
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

func TestOpenRegistryErrors(t *testing.T) {
	ctx := context.Background()
	host := at.Registry(t, true)
	at.Push(t, host+"/kits/tool:1.2.0", at.Mixin(t).Index(t))

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
		{ref: host + "/kits/tool:9.9.9", want: artifact.ErrNotFound},
		{ref: host + "/kits/nothing:1", want: artifact.ErrNotFound},
		{ref: host + "/kits/tool@sha256:" + strings.Repeat("0", 64), want: artifact.ErrNotFound},
		{ref: closed + "/kits/tool:1.2.0", want: artifact.ErrUnreachable},
		{ref: "Not A Reference!"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			_, err := artifact.Open(ctx, tt.ref)
			if err == nil {
				t.Fatal("artifact.Open succeeded, want an error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("artifact.Open error = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.ref) {
				t.Errorf("artifact.Open error %q does not name the reference", err)
			}
		})
	}
}

func TestOpenLayout(t *testing.T) {
	ctx := context.Background()
	k := at.Mixin(t)
	idx := k.Index(t)

	nested := t.TempDir()
	at.WriteLayout(t, nested, "1.2.0", idx)

	flat := t.TempDir()
	if _, err := layout.Write(flat, idx); err != nil {
		t.Fatal(err)
	}

	single := t.TempDir()
	p, err := layout.Write(single, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(k.Images(t)[0], layout.WithAnnotations(map[string]string{artifact.AnnotationRefName: "docker.io/kits/tool:amd64"})); err != nil {
		t.Fatal(err)
	}

	two := t.TempDir()
	at.WriteLayout(t, two, "1.2.0", idx)
	p2, _ := layout.FromPath(two)
	if err := p2.AppendIndex(at.Workload(t).Index(t), layout.WithAnnotations(map[string]string{artifact.AnnotationRefName: "shell"})); err != nil {
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
			a, err := artifact.Open(ctx, tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := conform.Check(ctx, a)
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
		a, err := artifact.Open(ctx, "oci:"+nested)
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
	idx := at.Mixin(t).Index(t)
	two := t.TempDir()
	at.WriteLayout(t, two, "1.2.0", idx)
	p, _ := layout.FromPath(two)
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{artifact.AnnotationRefName: "latest"})); err != nil {
		t.Fatal(err)
	}
	notLayout := t.TempDir()
	aFile := filepath.Join(t.TempDir(), "kit.tar")
	if err := os.WriteFile(aFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	huge := t.TempDir()
	at.WriteLayout(t, huge, "1", idx)
	if err := os.WriteFile(filepath.Join(huge, "index.json"), []byte(strings.Repeat(" ", 8<<20+1)), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		ref     string
		want    error
		message string
	}{
		{ref: "oci:" + two + ":9", want: artifact.ErrNotFound, message: "tags: 1.2.0, latest"},
		{ref: "oci:" + two, message: "name one with :TAG"},
		{ref: "oci:" + notLayout, want: artifact.ErrNotLayout},
		{ref: "oci:" + aFile, want: artifact.ErrNotLayout, message: "oci-archive:"},
		{ref: "oci:" + filepath.Join(notLayout, "missing"), want: fs.ErrNotExist},
		{ref: "oci:", message: "names no path"},
		{ref: "oci:" + huge, want: artifact.ErrTooLarge},
		{ref: "oci-archive:" + notLayout, want: artifact.ErrNotLayout, message: "oci:"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			_, err := artifact.Open(ctx, tt.ref)
			if err == nil {
				t.Fatal("artifact.Open succeeded, want an error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("artifact.Open error = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("artifact.Open error %q does not say %q", err, tt.message)
			}
		})
	}
}

func TestOpenArchive(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	at.WriteLayout(t, dir, "1.2.0", at.Mixin(t).Index(t))
	tmp := t.TempDir()
	good := filepath.Join(tmp, "kit.tar")
	at.TarLayout(t, dir, good)

	for _, ref := range []string{"oci-archive:" + good, "oci-archive:" + good + ":1.2.0"} {
		a, err := artifact.Open(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if got := mustCheck(t, a); len(got) != 0 {
			t.Errorf("Check(%s) = %v, want no findings", ref, got)
		}
	}

	tests := []struct {
		name  string
		extra at.Entry
	}{
		{name: "parent escape", extra: at.File("../../etc/cron.d/evil", "x")},
		{name: "nested parent escape", extra: at.File("blobs/../../evil", "x")},
		{name: "absolute path", extra: at.File("/etc/evil", "x")},
		{name: "symbolic link", extra: at.Symlink("blobs/sha256/evil", "/etc/passwd")},
		{name: "hard link", extra: at.Entry{Name: "blobs/sha256/evil", Type: tar.TypeLink, Link: "oci-layout"}},
		{name: "duplicate", extra: at.File("oci-layout", `{"imageLayoutVersion":"1.0.0"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(tmp, strings.ReplaceAll(tt.name, " ", "-")+".tar")
			at.TarLayout(t, dir, file, tt.extra)
			_, err := artifact.Open(ctx, "oci-archive:"+file)
			if !errors.Is(err, artifact.ErrUnsafeArchive) {
				t.Errorf("artifact.Open error = %v, want artifact.ErrUnsafeArchive", err)
			}
		})
	}
}

func TestOpenCorruptLayout(t *testing.T) {
	ctx := context.Background()
	k := at.Mixin(t)
	k.Platforms = k.Platforms[:1]
	dir := t.TempDir()
	at.WriteLayout(t, dir, "1", k.Index(t))
	img := k.Images(t)[0]
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
	a, err := artifact.Open(ctx, "oci:"+dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := conform.Check(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() || rep.Findings[0].Check != "at-least-one-layer" {
		t.Errorf("Check of a corrupt layer = %v, want an at-least-one-layer failure", summary(rep.Findings))
	}
}

package artifact_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
)

// trailerKit is the one-platform Mixin kit with an extra uncompressed
// layer whose tar is followed by trailer zero bytes.
func trailerKit(t *testing.T, trailer int) (*at.Kit, v1.Layer) {
	t.Helper()
	k := at.Mixin(t)
	k.Platforms = k.Platforms[:1]
	b := append(at.Tar(t, at.File("opt/extra", "x")), bytes.Repeat([]byte{0}, trailer)...)
	l := static.NewLayer(b, types.OCIUncompressedLayer)
	k.Extra = []v1.Layer{l}
	return k, l
}

func failures(rep *conform.Report) string {
	var out []string
	for _, f := range rep.Findings {
		if f.Severity == conform.SeverityFail {
			out = append(out, f.Check+": "+f.Message)
		}
	}
	return strings.Join(out, "\n")
}

// TestLayerReadToItsEnd is issue 10 item 6: a layer's bytes are verified
// to its end, also past more than 1 MiB after its tar's end marker, and
// the config's diff_ids are compared with the uncompressed layers.
func TestLayerReadToItsEnd(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// make returns the reference to check.
		make func(t *testing.T) string
		want string // in a failure; "" for a pass
	}{
		{name: "short trailer passes", make: func(t *testing.T) string {
			k, _ := trailerKit(t, 8<<10)
			dir := t.TempDir()
			at.WriteLayout(t, dir, "1", k.Index(t))
			return "oci:" + dir
		}},
		{name: "tampered after a 2 MiB trailer", make: func(t *testing.T) string {
			k, l := trailerKit(t, 2<<20)
			dir := t.TempDir()
			at.WriteLayout(t, dir, "1", k.Index(t))
			h, _ := l.Digest()
			blob := filepath.Join(dir, "blobs", h.Algorithm, h.Hex)
			b, err := os.ReadFile(blob)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-1] = 1
			if err := os.WriteFile(blob, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return "oci:" + dir
		}, want: "digest"},
		{name: "2 MiB trailer", make: func(t *testing.T) string {
			k, _ := trailerKit(t, 2<<20)
			dir := t.TempDir()
			at.WriteLayout(t, dir, "1", k.Index(t))
			return "oci:" + dir
		}, want: "after its end-of-archive marker"},
		{name: "wrong diff_id", make: func(t *testing.T) string {
			k := at.Mixin(t)
			k.Platforms = k.Platforms[:1]
			img := k.Images(t)[0]
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			cf = cf.DeepCopy()
			cf.RootFS.DiffIDs[0] = v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("0", 64)}
			img, err = mutate.ConfigFile(img, cf)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			at.WriteLayout(t, dir, "1", at.Index(t, k.IndexAnnotations, k.Platforms, img))
			return "oci:" + dir
		}, want: "diff_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := artifact.Open(ctx, tt.make(t))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := conform.Check(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			got := failures(rep)
			switch {
			case tt.want == "" && got != "":
				t.Errorf("Check failed:\n%s", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("Check failures = %q, want one mentioning %q", got, tt.want)
			}
		})
	}
}

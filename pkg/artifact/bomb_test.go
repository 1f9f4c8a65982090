package artifact_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
)

// generatedLayer is a gzip layer whose tar gen writes anew each time
// it is read, so a bomb is never held in memory.
func generatedLayer(t testing.TB, gen func(tw *tar.Writer) error) v1.Layer {
	t.Helper()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		pr, pw := io.Pipe()
		go func() {
			tw := tar.NewWriter(pw)
			err := gen(tw)
			if err == nil {
				err = tw.Close()
			}
			pw.CloseWithError(err)
		}()
		return pr, nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.BestSpeed))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func writeEntry(tw *tar.Writer, e at.Entry) error {
	typ := e.Type
	if typ == 0 {
		typ = tar.TypeReg
	}
	h := &tar.Header{Name: e.Name, Typeflag: typ, Mode: 0o644, Linkname: e.Link, Format: tar.FormatPAX}
	if typ == tar.TypeReg {
		h.Size = int64(len(e.Body))
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := io.WriteString(tw, e.Body)
	return err
}

// linkBomb is the Mixin kit with an extra layer of n symbolic links whose
// targets are each size bytes long: a small gzip layer that expands to
// n*size bytes of link targets.
func linkBomb(t testing.TB, n, size int) *at.Kit {
	t.Helper()
	k := at.Mixin(t)
	k.Platforms = k.Platforms[:1]
	target := strings.Repeat("x/", size/2)
	k.Extra = []v1.Layer{generatedLayer(t, func(tw *tar.Writer) error {
		for i := range n {
			if err := writeEntry(tw, at.Symlink(fmt.Sprintf("opt/links/l%d", i), target)); err != nil {
				return err
			}
		}
		return nil
	})}
	return k
}

// captureBomb is the Mixin kit with layers extra layers of files files of
// size bytes each, and a last layer staging, for each of them, a kit
// whose kit.yaml is a symbolic link to it: every staged descriptor is
// captured by a second pass over the layer that holds its target.
func captureBomb(t testing.TB, layers, files, size int) *at.Kit {
	t.Helper()
	k := at.Mixin(t)
	k.Platforms = k.Platforms[:1]
	body := strings.Repeat("#", size)
	for l := range layers {
		k.Extra = append(k.Extra, generatedLayer(t, func(tw *tar.Writer) error {
			for f := range files {
				if err := writeEntry(tw, at.File(fmt.Sprintf("opt/l%d/f%d", l, f), body)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	k.Extra = append(k.Extra, generatedLayer(t, func(tw *tar.Writer) error {
		for l := range layers {
			for f := range files {
				stem := fmt.Sprintf("usr/share/sandbox/kit/s%d-%d/", l, f)
				if err := writeEntry(tw, at.Symlink(stem+artifact.StagedDescriptor, fmt.Sprintf("/opt/l%d/f%d", l, f))); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	return k
}

// TestMemoryBudget is issue 10 item 7 on a whole kit: a link bomb is
// refused at its first impossible link target, before it takes memory.
// TestBudgetNamesAndLinks and TestBudgetCapturesAcrossLayers test the
// budget itself.
func TestMemoryBudget(t *testing.T) {
	ctx := context.Background()
	t.Run("link bomb", func(t *testing.T) {
		rep, err := conform.Check(ctx, linkBomb(t, 20, 1<<19).Artifact(t))
		if err != nil {
			t.Fatal(err)
		}
		if got := failures(rep); !strings.Contains(got, "PATH_MAX") {
			t.Errorf("failures = %q, want the path length's", got)
		}
	})
}

// TestWriteBombs writes the full-size link bombs (2000 links with
// targets of 512 KiB; 36000 links of 4000-byte targets) and capture bomb
// (12 layers of 128 one-MiB files) as OCI
// archives into $KITSMITH_BOMB_DIR, for measuring kitsmith check's peak
// memory (/usr/bin/time -v kitsmith check oci-archive:DIR/link-bomb.tar).
func TestWriteBombs(t *testing.T) {
	dir := os.Getenv("KITSMITH_BOMB_DIR")
	if dir == "" {
		t.Skip("KITSMITH_BOMB_DIR is not set")
	}
	ctx := context.Background()
	for name, k := range map[string]*at.Kit{
		"link-bomb.tar":         linkBomb(t, 2000, 1<<19),
		"link-bomb-pathmax.tar": linkBomb(t, 36000, 4000),
		"capture-bomb.tar":      captureBomb(t, 12, 128, 1<<20),
	} {
		ref := artifact.ArchivePrefix + filepath.Join(dir, name)
		if _, err := artifact.Write(ctx, k.Artifact(t), ref); err != nil {
			t.Fatal(err)
		}
		if _, err := artifact.Open(ctx, ref); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(filepath.Join(dir, name))
		t.Logf("%s: %d bytes", name, fi.Size())
	}
}

package kitimage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// TestBudgetNamesAndLinks: names and link targets count against the one
// budget, and passing it is ErrTooLarge.
func TestBudgetNamesAndLinks(t *testing.T) {
	var es []entry
	for i := range 100 {
		es = append(es, symlink(fmt.Sprintf("opt/l%d", i), strings.Repeat("x/", 1000)))
	}
	f := NewFS(wantedFile, &Budget{limit: 100 << 10, captureCap: 1 << 20})
	err := f.Apply(context.Background(), strings.NewReader(string(tarBytes(t, es...))), 0)
	if !errors.Is(err, errTooLarge) || !strings.Contains(err.Error(), "one check may hold") {
		t.Errorf("apply error = %v, want the budget's errTooLarge", err)
	}
}

// TestBudgetCapturesAcrossLayers is the capture bomb: staged descriptors
// linked to files in several layers are captured by one pass per layer,
// and the capture bound counts across all of them (it was per layer).
func TestBudgetCapturesAcrossLayers(t *testing.T) {
	const layers, files, size = 4, 8, 64 << 10
	body := strings.Repeat("#", size)
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	var staged []entry
	for l := range layers {
		var es []entry
		for f := range files {
			name := fmt.Sprintf("opt/l%d/f%d", l, f)
			es = append(es, file(name, body))
			staged = append(staged, symlink(fmt.Sprintf("usr/share/sandbox/kit/s%d-%d/kit.yaml", l, f), "/"+name))
		}
		img = appendTar(t, img, tarBytes(t, es...))
	}
	img = appendTar(t, img, tarBytes(t, staged...))
	m, err := readManifest(context.Background(), img, nil)
	if err != nil {
		t.Fatal(err)
	}
	capCap := int64(3 * size * files) // room for three layers' files of four
	b := &Budget{limit: 64 << 20, captureCap: capCap}
	fs, _, err := m.ReadFS(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	captured, tooLarge := 0, 0
	Walk(fs.Root, func(n *Node) {
		if n.Captured {
			captured++
		}
		if n.TooLarge {
			tooLarge++
		}
	})
	if b.captured > capCap || captured != int(capCap/size) || tooLarge != layers*files-captured {
		t.Errorf("captured %d files (%d bytes, bound %d), %d too large; want %d captured, the rest too large",
			captured, b.captured, capCap, tooLarge, capCap/size)
	}
}

func appendTar(t *testing.T, img v1.Image, b []byte) v1.Image {
	t.Helper()
	img, err := mutate.Append(img, mutate.Addendum{Layer: static.NewLayer(b, types.OCIUncompressedLayer)})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

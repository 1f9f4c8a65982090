package migrate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// FuzzMigrate feeds arbitrary v2 descriptors, seeded from the golden
// cases (and testdata/fuzz/FuzzMigrate): Migrate either refuses the input
// as not v2, or returns a descriptor whose first line is the v3 syntax
// line, that is YAML and parses, and that, composed with the contexts of
// TestNeverWiderThanV2, never grants more than the v2 kit did.
func FuzzMigrate(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*", "v2", SpecFile))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		fsys := fstest.MapFS{"kit/spec.yaml": {Data: src}}
		res, err := Migrate(context.Background(), fsys, "kit")
		if errors.Is(err, ErrNotV2) {
			return
		}
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		d := res.Files[0]
		if !bytes.HasPrefix(d.Data, []byte(spec.SyntaxLine+"\n")) {
			t.Fatalf("%s does not start with the syntax line:\n%s", d.Name, d.Data)
		}
		if _, err := spec.Parse(d.Name, d.Data); err != nil {
			t.Fatalf("the descriptor does not parse: %v\n%s", err, d.Data)
		}
		checkNeverWider(t, res, src)
	})
}

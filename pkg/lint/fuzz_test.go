package lint_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// FuzzRun lints arbitrary descriptors, seeded with every fixture
// descriptor: Run must not panic, and every finding must have a rule and a
// position in the descriptor.
func FuzzRun(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*/*/*/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	more, _ := filepath.Glob("testdata/reshapr-mistakes/*/*.yaml")
	for _, p := range append(seeds, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		k, err := spec.Parse("k.yaml", src)
		if err != nil {
			return
		}
		res, err := lint.Run(context.Background(), []*spec.Kit{k})
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range res.Findings {
			if fd.RuleID == "" || fd.Message == "" || fd.Range.Start.File != "k.yaml" {
				t.Errorf("finding %+v", fd)
			}
		}
	})
}

package lint_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// corpus returns every kit of this package's testdata: the rule fixtures
// and the reShapr mistakes, plus the repository's own kits.
func corpus(b *testing.B) []string {
	b.Helper()
	var dirs []string
	for _, pattern := range []string{"testdata/*/*/*", "testdata/reshapr-mistakes/*", "../../kits/*"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range m {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				dirs = append(dirs, d)
			}
		}
	}
	if len(dirs) < 50 {
		b.Fatalf("corpus has %d kits", len(dirs))
	}
	return dirs
}

// benchKits loads every kit of the corpus in each iteration and hands it
// to fn, reporting the time per kit.
func benchKits(b *testing.B, fn func(*spec.Kit) error) {
	dirs := corpus(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range dirs {
			k, err := spec.LoadPath(d)
			if err != nil {
				b.Fatal(err)
			}
			if err := fn(k); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(dirs)), "ns/kit")
}

// BenchmarkValidate is the baseline of BenchmarkLint: loading and
// validating the same kits, which is what kitsmith validate does.
func BenchmarkValidate(b *testing.B) {
	benchKits(b, func(k *spec.Kit) error {
		k.Validate()
		return nil
	})
}

// BenchmarkLint loads and lints every kit of the corpus: validation (as
// spec/<code> findings), every rule, configuration and suppressions.
// Target: at most twice BenchmarkValidate.
func BenchmarkLint(b *testing.B) {
	ctx := context.Background()
	benchKits(b, func(k *spec.Kit) error {
		_, err := lint.Run(ctx, []*spec.Kit{k})
		return err
	})
}

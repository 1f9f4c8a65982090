package review

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// benchKits decodes every kit descriptor of the repository's testdata
// (pkg/spec, pkg/lint, pkg/review), valid or not, that has a descriptor.
func benchKits(b *testing.B) []*Kit {
	b.Helper()
	var out []*Kit
	for _, root := range []string{"../spec/testdata", "../lint/testdata", "testdata"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil || !bytes.HasPrefix(src, []byte(spec.SyntaxLine)) {
				return err
			}
			k, err := spec.Parse(p, src)
			if err == nil && k.Descriptor != nil {
				out = append(out, &Kit{Name: p, Descriptor: k.Descriptor, Source: k})
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if len(out) < 20 {
		b.Fatalf("only %d kits in the corpus", len(out))
	}
	return out
}

// BenchmarkSurfaceOf computes the permission surface of every kit of the
// corpus once per iteration.
func BenchmarkSurfaceOf(b *testing.B) {
	kits := benchKits(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range kits {
			spec.SurfaceOf(k.Descriptor)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(kits)), "ns/kit")
}

// BenchmarkDiff diffs every kit of the corpus against the next one
// (surfaces, origins with positions, other changes, optional groups).
func BenchmarkDiff(b *testing.B) {
	kits := benchKits(b)
	b.ReportAllocs()
	for b.Loop() {
		for i := 1; i < len(kits); i++ {
			Diff(kits[i-1], kits[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(len(kits)-1)), "ns/diff")
}

// BenchmarkCheckCeiling judges every kit of the corpus against an empty
// ceiling, so that every grant is a violation with a position.
func BenchmarkCheckCeiling(b *testing.B) {
	kits := benchKits(b)
	p := &Policy{PolicyVersion: PolicyVersion, Ceiling: &Ceiling{}}
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range kits {
			if _, err := CheckKit(k, p); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(kits)), "ns/kit")
}

package build

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/moby/buildkit/client"
	"github.com/tonistiigi/fsutil"
)

// BenchmarkDeclarationOnly builds a declaration-only mixin in-process for
// two platforms: publish, assemble, check, no output. Target: under 20 ms.
func BenchmarkDeclarationOnly(b *testing.B) {
	k := loadKit(b, "decl-mixin")
	for b.Loop() {
		if _, err := Build(context.Background(), nil, k, Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecipe compares kitsmith's BuildKit path for a recipe kit
// (publish, gateway build function calling dockerfile.v0 per platform,
// staged layer, export, check) with a plain dockerfile.v0 solve of the
// same recipe and the same exporter settings, both on a warm cache, for
// two platforms. Target: kitsmith adds under 20%. Skips without
// BUILDKIT_HOST.
func BenchmarkRecipe(b *testing.B) {
	c, _ := integration(b)
	for _, kit := range []string{"companion-workload", "explicit-mixin"} {
		k := loadKit(b, kit)
		b.Run(kit+"/kitsmith", func(b *testing.B) {
			o := Options{SourceDateEpoch: epoch(0)}
			if _, err := Build(context.Background(), c, k, o, nil); err != nil { // warm the cache
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := Build(context.Background(), c, k, o, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(kit+"/dockerfile.v0", func(b *testing.B) {
			solve := plainSolve(b, c, k.Dir, k.Recipe.Name)
			solve() // warm the cache
			for b.Loop() {
				solve()
			}
		})
	}
}

// BenchmarkRecipeOverhead runs kitsmith's path and the plain solve of
// BenchmarkRecipe alternately, so that both see the same load, and reports
// their medians and kitsmith's overhead in percent.
func BenchmarkRecipeOverhead(b *testing.B) {
	c, _ := integration(b)
	for _, kit := range []string{"companion-workload", "explicit-mixin"} {
		k := loadKit(b, kit)
		b.Run(kit, func(b *testing.B) {
			o := Options{SourceDateEpoch: epoch(0)}
			solve := plainSolve(b, c, k.Dir, k.Recipe.Name)
			kitsmith := func() {
				if _, err := Build(context.Background(), c, k, o, nil); err != nil {
					b.Fatal(err)
				}
			}
			kitsmith() // warm the cache
			solve()
			var ks, ps []time.Duration
			for b.Loop() {
				t0 := time.Now()
				kitsmith()
				t1 := time.Now()
				solve()
				ks, ps = append(ks, t1.Sub(t0)), append(ps, time.Since(t1))
			}
			mk, mp := median(ks), median(ps)
			b.ReportMetric(float64(mk.Microseconds())/1000, "ms-kitsmith")
			b.ReportMetric(float64(mp.Microseconds())/1000, "ms-plain")
			b.ReportMetric(100*(float64(mk)/float64(mp)-1), "%-overhead")
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// plainSolve returns a dockerfile.v0 solve of the recipe in dir, for both
// default platforms, exported as an OCI archive with the exporter settings
// kitsmith uses.
func plainSolve(b testing.TB, c *client.Client, dir, recipe string) func() {
	fs, err := fsutil.NewFS(dir)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "out.tar")
	return func() {
		_, err := c.Solve(context.Background(), nil, client.SolveOpt{
			Frontend: "dockerfile.v0",
			FrontendAttrs: map[string]string{
				"filename": recipe, "platform": "linux/amd64,linux/arm64", "build-arg:SOURCE_DATE_EPOCH": "0",
			},
			LocalMounts: map[string]fsutil.FS{"context": fs, "dockerfile": fs},
			Exports: []client.ExportEntry{{
				Type:   client.ExporterOCI,
				Output: func(map[string]string) (io.WriteCloser, error) { return os.Create(out) },
				Attrs:  map[string]string{"oci-mediatypes": "true", "rewrite-timestamp": "true", "source-date-epoch": "0"},
			}},
		}, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
}

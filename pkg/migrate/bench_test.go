package migrate

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkMigrate migrates every golden v2 kit once per iteration,
// validation and lint of the result included.
func BenchmarkMigrate(b *testing.B) {
	entries := rows(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range entries {
			fsys := os.DirFS(filepath.Join("testdata", e))
			if _, err := Migrate(ctx, fsys, "v2"); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(entries)), "kits/op")
}

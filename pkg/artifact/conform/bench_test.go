package conform_test

import (
	"context"
	"testing"

	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
)

// BenchmarkCheck judges a conforming two-platform workload in memory, as
// a build does before exporting.
func BenchmarkCheck(b *testing.B) {
	a := at.Workload(b).Artifact(b)
	ctx := context.Background()
	for b.Loop() {
		rep, err := conform.Check(ctx, a)
		if err != nil || rep.Failed() {
			b.Fatal(err, rep)
		}
	}
}

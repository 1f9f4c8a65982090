package artifact_test

import (
	"context"
	"testing"

	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// BenchmarkCheck judges a conforming two-platform workload in memory, as
// a build does before exporting.
func BenchmarkCheck(b *testing.B) {
	a := at.Workload(b).Artifact(b)
	ctx := context.Background()
	for b.Loop() {
		rep, err := a.Check(ctx)
		if err != nil || rep.Failed() {
			b.Fatal(err, rep)
		}
	}
}

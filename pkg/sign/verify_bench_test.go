package sign_test

import (
	"context"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// BenchmarkVerify verifies one bundle (certificate chain, signed
// timestamp, identity, statement subject) from an in-memory store.
func BenchmarkVerify(b *testing.B) {
	f := newFixture(b)
	st := signtest.NewStore()
	k := kit(b)
	f.signed(b, st, k, k, signtest.Cert{})
	v := verifierFor(b, f.trust)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Verify(ctx, st, k, devPolicy); err != nil {
			b.Fatal(err)
		}
	}
}

package sign_test

import (
	"context"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// BenchmarkVerify verifies one bundle (certificate chain, signed
// timestamp, identity, statement subject) from an in-memory store.
func BenchmarkVerify(b *testing.B) {
	ss := signtest.New(b)
	trust := ss.TrustedRoot(b)
	st := signtest.NewStore()
	k := kit(b)
	f := &fixture{ss: ss, trust: trust}
	f.signed(b, st, k, k, signtest.Cert{})
	v := verifierFor(b, trust)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Verify(ctx, st, k, devPolicy); err != nil {
			b.Fatal(err)
		}
	}
}

package sign_test

import (
	"context"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// FuzzParseBundle feeds ParseBundle and a verification mangled bundles: it
// must reject them with an error, never panic, and never accept one.
func FuzzParseBundle(f *testing.F) {
	fx := newFixture(f)
	k := kit(f)
	good, err := fx.signed(f, signtest.NewStore(), k, k, signtest.Cert{}).MarshalJSON()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`))
	v := verifierFor(f, fx.trust)
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := sign.ParseBundle(data)
		if err != nil {
			return
		}
		st := signtest.NewStore()
		if _, err := sign.Attach(context.Background(), st, k, b); err != nil {
			return
		}
		res, err := v.Verify(context.Background(), st, k, devPolicy)
		if err == nil && string(data) != string(good) && len(res.Accepted()) > 0 {
			// Only re-encodings of the good bundle may verify.
			rb, _ := b.MarshalJSON()
			if string(rb) != string(good) {
				t.Errorf("a mangled bundle verified:\n%s", data)
			}
		}
	})
}

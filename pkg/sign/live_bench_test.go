package sign_test

import (
	"context"
	"testing"

	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
)

// BenchmarkVerifyLive verifies one bundle of the local stack: Fulcio
// certificate with its SCT, Rekor v2 inclusion proof and checkpoint, TSA
// timestamp.
func BenchmarkVerifyLive(b *testing.B) {
	s, tr, svc := liveStack(b)
	ctx := context.Background()
	k := kit(b)
	bundle, err := liveSigner(b, tr, svc, sign.StaticToken(s.Token(b, stack.Email, nil)), sign.WithServices(svc)).Sign(ctx, k)
	if err != nil {
		b.Fatal(err)
	}
	st := signtest.NewStore()
	attach(b, st, k, bundle)
	v := liveVerifier(b, s, tr)
	p := sign.Policy{Identity: stack.DefaultEmail, Issuer: s.OIDCURL}
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Verify(ctx, st, k, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignFulcioTSA signs with the local Fulcio and TSA and no log,
// through kitsmith's Signer and through sigstore-go directly, both
// verifying the new bundle against the trusted root.
func BenchmarkSignFulcioTSA(b *testing.B) {
	s, tr, svc := liveStack(b)
	tok := s.Token(b, stack.Email, nil)
	ctx := context.Background()
	k := kit(b)
	b.Run("kitsmith", func(b *testing.B) {
		signer := liveSigner(b, tr, svc, sign.StaticToken(tok), sign.WithTimestampAuthority(svc.TSAs[0]))
		for b.Loop() {
			if _, err := signer.Sign(ctx, k); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sigstore-go", func(b *testing.B) {
		payload := []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"digest":{"sha256":"` + k.Digest.Hex + `"}}],"predicateType":"https://sigstore.dev/cosign/sign/v1","predicate":{}}`)
		fulcio := sgsign.NewFulcio(&sgsign.FulcioOptions{BaseURL: svc.Fulcio, Retries: 1})
		tsa := sgsign.NewTimestampAuthority(&sgsign.TimestampAuthorityOptions{URL: svc.TSAs[0], Retries: 1})
		for b.Loop() {
			kp, err := sgsign.NewEphemeralKeypair(nil)
			if err != nil {
				b.Fatal(err)
			}
			_, err = sgsign.Bundle(&sgsign.DSSEData{Data: payload, PayloadType: sign.InTotoPayloadType}, kp, sgsign.BundleOptions{
				CertificateProvider:        fulcio,
				CertificateProviderOptions: &sgsign.CertificateProviderOptions{IDToken: tok},
				TimestampAuthorities:       []*sgsign.TimestampAuthority{tsa},
				Context:                    ctx,
				TrustedRoot:                tr,
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSignRekorV2 signs with Fulcio, TSA and the Rekor v2 log.
func BenchmarkSignRekorV2(b *testing.B) {
	s, tr, svc := liveStack(b)
	signer := liveSigner(b, tr, svc, sign.StaticToken(s.Token(b, stack.Email, nil)), sign.WithServices(svc))
	ctx := context.Background()
	k := kit(b)
	for b.Loop() {
		if _, err := signer.Sign(ctx, k); err != nil {
			b.Fatal(err)
		}
	}
}

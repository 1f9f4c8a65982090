package publish

import (
	"context"
	"encoding/json"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/sign"
)

// NewSigner returns the Signer pkg/sign implements: s signs, sign.Attach
// stores each bundle as a referrer, and the signer's identity is read from
// the bundle's certificate (or named by keyName for a key-based signer,
// whose bundle has none).
func NewSigner(s *sign.Signer, keyName string) Signer { return bundleSigner{s: s, keyName: keyName} }

type bundleSigner struct {
	s       *sign.Signer
	keyName string
}

var _ Signer = bundleSigner{}

func (b bundleSigner) Sign(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor) (*Signature, error) {
	bundle, err := b.s.Sign(ctx, subject)
	if err != nil {
		return nil, err
	}
	return b.attach(ctx, st, subject, bundle)
}

func (b bundleSigner) Attest(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor, predicateType string, predicate json.RawMessage) (*Signature, error) {
	bundle, err := b.s.Attest(ctx, subject, predicateType, predicate)
	if err != nil {
		return nil, err
	}
	return b.attach(ctx, st, subject, bundle)
}

func (b bundleSigner) attach(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor, bundle *sign.Bundle) (*Signature, error) {
	sig := &Signature{Subject: subject, Identity: b.keyName}
	identity, issuer, logIndex := bundle.Claims()
	if identity != "" {
		sig.Identity, sig.Issuer = identity, issuer
	}
	sig.LogIndex = logIndex
	d, err := sign.Attach(ctx, st, subject, bundle)
	if err != nil {
		return nil, err
	}
	sig.Referrer = d
	return sig, nil
}

// NewVerifier returns the Verifier pkg/sign implements: it accepts only a
// kit signature (predicate type sign.CosignSignPredicateType) by the exact
// identity and issuer wanted; with no identity (a key-based signature) the
// verifier's trusted key decides.
func NewVerifier(v *sign.Verifier) Verifier { return bundleVerifier{v: v} }

type bundleVerifier struct{ v *sign.Verifier }

var _ Verifier = bundleVerifier{}

func (b bundleVerifier) Verify(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor, want Signature) (*Verification, error) {
	p := sign.Policy{PredicateType: sign.CosignSignPredicateType}
	if want.Issuer != "" {
		p.Identity, p.Issuer = want.Identity, want.Issuer
	}
	res, err := b.v.Verify(ctx, st, subject, p)
	if err != nil {
		return nil, err // Verify succeeds only when a signature was accepted
	}
	return &Verification{Identity: want.Identity, Issuer: want.Issuer, Signatures: len(res.Accepted())}, nil
}

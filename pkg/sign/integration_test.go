package sign_test

import (
	"context"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
	"github.com/sigstore/sigstore-go/pkg/root"
)

// liveStack returns the local Sigstore stack (scripts/services.sh), its
// trusted root and services; it skips without one unless
// KITSMITH_INTEGRATION=1.
func liveStack(t testing.TB) (stack.Stack, *root.TrustedRoot, sign.Services) {
	t.Helper()
	s, ok := stack.Env(t)
	if !ok {
		t.Skip("no Sigstore stack (KITSMITH_TEST_TRUSTED_ROOT unset); run scripts/test.sh")
	}
	tr, svc := signtest.LoadInstance(t, s.TrustedRoot, s.SigningConfig)
	return s, tr, svc
}

// liveVerifier verifies with the stack's defaults: a log entry, a
// timestamp, and an SCT when the stack runs a CT log.
func liveVerifier(t testing.TB, s stack.Stack, trust root.TrustedMaterial) *sign.Verifier {
	t.Helper()
	var opts []sign.VerifierOption
	if s.CTLogURL == "" {
		opts = append(opts, sign.WithoutSCTUnsafe())
	}
	v, err := sign.NewVerifier(trust, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func liveSigner(t testing.TB, tr *root.TrustedRoot, svc sign.Services, tokens sign.TokenSource, opts ...sign.SignerOption) *sign.Signer {
	t.Helper()
	s, err := sign.NewSigner(nil, sign.NewFulcio(svc.Fulcio, tokens, nil), append([]sign.SignerOption{sign.WithSelfVerification(tr)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestIntegrationKeyless signs with the real Fulcio, TSA and Rekor v2 and
// checks acceptance and each rejection.
func TestIntegrationKeyless(t *testing.T) {
	s, tr, svc := liveStack(t)
	ctx := context.Background()
	email := sign.StaticToken(s.Token(t, stack.Email, nil))
	signer := liveSigner(t, tr, svc, email, sign.WithServices(svc))
	k, otherKit := kit(t), kit(t)
	b, err := signer.Sign(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	bOther, err := signer.Sign(ctx, otherKit)
	if err != nil {
		t.Fatal(err)
	}
	good := sign.Policy{Identity: stack.DefaultEmail, Issuer: s.OIDCURL}
	untrusted := signtest.New(t).TrustedRoot(t)

	tests := []struct {
		name       string
		store      func(t *testing.T) *signtest.Store
		trust      root.TrustedMaterial
		policy     sign.Policy
		wantErr    error
		wantReason string
	}{
		{name: "right identity", store: storeWith(k, b), policy: good},
		{name: "issuer regexp", store: storeWith(k, b), policy: sign.Policy{Identity: stack.DefaultEmail, IssuerRegexp: `^http://127\.0\.0\.1:\d+/`}},
		{name: "wrong identity", store: storeWith(k, b), policy: sign.Policy{Identity: "eve@example.com", Issuer: s.OIDCURL},
			wantErr: &sign.VerificationError{}, wantReason: `expected SAN value "eve@example.com", got "dev@example.com"`},
		{name: "wrong issuer", store: storeWith(k, b), policy: sign.Policy{Identity: stack.DefaultEmail, Issuer: "https://token.actions.githubusercontent.com"},
			wantErr: &sign.VerificationError{}, wantReason: `expected issuer value "https://token.actions.githubusercontent.com"`},
		{name: "identity regexp not matching", store: storeWith(k, b), policy: sign.Policy{IdentityRegexp: `@example\.net$`, Issuer: s.OIDCURL},
			wantErr: &sign.VerificationError{}, wantReason: `expected SAN value to match regex`},
		{name: "signature over a different kit's digest", store: storeWith(k, bOther), policy: good,
			wantErr: &sign.VerificationError{}, wantReason: "not over this kit"},
		{name: "tampered bundle", store: storeWith(k, tamper(t, b, flipSignatureBit)), policy: good,
			wantErr: &sign.VerificationError{}, wantReason: "failed to verify"},
		{name: "tampered statement", store: storeWith(k, tamper(t, b, respacePayload)), policy: good,
			wantErr: &sign.VerificationError{}, wantReason: "failed to verify"},
		{name: "untrusted root", store: storeWith(k, b), trust: untrusted, policy: good,
			wantErr: &sign.VerificationError{}, wantReason: "failed to verify"},
		{name: "no signature", store: storeWith(otherKit, bOther), policy: good, wantErr: sign.ErrNoSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trust := tt.trust
			if trust == nil {
				trust = tr
			}
			res, err := liveVerifier(t, s, trust).Verify(ctx, tt.store(t), k, tt.policy)
			checkVerify(t, res, err, tt.wantErr, tt.wantReason)
			if tt.wantErr == nil {
				sig := res.Accepted()[0]
				if sig.LogIndex == nil || sig.Identity != stack.DefaultEmail || sig.Issuer != s.OIDCURL {
					t.Errorf("accepted signature = %+v, want a log index and the signer", sig)
				}
			}
		})
	}
}

// TestIntegrationFulcioTSAWithoutLog signs with no transparency log: the
// default verifier rejects it, WithoutTlogUnsafe accepts it on the
// timestamp; signed with Fulcio alone (no timestamp either), it is
// rejected even so.
func TestIntegrationFulcioTSAWithoutLog(t *testing.T) {
	s, tr, svc := liveStack(t)
	ctx := context.Background()
	signer := liveSigner(t, tr, svc, sign.StaticToken(s.Token(t, stack.Email, nil)), sign.WithTimestampAuthority(svc.TSAs[0]))
	k := kit(t)
	b, err := signer.Sign(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	good := sign.Policy{Identity: stack.DefaultEmail, Issuer: s.OIDCURL}
	res, err := liveVerifier(t, s, tr).Verify(ctx, storeWith(k, b)(t), k, good)
	checkVerify(t, res, err, &sign.VerificationError{}, "transparency log")

	opts := []sign.VerifierOption{sign.WithoutTlogUnsafe()}
	if s.CTLogURL == "" {
		opts = append(opts, sign.WithoutSCTUnsafe())
	}
	v, err := sign.NewVerifier(tr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	res, err = v.Verify(ctx, storeWith(k, b)(t), k, good)
	checkVerify(t, res, err, nil, "")

	// With Fulcio alone, nothing says when the signature was made: its
	// 10-minute certificate cannot be checked, now or later.
	bare := liveSigner(t, tr, svc, sign.StaticToken(s.Token(t, stack.Email, nil)))
	bb, err := bare.Sign(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	res, err = v.Verify(ctx, storeWith(k, bb)(t), k, good)
	checkVerify(t, res, err, &sign.VerificationError{}, "no signed timestamp and no log entry")
}

// TestIntegrationGitHubActions gets the token the way a workflow does and
// verifies the workflow claims.
func TestIntegrationGitHubActions(t *testing.T) {
	s, tr, svc := liveStack(t)
	if s.ActionsTokenURL == "" {
		t.Fatal("the stack has no GitHub Actions token endpoint")
	}
	ctx := context.Background()
	tokens := sign.GitHubActionsToken(s.ActionsTokenURL, s.ActionsToken, nil)
	k := kit(t)
	b, err := liveSigner(t, tr, svc, tokens, sign.WithServices(svc)).Sign(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	identity := "https://github.com/" + stack.DefaultRepository + "/" + stack.DefaultWorkflow + "@" + stack.DefaultRef
	p := sign.Policy{Identity: identity, Issuer: s.GitHubOIDCURL, GitHubWorkflowRepository: stack.DefaultRepository, GitHubWorkflowRef: stack.DefaultRef}
	res, err := liveVerifier(t, s, tr).Verify(ctx, storeWith(k, b)(t), k, p)
	checkVerify(t, res, err, nil, "")
	p.GitHubWorkflowRepository = "acme/other"
	res, err = liveVerifier(t, s, tr).Verify(ctx, storeWith(k, b)(t), k, p)
	checkVerify(t, res, err, &sign.VerificationError{}, `expected GithubWorkflowRepository to be "acme/other"`)
}

// storeWith returns a store in which b is attached to subject.
func storeWith(subject v1.Descriptor, b *sign.Bundle) func(t *testing.T) *signtest.Store {
	return func(t *testing.T) *signtest.Store {
		st := signtest.NewStore()
		attach(t, st, subject, b)
		return st
	}
}

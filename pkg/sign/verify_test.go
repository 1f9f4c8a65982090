package sign_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
	"github.com/sigstore/sigstore-go/pkg/root"
)

const (
	devIdentity = "dev@example.org"
	devIssuer   = "http://127.0.0.1:18089"
)

// kit returns the descriptor of a made-up kit index.
func kit(t testing.TB) v1.Descriptor {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	h, _, err := v1.SHA256(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return v1.Descriptor{MediaType: types.OCIImageIndex, Size: 512, Digest: h}
}

// fixture is one in-process Sigstore with a signer for dev@example.org.
type fixture struct {
	ss    *signtest.Sigstore
	trust *root.TrustedRoot
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ss := signtest.New(t)
	return &fixture{ss: ss, trust: ss.TrustedRoot(t)}
}

func (f *fixture) signer(t testing.TB, c signtest.Cert, opts ...sign.SignerOption) *sign.Signer {
	t.Helper()
	if c.Identity == "" {
		c.Identity, c.Issuer = devIdentity, devIssuer
	}
	s, err := sign.NewSigner(nil, f.ss.Certificates(c), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// signed signs subject with c and a timestamp and attaches it to st under
// attachTo; it returns the bundle.
func (f *fixture) signed(t testing.TB, st sign.ReferrerStore, subject, attachTo v1.Descriptor, c signtest.Cert, opts ...sign.SignerOption) *sign.Bundle {
	t.Helper()
	if len(opts) == 0 {
		opts = []sign.SignerOption{sign.WithTimestampAuthority(f.ss.TSAURL)}
	}
	b, err := f.signer(t, c, opts...).Sign(context.Background(), subject)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sign.Attach(context.Background(), st, attachTo, b); err != nil {
		t.Fatal(err)
	}
	return b
}

func verifierFor(t testing.TB, trust root.TrustedMaterial) *sign.Verifier {
	t.Helper()
	v, err := sign.NewVerifier(trust, sign.WithoutSCTUnsafe(), sign.WithoutTlogUnsafe())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var devPolicy = sign.Policy{Identity: devIdentity, Issuer: devIssuer}

func TestVerifyPolicy(t *testing.T) {
	f := newFixture(t)
	other := newFixture(t)
	gh := signtest.Cert{
		Identity: "https://github.com/acme/kits/.github/workflows/release.yml@refs/heads/main",
		Issuer:   "https://token.actions.githubusercontent.com",
		GitHub:   &signtest.GitHubClaims{Trigger: "push", SHA: "0123abc", Name: "release", Repository: "acme/kits", Ref: "refs/heads/main"},
	}
	ghPolicy := sign.Policy{Identity: gh.Identity, Issuer: gh.Issuer, GitHubWorkflowRepository: "acme/kits", GitHubWorkflowRef: "refs/heads/main", GitHubWorkflowTrigger: "push", GitHubWorkflowName: "release"}

	tests := []struct {
		name string
		// setup signs into st and returns the subject to verify.
		setup      func(t *testing.T, st *signtest.Store) v1.Descriptor
		trust      root.TrustedMaterial
		policy     sign.Policy
		wantErr    error  // errors.Is target; nil for accepted
		wantReason string // in the rejected signature's reason
	}{
		{
			name: "right identity",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				f.signed(t, st, k, k, signtest.Cert{})
				return k
			},
			policy: devPolicy,
		},
		{
			name: "wrong identity",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				f.signed(t, st, k, k, signtest.Cert{})
				return k
			},
			policy:     sign.Policy{Identity: "eve@example.org", Issuer: devIssuer},
			wantErr:    &sign.VerificationError{},
			wantReason: `expected SAN value "eve@example.org", got "dev@example.org"`,
		},
		{
			name: "wrong issuer",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				f.signed(t, st, k, k, signtest.Cert{})
				return k
			},
			policy:     sign.Policy{Identity: devIdentity, Issuer: "https://token.actions.githubusercontent.com"},
			wantErr:    &sign.VerificationError{},
			wantReason: `expected issuer value "https://token.actions.githubusercontent.com", got "http://127.0.0.1:18089"`,
		},
		{
			name: "identity regexp not matching",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				f.signed(t, st, k, k, signtest.Cert{})
				return k
			},
			policy:     sign.Policy{IdentityRegexp: `^.*@example\.net$`, Issuer: devIssuer},
			wantErr:    &sign.VerificationError{},
			wantReason: `expected SAN value to match regex "^.*@example\.net$"`,
		},
		{
			name: "identity and issuer regexps matching",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				f.signed(t, st, k, k, signtest.Cert{})
				return k
			},
			policy: sign.Policy{IdentityRegexp: `@example\.org$`, IssuerRegexp: `^http://127\.0\.0\.1:\d+$`},
		},
		{
			name: "trusted signers list, second entry matches",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				f.signed(t, st, k, k, signtest.Cert{})
				return k
			},
			policy: sign.Policy{TrustedSigners: []sign.TrustedSigner{
				{Identity: "ops@example.org", Issuer: devIssuer},
				{IdentityRegexp: `^dev@`, Issuer: devIssuer},
			}},
		},
		{
			name: "signature over a different kit's digest",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k, otherKit := kit(t), kit(t)
				f.signed(t, st, otherKit, k, signtest.Cert{}) // copied from the other kit's referrer
				return k
			},
			policy:     devPolicy,
			wantErr:    &sign.VerificationError{},
			wantReason: "not over this kit",
		},
		{
			name: "tampered bundle",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				b, err := f.signer(t, signtest.Cert{}, sign.WithTimestampAuthority(f.ss.TSAURL)).Sign(context.Background(), k)
				if err != nil {
					t.Fatal(err)
				}
				attach(t, st, k, tamper(t, b, flipSignatureBit))
				return k
			},
			policy:     devPolicy,
			wantErr:    &sign.VerificationError{},
			wantReason: "unable to verify signed timestamps: hashed messages don't match",
		},
		{
			name: "tampered statement",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				b, err := f.signer(t, signtest.Cert{}, sign.WithTimestampAuthority(f.ss.TSAURL)).Sign(context.Background(), k)
				if err != nil {
					t.Fatal(err)
				}
				attach(t, st, k, tamper(t, b, respacePayload))
				return k
			},
			policy:     devPolicy,
			wantErr:    &sign.VerificationError{},
			wantReason: "failed to verify signature",
		},
		{
			name: "untrusted root",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				f.signed(t, st, k, k, signtest.Cert{})
				return k
			},
			trust:      other.trust,
			policy:     devPolicy,
			wantErr:    &sign.VerificationError{},
			wantReason: "unable to verify signed timestamps",
		},
		{
			name: "certificate from an untrusted CA",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				f.signed(t, st, k, k, signtest.Cert{})
				return k
			},
			trust:      mixedTrust(t, other.trust, f.trust),
			policy:     devPolicy,
			wantErr:    &sign.VerificationError{},
			wantReason: "failed to verify leaf certificate",
		},
		{
			name:    "no signature",
			setup:   func(t *testing.T, st *signtest.Store) v1.Descriptor { return kit(t) },
			policy:  devPolicy,
			wantErr: sign.ErrNoSignature,
		},
		{
			name: "only a referrer that is not a bundle",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				pushSBOM(t, st, k)
				return k
			},
			policy:  devPolicy,
			wantErr: sign.ErrNoSignature,
		},
		{
			name: "certificate outside its validity window, no timestamp",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				b, err := f.signer(t, signtest.Cert{Identity: devIdentity, Issuer: devIssuer, NotBefore: timeAgo(2)}).Sign(context.Background(), k)
				if err != nil {
					t.Fatal(err)
				}
				attach(t, st, k, b)
				return k
			},
			policy:     devPolicy,
			wantErr:    &sign.VerificationError{},
			wantReason: "no signed timestamp and no log entry",
		},
		{
			name: "certificate expired before its timestamp",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				f.signed(t, st, k, k, signtest.Cert{Identity: devIdentity, Issuer: devIssuer, NotBefore: timeAgo(2)})
				return k
			},
			policy:     devPolicy,
			wantErr:    &sign.VerificationError{},
			wantReason: "failed to verify leaf certificate",
		},
		{
			name:   "GitHub workflow claims match",
			setup:  func(t *testing.T, st *signtest.Store) v1.Descriptor { k := kit(t); f.signed(t, st, k, k, gh); return k },
			policy: ghPolicy,
		},
		{
			name:  "GitHub workflow ref does not match",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor { k := kit(t); f.signed(t, st, k, k, gh); return k },
			policy: func() sign.Policy {
				p := ghPolicy
				p.GitHubWorkflowRef = "refs/tags/v1"
				return p
			}(),
			wantErr:    &sign.VerificationError{},
			wantReason: `expected GithubWorkflowRef to be "refs/tags/v1", got "refs/heads/main"`,
		},
		{
			name: "required predicate type not signed",
			setup: func(t *testing.T, st *signtest.Store) v1.Descriptor {
				k := kit(t)
				f.signed(t, st, k, k, signtest.Cert{})
				return k
			},
			policy:     sign.Policy{Identity: devIdentity, Issuer: devIssuer, PredicateType: "https://slsa.dev/provenance/v1"},
			wantErr:    &sign.VerificationError{},
			wantReason: `predicate type "https://sigstore.dev/cosign/sign/v1" is not the required "https://slsa.dev/provenance/v1"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := signtest.NewStore()
			subject := tt.setup(t, st)
			trust := tt.trust
			if trust == nil {
				trust = f.trust
			}
			res, err := verifierFor(t, trust).Verify(context.Background(), st, subject, tt.policy)
			checkVerify(t, res, err, tt.wantErr, tt.wantReason)
		})
	}
}

// checkVerify checks a Verify outcome against the wanted error and reason.
// byteDump is a Go byte slice printed with %v, which a reason must not show.
var byteDump = regexp.MustCompile(`\[(?:\d{1,3} ){3,}\d{1,3}\]`)

func checkVerify(t *testing.T, res *sign.Result, err, wantErr error, wantReason string) {
	t.Helper()
	var ve *sign.VerificationError
	switch {
	case wantErr == nil:
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		if len(res.Accepted()) != 1 {
			t.Fatalf("accepted %d signatures, want 1: %+v", len(res.Accepted()), res.Signatures)
		}
		if s := res.Accepted()[0]; s.Identity == "" || len(s.Timestamps) == 0 || s.Reason != "" {
			t.Errorf("accepted signature lacks identity or timestamps, or has a reason: %+v", s)
		}
	case errors.As(wantErr, &ve):
		if !errors.As(err, &ve) {
			t.Fatalf("Verify error = %v, want a *VerificationError", err)
		}
		if errors.Unwrap(ve) == nil || ve.Result != res {
			t.Errorf("VerificationError has no cause or another result: %#v", ve)
		}
		if len(res.Signatures) != 1 || res.Signatures[0].Accepted {
			t.Fatalf("signatures = %+v, want one rejected", res.Signatures)
		}
		if r := res.Signatures[0].Reason; !strings.Contains(r, wantReason) {
			t.Errorf("reason = %q, want it to contain %q", r, wantReason)
		}
		if r := res.Signatures[0].Reason; byteDump.MatchString(r) || strings.Contains(r, "%!w") || strings.Contains(r, "\n") {
			t.Errorf("reason %q is not one readable line", r)
		}
		if !strings.Contains(err.Error(), wantReason) {
			t.Errorf("error %q does not give the reason %q", err, wantReason)
		}
	default:
		if !errors.Is(err, wantErr) {
			t.Fatalf("Verify error = %v, want %v", err, wantErr)
		}
	}
}

// timeAgo returns the time h hours ago.
func timeAgo(h int) time.Time { return time.Now().Add(-time.Duration(h) * time.Hour) }

// pushSBOM attaches a referrer that is not a Sigstore bundle.
func pushSBOM(t testing.TB, st sign.ReferrerStore, subject v1.Descriptor) {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, static.NewLayer([]byte(`{"spdxVersion":"SPDX-2.3"}`), "application/spdx+json"))
	if err != nil {
		t.Fatal(err)
	}
	img = mutate.Subject(mutate.MediaType(img, types.OCIManifestSchema1), subject).(v1.Image)
	if _, err := st.PushReferrer(context.Background(), subject, img); err != nil {
		t.Fatal(err)
	}
}

func attach(t testing.TB, st sign.ReferrerStore, subject v1.Descriptor, b *sign.Bundle) {
	t.Helper()
	if _, err := sign.Attach(context.Background(), st, subject, b); err != nil {
		t.Fatal(err)
	}
}

// mixedTrust trusts the certificate authorities of cas and the timestamp
// authorities of tsas.
func mixedTrust(t testing.TB, cas, tsas root.TrustedMaterial) root.TrustedMaterial {
	t.Helper()
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, cas.FulcioCertificateAuthorities(), nil, tsas.TimestampingAuthorities(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// tamper changes the DSSE envelope of b's JSON with edit.
func tamper(t testing.TB, b *sign.Bundle, edit func(t testing.TB, env map[string]any)) *sign.Bundle {
	t.Helper()
	raw, err := b.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	edit(t, m["dsseEnvelope"].(map[string]any))
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := sign.ParseBundle(out)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// flipSignatureBit changes one character of the base64 signature.
func flipSignatureBit(_ testing.TB, env map[string]any) {
	s := env["signatures"].([]any)[0].(map[string]any)
	sig := []byte(s["sig"].(string))
	if sig[10] == 'A' {
		sig[10] = 'B'
	} else {
		sig[10] = 'A'
	}
	s["sig"] = string(sig)
}

// respacePayload re-encodes the statement with other whitespace: the same
// claims, other signed bytes.
func respacePayload(t testing.TB, env map[string]any) {
	payload, err := base64.StdEncoding.DecodeString(env["payload"].(string))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(payload, &v); err != nil {
		t.Fatal(err)
	}
	spaced, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	env["payload"] = base64.StdEncoding.EncodeToString(spaced)
}

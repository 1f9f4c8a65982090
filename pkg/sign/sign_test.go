package sign_test

import (
	"context"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// TestReferrerShape pins the referrer exactly as cosign v3 writes it.
func TestReferrerShape(t *testing.T) {
	f := newFixture(t)
	st := signtest.NewStore()
	k := kit(t)
	f.signed(t, st, k, k, signtest.Cert{})
	refs, err := st.Referrers(context.Background(), k)
	if err != nil || len(refs) != 1 {
		t.Fatalf("referrers = %v, %v; want one", refs, err)
	}
	img, err := st.Referrer(context.Background(), refs[0])
	if err != nil {
		t.Fatal(err)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	created := m.Annotations[sign.AnnotationCreated]
	if created == "" {
		t.Error("no creation time annotation")
	}
	got := struct {
		MediaType, ArtifactType, ConfigMediaType, ConfigDigest, ConfigArtifactType string
		Layers                                                                     []types.MediaType
		Annotations                                                                map[string]string
		Subject                                                                    v1.Descriptor
	}{
		MediaType: string(m.MediaType), ArtifactType: m.ArtifactType,
		ConfigMediaType: string(m.Config.MediaType), ConfigDigest: m.Config.Digest.String(), ConfigArtifactType: m.Config.ArtifactType,
		Annotations: m.Annotations, Subject: *m.Subject,
	}
	for _, l := range m.Layers {
		got.Layers = append(got.Layers, l.MediaType)
	}
	want := got
	want.MediaType = "application/vnd.oci.image.manifest.v1+json"
	want.ArtifactType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	want.ConfigMediaType = "application/vnd.oci.empty.v1+json"
	want.ConfigDigest = "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
	want.ConfigArtifactType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	want.Layers = []types.MediaType{"application/vnd.dev.sigstore.bundle.v0.3+json"}
	want.Annotations = map[string]string{
		"dev.sigstore.bundle.content":       "dsse-envelope",
		"dev.sigstore.bundle.predicateType": "https://sigstore.dev/cosign/sign/v1",
		"org.opencontainers.image.created":  created,
	}
	want.Subject = v1.Descriptor{MediaType: k.MediaType, Size: k.Size, Digest: k.Digest}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("referrer manifest (-want +got):\n%s", diff)
	}
	cfg, err := img.RawConfigFile()
	if err != nil || string(cfg) != "{}" {
		t.Errorf("config = %q, %v; want {}", cfg, err)
	}

	// The layer is the bundle: a DSSE in-toto statement over the kit's digest.
	rc, err := img.LayerByDigest(m.Layers[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rc.Compressed()
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var b struct {
		MediaType    string `json:"mediaType"`
		DsseEnvelope struct {
			Payload     string `json:"payload"`
			PayloadType string `json:"payloadType"`
		} `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	payload, err := base64.StdEncoding.DecodeString(b.DsseEnvelope.Payload)
	if err != nil {
		t.Fatal(err)
	}
	var statement map[string]any
	if err := json.Unmarshal(payload, &statement); err != nil {
		t.Fatal(err)
	}
	wantStatement := map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"digest": map[string]any{"sha256": k.Digest.Hex}}},
		"predicateType": "https://sigstore.dev/cosign/sign/v1",
		"predicate":     map[string]any{},
	}
	if diff := cmp.Diff(wantStatement, statement); diff != "" {
		t.Errorf("statement (-want +got):\n%s", diff)
	}
	if b.MediaType != sign.BundleMediaType || b.DsseEnvelope.PayloadType != "application/vnd.in-toto+json" {
		t.Errorf("bundle media type %q, payload type %q", b.MediaType, b.DsseEnvelope.PayloadType)
	}
}

// TestAttest signs an SLSA provenance predicate and requires it by type.
func TestAttest(t *testing.T) {
	f := newFixture(t)
	st := signtest.NewStore()
	k := kit(t)
	s := f.signer(t, signtest.Cert{}, sign.WithTimestampAuthority(f.ss.TSAURL), sign.WithSelfVerification(f.trust))
	b, err := s.Attest(context.Background(), k, "https://slsa.dev/provenance/v1", json.RawMessage(`{"buildDefinition":{"buildType":"https://example.org/kitsmith/v1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if b.PredicateType() != "https://slsa.dev/provenance/v1" {
		t.Errorf("PredicateType = %q", b.PredicateType())
	}
	attach(t, st, k, b)
	res, err := verifierFor(t, f.trust).Verify(context.Background(), st, k, sign.Policy{Identity: devIdentity, Issuer: devIssuer, PredicateType: "https://slsa.dev/provenance/v1"})
	checkVerify(t, res, err, nil, "")
	if _, err := s.Attest(context.Background(), k, "https://slsa.dev/provenance/v1", json.RawMessage(`{not json`)); err == nil {
		t.Error("Attest accepted a predicate that is not JSON")
	}
}

// TestVirtualSigstoreRekorV2 verifies, with the default requirements (a log
// entry and an observed time), a bundle from sigstore-go's VirtualSigstore
// that carries a Rekor v2 entry and a signed timestamp.
func TestVirtualSigstoreRekorV2(t *testing.T) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	k := kit(t)
	statement := `{"_type":"https://in-toto.io/Statement/v1","subject":[{"digest":{"sha256":"` + k.Digest.Hex + `"},"annotations":{}}], "predicateType":"https://sigstore.dev/cosign/sign/v1","predicate":{}}`
	e, err := vs.AttestHashedRekordV2(devIdentity, devIssuer, []byte(statement))
	if err != nil {
		t.Fatal(err)
	}
	data, err := signtest.VirtualBundle(e)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sign.ParseBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	st := signtest.NewStore()
	attach(t, st, k, b)
	v, err := sign.NewVerifier(vs, sign.WithoutSCTUnsafe())
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Verify(context.Background(), st, k, devPolicy)
	checkVerify(t, res, err, nil, "")
	if s := res.Signatures[0]; s.LogIndex == nil || *s.LogIndex != 0 || s.Timestamps[0].Source != "timestamp-authority" {
		t.Errorf("signature = %+v, want log index 0 and a TSA timestamp", s)
	}
	res, err = v.Verify(context.Background(), st, k, sign.Policy{Identity: "eve@example.org", Issuer: devIssuer})
	checkVerify(t, res, err, &sign.VerificationError{}, `expected SAN value "eve@example.org"`)

	// Without a transparency log in the bundle, the default requirement fails.
	f := newFixture(t)
	st2 := signtest.NewStore()
	f.signed(t, st2, k, k, signtest.Cert{})
	strict, err := sign.NewVerifier(f.trust, sign.WithoutSCTUnsafe())
	if err != nil {
		t.Fatal(err)
	}
	res, err = strict.Verify(context.Background(), st2, k, devPolicy)
	checkVerify(t, res, err, &sign.VerificationError{}, "transparency log")
}

// TestKeyBased signs with cosign's encrypted key format and verifies with
// the public key.
func TestKeyBased(t *testing.T) {
	privPEM, pubPEM, err := cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), cryptoutils.StaticPasswordFunc([]byte("correct horse")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(privPEM), "ENCRYPTED SIGSTORE PRIVATE KEY") {
		t.Fatalf("unexpected key format:\n%s", privPEM)
	}
	if _, err := sign.LoadPrivateKey(privPEM, []byte("wrong")); err == nil {
		t.Error("LoadPrivateKey accepted a wrong password")
	}
	kp, err := sign.LoadPrivateKey(privPEM, []byte("correct horse"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sign.NewSigner(kp, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := kit(t)
	b, err := s.Sign(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	st := signtest.NewStore()
	attach(t, st, k, b)

	verifyWith := func(pubPEM []byte) (*sign.Result, error) {
		pub, err := sign.LoadPublicKey(pubPEM)
		if err != nil {
			t.Fatal(err)
		}
		trust, err := sign.PublicKeyTrust(pub)
		if err != nil {
			t.Fatal(err)
		}
		v, err := sign.NewVerifier(trust, sign.WithoutTlogUnsafe())
		if err != nil {
			t.Fatal(err)
		}
		return v.Verify(context.Background(), st, k, sign.Policy{})
	}
	res, err := verifyWith(pubPEM)
	if err != nil {
		t.Fatalf("Verify with the right key: %v", err)
	}
	if s := res.Signatures[0]; !s.Accepted || s.KeyHint == "" || s.Identity != "" {
		t.Errorf("signature = %+v, want accepted with a key hint", s)
	}
	_, otherPub, err := cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err = verifyWith(otherPub)
	checkVerifyRejected(t, res, err, "failed to verify signature")
}

func checkVerifyRejected(t *testing.T, res *sign.Result, err error, reason string) {
	t.Helper()
	checkVerify(t, res, err, &sign.VerificationError{}, reason)
}

// TestPolicyErrors covers policies that cannot be applied, and the empty
// policy, which accepts no keyless signature.
func TestPolicyErrors(t *testing.T) {
	f := newFixture(t)
	st := signtest.NewStore()
	k := kit(t)
	f.signed(t, st, k, k, signtest.Cert{})
	for _, tt := range []struct {
		name   string
		policy sign.Policy
		want   string
	}{
		{"identity without issuer", sign.Policy{Identity: devIdentity}, "an issuer or issuerRegexp is needed"},
		{"bad regexp", sign.Policy{IdentityRegexp: "(", Issuer: devIssuer}, "identity"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := verifierFor(t, f.trust).Verify(context.Background(), st, k, tt.policy)
			if err == nil || !strings.Contains(err.Error(), tt.want) || res != nil {
				t.Errorf("Verify = %v, %v; want no result and an error containing %q", res, err, tt.want)
			}
			var ve *sign.VerificationError
			if errors.As(err, &ve) {
				t.Errorf("a bad policy is not a verification failure: %v", err)
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		res, err := verifierFor(t, f.trust).Verify(context.Background(), st, k, sign.Policy{})
		checkVerify(t, res, err, &sign.VerificationError{}, "the policy names no signer identity")
	})
}

func TestParseTrustedSigners(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []sign.TrustedSigner
		wantErr  string
	}{
		{
			name: "json",
			in:   `[{"identity":"dev@example.org","issuer":"https://issuer.example.org"},{"identityRegexp":"^https://github.com/acme/.*$","issuerRegexp":"^https://token\\..*$"}]`,
			want: []sign.TrustedSigner{{Identity: "dev@example.org", Issuer: "https://issuer.example.org"}, {IdentityRegexp: "^https://github.com/acme/.*$", IssuerRegexp: `^https://token\..*$`}},
		},
		{
			name: "yaml",
			in:   "- identity: dev@example.org\n  issuer: https://issuer.example.org\n",
			want: []sign.TrustedSigner{{Identity: "dev@example.org", Issuer: "https://issuer.example.org"}},
		},
		{name: "unknown key", in: `[{"identity":"a@example.org","issuer":"x","subject":"y"}]`, wantErr: "subject"},
		{name: "no issuer", in: `[{"identity":"a@example.org"}]`, wantErr: "signer 1: state exactly one of issuer"},
		// one grammar with the admission policy: a prefix match is refused
		{name: "unanchored", in: `[{"identityRegexp":"^https://github.com/acme/","issuer":"x"}]`, wantErr: "not anchored as a whole"},
		{name: "empty", in: `[]`, wantErr: "no trusted signer"},
		{name: "nothing", in: ``, wantErr: "no trusted signer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sign.ParseTrustedSigners([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewSignerContradictions(t *testing.T) {
	f := newFixture(t)
	if _, err := sign.NewSigner(nil, nil); err == nil {
		t.Error("NewSigner accepted neither key nor certificates")
	}
	_, err := sign.NewSigner(nil, f.ss.Certificates(signtest.Cert{Identity: devIdentity, Issuer: devIssuer}),
		sign.WithTransparencyLog(sign.Log{URL: "http://127.0.0.1:9", Version: 2}))
	if err == nil || !strings.Contains(err.Error(), "needs a timestamp authority") {
		t.Errorf("keyless Rekor v2 without a TSA: err = %v", err)
	}
	if _, err := sign.NewSigner(nil, f.ss.Certificates(signtest.Cert{}), sign.WithTransparencyLog(sign.Log{URL: "http://127.0.0.1:9", Version: 3})); err == nil {
		t.Error("NewSigner accepted Rekor API version 3")
	}
	s := f.signer(t, signtest.Cert{})
	if _, err := s.Sign(context.Background(), v1.Descriptor{Digest: v1.Hash{Algorithm: "sha512", Hex: strings.Repeat("a", 128)}}); err == nil {
		t.Error("Sign accepted a sha512 subject")
	}
}

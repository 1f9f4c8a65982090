package sign_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore/pkg/signature/payload"

	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// legacyStore is a signtest.Store that also holds a sha256-<hex>.sig
// manifest.
type legacyStore struct {
	*signtest.Store
	sig v1.Image
}

var _ sign.LegacySignatureStore = (*legacyStore)(nil)

func (s *legacyStore) LegacySignatures(context.Context, v1.Descriptor) (v1.Image, error) {
	return s.sig, nil
}

// legacySignature signs subject as cosign's legacy mode does: a
// simple-signing payload naming signed, an ECDSA signature in the
// dev.cosignproject.cosign/signature annotation, the certificate and an
// RFC 3161 timestamp over the signature in theirs. tamper changes the
// payload after signing.
func (f *fixture) legacySignature(t *testing.T, signed v1.Hash, c signtest.Cert, tamper bool) mutate.Addendum {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := f.ss.Issue(c, key.Public())
	if err != nil {
		t.Fatal(err)
	}
	d, err := name.NewDigest("registry.example.org/kits/tool@" + signed.String())
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(payload.Cosign{Image: d})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	sig, err := key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := sgsign.NewTimestampAuthority(&sgsign.TimestampAuthorityOptions{URL: f.ss.TSAURL}).GetTimestamp(context.Background(), sig)
	if err != nil {
		t.Fatal(err)
	}
	tsJSON, _ := json.Marshal(map[string][]byte{"SignedRFC3161Timestamp": ts})
	if tamper {
		body = []byte(strings.Replace(string(body), "registry.example.org", "registry.example.net", 1))
	}
	return mutate.Addendum{
		Layer: static.NewLayer(body, "application/vnd.dev.cosign.simplesigning.v1+json"),
		Annotations: map[string]string{
			"dev.cosignproject.cosign/signature":   base64.StdEncoding.EncodeToString(sig),
			"dev.sigstore.cosign/certificate":      string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
			"dev.sigstore.cosign/rfc3161timestamp": string(tsJSON),
		},
	}
}

func TestVerifyLegacy(t *testing.T) {
	f := newFixture(t)
	k, other := kit(t), kit(t)
	dev := signtest.Cert{Identity: devIdentity, Issuer: devIssuer}
	tests := []struct {
		name       string
		sig        mutate.Addendum
		policy     sign.Policy
		wantReason string // "" for accepted
	}{
		{name: "accepted", sig: f.legacySignature(t, k.Digest, dev, false), policy: devPolicy},
		{name: "wrong identity", sig: f.legacySignature(t, k.Digest, dev, false), policy: sign.Policy{Identity: "eve@example.org", Issuer: devIssuer}, wantReason: `expected SAN value "eve@example.org"`},
		{name: "over another kit", sig: f.legacySignature(t, other.Digest, dev, false), policy: devPolicy, wantReason: "not over this kit"},
		{name: "tampered payload", sig: f.legacySignature(t, k.Digest, dev, true), policy: devPolicy, wantReason: "failed to verify signature"},
		{name: "require bundle", sig: f.legacySignature(t, k.Digest, dev, false), policy: sign.Policy{Identity: devIdentity, Issuer: devIssuer, RequireBundle: true}, wantReason: "requires Sigstore bundles"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := mutate.Append(empty.Image, tt.sig)
			if err != nil {
				t.Fatal(err)
			}
			st := &legacyStore{Store: signtest.NewStore(), sig: img}
			res, err := verifierFor(t, f.trust).Verify(context.Background(), st, k, tt.policy)
			if res == nil || len(res.Signatures) != 1 {
				t.Fatalf("Verify = %+v, %v; want one signature", res, err)
			}
			s := res.Signatures[0]
			if s.Kind != "legacy" {
				t.Errorf("kind %q, want legacy", s.Kind)
			}
			if tt.wantReason == "" {
				if err != nil || !s.Accepted || s.Identity != devIdentity || len(s.Timestamps) != 1 {
					t.Errorf("Verify: %v; signature %+v", err, s)
				}
				return
			}
			var ve *sign.VerificationError
			if !errors.As(err, &ve) || s.Accepted || !strings.Contains(s.Reason, tt.wantReason) {
				t.Errorf("Verify: %v; reason %q, want %q", err, s.Reason, tt.wantReason)
			}
		})
	}
}

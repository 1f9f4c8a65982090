package testsvc_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"google.golang.org/protobuf/encoding/protojson"
)

// trust is the stack's trust material, loaded the way a verifier does.
type trust struct {
	root   *root.TrustedRoot
	config *root.SigningConfig
}

func loadTrust(t *testing.T, s stack.Stack) trust {
	t.Helper()
	tr, err := root.NewTrustedRootFromPath(s.TrustedRoot)
	if err != nil {
		t.Fatalf("loading trusted root: %v", err)
	}
	sc, err := root.NewSigningConfigFromPath(s.SigningConfig)
	if err != nil {
		t.Fatalf("loading signing config: %v", err)
	}
	return trust{tr, sc}
}

// bundleOptions picks Fulcio, the TSAs and the Rekor logs from the signing
// config, as a signer configured only by that file would.
func (tr trust) bundleOptions(t *testing.T, ctx context.Context, token string) sign.BundleOptions {
	t.Helper()
	now := time.Now()
	fulcio, err := root.SelectService(tr.config.FulcioCertificateAuthorityURLs(), sign.FulcioAPIVersions, now)
	if err != nil {
		t.Fatalf("selecting Fulcio: %v", err)
	}
	opts := sign.BundleOptions{
		CertificateProvider:        sign.NewFulcio(&sign.FulcioOptions{BaseURL: fulcio.URL, Timeout: 30 * time.Second}),
		CertificateProviderOptions: &sign.CertificateProviderOptions{IDToken: token},
		TrustedRoot:                tr.root,
		Context:                    ctx,
	}
	tsas, err := root.SelectServices(tr.config.TimestampAuthorityURLs(), tr.config.TimestampAuthorityURLsConfig(),
		sign.TimestampAuthorityAPIVersions, now)
	if err != nil {
		t.Fatalf("selecting TSAs: %v", err)
	}
	for _, svc := range tsas {
		opts.TimestampAuthorities = append(opts.TimestampAuthorities,
			sign.NewTimestampAuthority(&sign.TimestampAuthorityOptions{URL: svc.URL, Timeout: 30 * time.Second}))
	}
	logs, err := root.SelectServices(tr.config.RekorLogURLs(), tr.config.RekorLogURLsConfig(), sign.RekorAPIVersions, now)
	if err != nil {
		t.Fatalf("selecting Rekor logs: %v", err)
	}
	for _, svc := range logs {
		if svc.MajorAPIVersion != 2 {
			t.Errorf("signing config names Rekor %s with API v%d, want v2", svc.URL, svc.MajorAPIVersion)
		}
		opts.TransparencyLogs = append(opts.TransparencyLogs,
			sign.NewRekor(&sign.RekorOptions{BaseURL: svc.URL, Version: svc.MajorAPIVersion, Timeout: 30 * time.Second}))
	}
	if len(opts.TimestampAuthorities) == 0 || len(opts.TransparencyLogs) == 0 {
		t.Fatalf("signing config selects %d TSAs and %d logs, want at least one each",
			len(opts.TimestampAuthorities), len(opts.TransparencyLogs))
	}
	return opts
}

func (tr trust) verifier(t *testing.T, s stack.Stack) *verify.Verifier {
	t.Helper()
	opts := []verify.VerifierOption{verify.WithSignedTimestamps(1), verify.WithTransparencyLog(1)}
	if s.CTLogURL != "" {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	v, err := verify.NewVerifier(tr.root, opts...)
	if err != nil {
		t.Fatalf("verifier: %v", err)
	}
	return v
}

// statement is the in-toto statement cosign v3 signs for an artifact.
func statement(digest []byte) []byte {
	return fmt.Appendf(nil, `{"_type":"https://in-toto.io/Statement/v1","subject":[{"digest":{"sha256":%q}}],`+
		`"predicateType":"https://sigstore.dev/cosign/sign/v1","predicate":{}}`, hex.EncodeToString(digest))
}

// actionsToken fetches a token the way a client in GitHub Actions does.
func actionsToken(t *testing.T, s stack.Stack) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.ActionsTokenURL+"&audience=sigstore", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.ActionsToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("actions token: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("actions token: %s: %s", resp.Status, body)
	}
	var v struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Value == "" {
		t.Fatalf("actions token response %s: %v", body, err)
	}
	return v.Value
}

// TestSigstoreGoEndToEnd signs a DSSE statement with sigstore-go against
// the services the signing config names, for both identity kinds, and
// verifies the bundle (after a JSON round trip) against the generated
// trusted root with a full identity policy.
func TestSigstoreGoEndToEnd(t *testing.T) {
	s, ok := stack.Env(t)
	if !ok {
		t.Skip("no Sigstore stack; run scripts/test.sh")
	}
	tr := loadTrust(t, s)
	digest := sha256.Sum256([]byte("kitsmith test artifact"))
	other := sha256.Sum256([]byte("another artifact"))
	const ghSAN = "https://github.com/acme/kits/.github/workflows/release.yml@refs/heads/main"
	tests := []struct {
		name       string
		token      func(t *testing.T) string
		issuer     string
		san        string
		wantRepo   string // certificate SourceRepositoryURI
		wrongSAN   string
		wrongIssue string
	}{
		{"email", func(t *testing.T) string { return s.Token(t, stack.Email, nil) },
			s.OIDCURL, stack.DefaultEmail, "", "mallory@example.com", s.GitHubOIDCURL},
		{"github /token", func(t *testing.T) string { return s.Token(t, stack.GitHub, map[string]string{"alg": "ES256"}) },
			s.GitHubOIDCURL, ghSAN, "https://github.com/acme/kits", "https://github.com/acme/other/.github/workflows/x.yml@refs/heads/main", s.OIDCURL},
		{"github actions endpoint", func(t *testing.T) string { return actionsToken(t, s) },
			s.GitHubOIDCURL, ghSAN, "https://github.com/acme/kits", ghSAN + "x", s.OIDCURL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			kp, err := sign.NewEphemeralKeypair(nil)
			if err != nil {
				t.Fatal(err)
			}
			content := &sign.DSSEData{Data: statement(digest[:]), PayloadType: "application/vnd.in-toto+json"}
			start := time.Now()
			pb, err := sign.Bundle(content, kp, tr.bundleOptions(t, ctx, tc.token(t)))
			if err != nil {
				t.Fatalf("sign.Bundle: %v", err)
			}
			t.Logf("signed with Fulcio+TSA+Rekor v2 in %v", time.Since(start).Round(time.Millisecond))
			b := roundTrip(t, pb)
			v := tr.verifier(t, s)
			policy := func(san, issuer string, d []byte) verify.PolicyBuilder {
				id, err := verify.NewShortCertificateIdentity(issuer, "", san, "")
				if err != nil {
					t.Fatal(err)
				}
				return verify.NewPolicy(verify.WithArtifactDigest("sha256", d), verify.WithCertificateIdentity(id))
			}
			res, err := v.Verify(b, policy(tc.san, tc.issuer, digest[:]))
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if got := res.Signature.Certificate.SubjectAlternativeName; got != tc.san {
				t.Errorf("certificate SAN = %q, want %q", got, tc.san)
			}
			if got := res.Signature.Certificate.SourceRepositoryURI; got != tc.wantRepo {
				t.Errorf("certificate source repository = %q, want %q", got, tc.wantRepo)
			}
			if len(res.VerifiedTimestamps) == 0 {
				t.Error("no verified timestamp")
			}
			rejects := []struct {
				name string
				pb   verify.PolicyBuilder
				want string
			}{
				{"wrong identity", policy(tc.wrongSAN, tc.issuer, digest[:]), "expected SAN value"},
				{"wrong issuer", policy(tc.san, tc.wrongIssue, digest[:]), "expected issuer value"},
				{"other digest", policy(tc.san, tc.issuer, other[:]), "does not match"},
			}
			for _, r := range rejects {
				if _, err := v.Verify(b, r.pb); err == nil || !strings.Contains(err.Error(), r.want) {
					t.Errorf("%s: verify error = %v, want one mentioning %q", r.name, err, r.want)
				}
			}
		})
	}
}

func roundTrip(t *testing.T, pb *protobundle.Bundle) *bundle.Bundle {
	t.Helper()
	j, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(j); err != nil {
		t.Fatalf("reading bundle back: %v", err)
	}
	if !bytes.Contains(j, []byte("dsseEnvelope")) {
		t.Errorf("bundle has no DSSE envelope: %s", j)
	}
	return &b
}

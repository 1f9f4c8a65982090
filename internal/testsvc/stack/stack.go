// Package stack gives integration tests the local Sigstore stack that
// scripts/services.sh runs on 127.0.0.1: where its trust files and services
// are, and ID tokens from its OIDC issuer.
//
// The stack is described by environment variables that
// `eval "$(scripts/services.sh env)"` exports (scripts/test.sh does it):
//
//	KITSMITH_TEST_TRUSTED_ROOT     path of trusted_root.json built from the running services
//	KITSMITH_TEST_SIGNING_CONFIG   path of signing_config.json (Sigstore signing config v0.2)
//	KITSMITH_TEST_OIDC_URL         issuer URL for email identities (Fulcio type "email")
//	KITSMITH_TEST_OIDC_GITHUB_URL  issuer URL for GitHub-Actions-shaped identities (type "github-workflow")
//	KITSMITH_TEST_FULCIO_URL       Fulcio base URL
//	KITSMITH_TEST_TSA_URL          timestamp authority URL, including /api/v1/timestamp
//	KITSMITH_TEST_REKOR_URL        Rekor v2 base URL
//	KITSMITH_TEST_CTLOG_URL        CT log base URL; empty when the stack runs without one
//	KITSMITH_TEST_COSIGN           path of the cosign binary
//	KITSMITH_TEST_ACTIONLINT       path of the actionlint binary
//	KITSMITH_TEST_ACTIONS_ID_TOKEN_REQUEST_URL    what GitHub Actions puts in ACTIONS_ID_TOKEN_REQUEST_URL
//	KITSMITH_TEST_ACTIONS_ID_TOKEN_REQUEST_TOKEN  what GitHub Actions puts in ACTIONS_ID_TOKEN_REQUEST_TOKEN
//
// A typical test:
//
//	s, ok := stack.Env(t)
//	if !ok {
//		t.Skip("no Sigstore stack; run scripts/test.sh")
//	}
//	tok := s.Token(t, stack.Email, nil)                                    // dev@example.com
//	gh := s.Token(t, stack.GitHub, map[string]string{"ref": "refs/tags/v1"}) // acme/kits release.yml
package stack

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// Kind selects which of the stack's two OIDC issuers mints a token.
type Kind string

const (
	// Email tokens carry email and email_verified; Fulcio issues a
	// certificate whose SAN is the email address.
	Email Kind = "email"
	// GitHub tokens carry the claims of a GitHub Actions ID token; Fulcio
	// issues a certificate whose SAN is
	// https://github.com/OWNER/REPO/.github/workflows/FILE@REF.
	GitHub Kind = "github"
)

// Default identities of the issuer's tokens when no claim overrides them.
const (
	DefaultEmail      = "dev@example.com"
	DefaultRepository = "acme/kits"
	DefaultRef        = "refs/heads/main"
	DefaultWorkflow   = ".github/workflows/release.yml"
)

// Stack is the running local Sigstore stack. Paths are absolute; URLs are
// http://127.0.0.1:PORT without a trailing slash.
type Stack struct {
	TrustedRoot   string // trusted_root.json: Fulcio CA, TSA chain, Rekor v2 key (and CT key)
	SigningConfig string // signing_config.json: Fulcio, TSA, Rekor v2 and OIDC URLs
	OIDCURL       string // issuer URL of Email tokens (the certificate's OIDC issuer)
	GitHubOIDCURL string // issuer URL of GitHub tokens
	FulcioURL     string
	TSAURL        string // full timestamp URL, .../api/v1/timestamp
	RekorURL      string // Rekor v2 (majorApiVersion 2)
	CTLogURL      string // empty when the stack has no CT log: certificates then carry no SCT
	Cosign        string // cosign v3 binary
	Actionlint    string // actionlint binary

	// ActionsTokenURL and ActionsToken mimic ACTIONS_ID_TOKEN_REQUEST_URL
	// and ACTIONS_ID_TOKEN_REQUEST_TOKEN: the URL already has a query, so,
	// as with GitHub, GET ActionsTokenURL+"&audience=sigstore"
	// with "Authorization: Bearer "+ActionsToken answers {"value":"<jwt>"}.
	ActionsTokenURL string
	ActionsToken    string
}

// fields maps each Stack field to its variable; only CTLogURL may be empty.
func (s *Stack) fields() []struct {
	name     string
	dst      *string
	optional bool
} {
	return []struct {
		name     string
		dst      *string
		optional bool
	}{
		{"KITSMITH_TEST_TRUSTED_ROOT", &s.TrustedRoot, false},
		{"KITSMITH_TEST_SIGNING_CONFIG", &s.SigningConfig, false},
		{"KITSMITH_TEST_OIDC_URL", &s.OIDCURL, false},
		{"KITSMITH_TEST_OIDC_GITHUB_URL", &s.GitHubOIDCURL, false},
		{"KITSMITH_TEST_FULCIO_URL", &s.FulcioURL, false},
		{"KITSMITH_TEST_TSA_URL", &s.TSAURL, false},
		{"KITSMITH_TEST_REKOR_URL", &s.RekorURL, false},
		{"KITSMITH_TEST_CTLOG_URL", &s.CTLogURL, true},
		{"KITSMITH_TEST_COSIGN", &s.Cosign, false},
		{"KITSMITH_TEST_ACTIONLINT", &s.Actionlint, false},
		{"KITSMITH_TEST_ACTIONS_ID_TOKEN_REQUEST_URL", &s.ActionsTokenURL, false},
		{"KITSMITH_TEST_ACTIONS_ID_TOKEN_REQUEST_TOKEN", &s.ActionsToken, false},
	}
}

// Env reads the stack from the environment. When KITSMITH_TEST_TRUSTED_ROOT
// is unset it returns false, unless KITSMITH_INTEGRATION=1, where
// integration tests must not skip and Env fails the test instead. A stack
// that is only partly described, or whose trust files are missing, always
// fails the test.
func Env(t testing.TB) (Stack, bool) {
	t.Helper()
	var s Stack
	if os.Getenv("KITSMITH_TEST_TRUSTED_ROOT") == "" {
		if os.Getenv("KITSMITH_INTEGRATION") == "1" {
			t.Fatal("KITSMITH_INTEGRATION=1 but no Sigstore stack: run scripts/services.sh start and " +
				`eval "$(scripts/services.sh env)", or use scripts/test.sh`)
		}
		return s, false
	}
	var missing []string
	for _, f := range s.fields() {
		*f.dst = os.Getenv(f.name)
		if *f.dst == "" && !f.optional {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("Sigstore stack partly configured: %s unset (eval \"$(scripts/services.sh env)\")",
			strings.Join(missing, ", "))
	}
	for _, p := range []string{s.TrustedRoot, s.SigningConfig, s.Cosign, s.Actionlint} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("Sigstore stack: %v", err)
		}
	}
	return s, true
}

// Issuer returns the OIDC issuer URL for kind, the value certificates carry
// as their OIDC issuer (cosign's --certificate-oidc-issuer).
func (s Stack) Issuer(kind Kind) string {
	if kind == GitHub {
		return s.GitHubOIDCURL
	}
	return s.OIDCURL
}

// Token fetches an ID token with audience "sigstore" from the issuer of
// kind. claims override or add claims: string values, except
// "email_verified" ("false" makes it false) and "iat", "nbf", "exp" (Unix
// seconds). Reserved keys: "aud" (audience), "alg" (RS256, the default, or
// ES256) and "ttl" (a Go duration, default 10m). Email tokens default to
// email and sub dev@example.com; GitHub tokens default to repository
// acme/kits, ref refs/heads/main and workflow file release.yml, and derive
// sub, repository_owner, workflow_ref and job_workflow_ref from those
// unless given. Token fails the test on any error.
func (s Stack) Token(t testing.TB, kind Kind, claims map[string]string) string {
	t.Helper()
	q := url.Values{}
	for k, v := range claims {
		q.Set(k, v)
	}
	u := s.Issuer(kind) + "/token?" + q.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatalf("token request: %v", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("fetching %s token: %v", kind, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatalf("reading %s token: %v", kind, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("fetching %s token: %s: %s", kind, resp.Status, strings.TrimSpace(string(body)))
	}
	return strings.TrimSpace(string(body))
}

// Token is Env followed by Stack.Token; it skips the test when there is no
// stack and KITSMITH_INTEGRATION is not 1.
func Token(t testing.TB, kind Kind, claims map[string]string) string {
	t.Helper()
	s, ok := Env(t)
	if !ok {
		t.Skip("no Sigstore stack (KITSMITH_TEST_TRUSTED_ROOT unset); run scripts/test.sh")
	}
	return s.Token(t, kind, claims)
}

// String lists the stack's endpoints, for test logs.
func (s Stack) String() string {
	return fmt.Sprintf("fulcio=%s tsa=%s rekor=%s ctlog=%q oidc=%s github-oidc=%s",
		s.FulcioURL, s.TSAURL, s.RekorURL, s.CTLogURL, s.OIDCURL, s.GitHubOIDCURL)
}

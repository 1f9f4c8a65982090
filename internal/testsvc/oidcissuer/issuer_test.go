package oidcissuer

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
)

var fixedNow = time.Unix(1_800_000_000, 0)

func newTestServer(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	hs := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(hs.Close)
	s, err := New(hs.URL, WithActionsToken("secret"), WithClock(func() time.Time { return fixedNow }))
	if err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = s
	return s, hs
}

func get(t *testing.T, url, bearer string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// verifyToken checks tok's signature against the issuer's published JWKS
// (found through discovery, as Fulcio does) and returns its claims.
func verifyToken(t *testing.T, issuer, tok string) (string, map[string]any) {
	t.Helper()
	code, body := get(t, issuer+"/.well-known/openid-configuration", "")
	if code != http.StatusOK {
		t.Fatalf("discovery: %d %s", code, body)
	}
	var disc struct {
		Issuer  string   `json:"issuer"`
		JWKSURI string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := json.Unmarshal(body, &disc); err != nil {
		t.Fatal(err)
	}
	if disc.Issuer != issuer {
		t.Errorf("discovery issuer = %q, want %q", disc.Issuer, issuer)
	}
	_, body = get(t, disc.JWKSURI, "")
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		t.Fatal(err)
	}
	for _, k := range set.Keys {
		if !k.IsPublic() {
			t.Fatalf("JWKS publishes a private key (kid %s)", k.KeyID)
		}
	}
	jws, err := jose.ParseSigned(tok, []jose.SignatureAlgorithm{jose.RS256, jose.ES256})
	if err != nil {
		t.Fatalf("parsing token: %v", err)
	}
	hdr := jws.Signatures[0].Header
	keys := set.Key(hdr.KeyID)
	if len(keys) != 1 {
		t.Fatalf("JWKS has %d keys with kid %q", len(keys), hdr.KeyID)
	}
	payload, err := jws.Verify(keys[0])
	if err != nil {
		t.Fatalf("verifying token: %v", err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return hdr.Algorithm, claims
}

// mint fetches ISSUER/token+query and returns the verified token's
// algorithm and claims.
func mint(t *testing.T, iss, query string) (string, map[string]any) {
	t.Helper()
	code, body := get(t, iss+"/token"+query, "")
	if code != http.StatusOK {
		t.Fatalf("token: %d %s", code, body)
	}
	return verifyToken(t, iss, strings.TrimSpace(string(body)))
}

func TestEmailToken(t *testing.T) {
	s, hs := newTestServer(t)
	iss := s.Issuer(Email)
	if want := hs.URL + "/email"; iss != want {
		t.Fatalf("Issuer(Email) = %q, want %q", iss, want)
	}
	tests := []struct {
		name    string
		query   string
		wantAlg string
		want    map[string]any
	}{
		{"defaults", "", "RS256", map[string]any{
			"iss": iss, "aud": "sigstore", "sub": DefaultEmail, "email": DefaultEmail, "email_verified": true,
			"iat": 1.8e9, "nbf": 1.8e9 - 30, "exp": 1.8e9 + 600,
		}},
		{"overrides", "?email=ops@example.org&email_verified=false&aud=other&alg=ES256&ttl=1m&sub=x", "ES256", map[string]any{
			"iss": iss, "aud": "other", "sub": "x", "email": "ops@example.org", "email_verified": false,
			"iat": 1.8e9, "nbf": 1.8e9 - 30, "exp": 1.8e9 + 60,
		}},
		{"expired", "?exp=1000", "RS256", map[string]any{
			"iss": iss, "aud": "sigstore", "sub": DefaultEmail, "email": DefaultEmail, "email_verified": true,
			"iat": 1.8e9, "nbf": 1.8e9 - 30, "exp": 1000.0,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			alg, claims := mint(t, iss, tc.query)
			if alg != tc.wantAlg {
				t.Errorf("alg = %s, want %s", alg, tc.wantAlg)
			}
			if d := cmp.Diff(tc.want, claims); d != "" {
				t.Errorf("claims (-want +got):\n%s", d)
			}
		})
	}
}

// fulcioGitHubClaims are the claims Fulcio v1.8.8's github-workflow
// principal refuses a token without.
var fulcioGitHubClaims = []string{
	"job_workflow_ref", "sha", "event_name", "repository", "workflow", "ref", "job_workflow_sha",
	"runner_environment", "repository_id", "repository_owner", "repository_owner_id",
	"repository_visibility", "workflow_ref", "workflow_sha", "run_id", "run_attempt",
}

func TestGitHubToken(t *testing.T) {
	s, _ := newTestServer(t)
	iss := s.Issuer(GitHub)
	tests := []struct {
		name  string
		query string
		want  map[string]any // subset checked
	}{
		{"defaults", "", map[string]any{
			"iss": iss, "aud": "sigstore", "sub": "repo:acme/kits:ref:refs/heads/main",
			"repository": "acme/kits", "repository_owner": "acme", "ref": "refs/heads/main", "ref_type": "branch",
			"workflow_ref":     "acme/kits/.github/workflows/release.yml@refs/heads/main",
			"job_workflow_ref": "acme/kits/.github/workflows/release.yml@refs/heads/main",
		}},
		{"derived from repository and ref", "?repository=octo/tools&ref=refs/tags/v1.2.0&event_name=release", map[string]any{
			"sub": "repo:octo/tools:ref:refs/tags/v1.2.0", "repository": "octo/tools", "repository_owner": "octo",
			"ref_type": "tag", "event_name": "release",
			"workflow_ref":     "octo/tools/.github/workflows/release.yml@refs/tags/v1.2.0",
			"job_workflow_ref": "octo/tools/.github/workflows/release.yml@refs/tags/v1.2.0",
		}},
		{"reusable workflow", "?job_workflow_ref=acme/shared/.github/workflows/sign.yml@refs/heads/main", map[string]any{
			"workflow_ref":     "acme/kits/.github/workflows/release.yml@refs/heads/main",
			"job_workflow_ref": "acme/shared/.github/workflows/sign.yml@refs/heads/main",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, claims := mint(t, iss, tc.query)
			for _, c := range fulcioGitHubClaims {
				if v, _ := claims[c].(string); v == "" {
					t.Errorf("claim %s missing or not a non-empty string: %v", c, claims[c])
				}
			}
			got := map[string]any{}
			for k := range tc.want {
				got[k] = claims[k]
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("claims (-want +got):\n%s", d)
			}
		})
	}
}

func TestActionsToken(t *testing.T) {
	s, _ := newTestServer(t)
	if s.ActionsToken() != "secret" {
		t.Fatalf("ActionsToken() = %q", s.ActionsToken())
	}
	tests := []struct {
		name     string
		suffix   string
		bearer   string
		wantCode int
		wantAud  string
	}{
		{"audience sigstore", "&audience=sigstore", "secret", http.StatusOK, "sigstore"},
		{"default audience is the owner", "", "secret", http.StatusOK, "https://github.com/acme"},
		{"no bearer", "&audience=sigstore", "", http.StatusUnauthorized, ""},
		{"wrong bearer", "&audience=sigstore", "nope", http.StatusUnauthorized, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(t, s.ActionsTokenURL()+tc.suffix, tc.bearer)
			if code != tc.wantCode {
				t.Fatalf("status = %d, want %d (%s)", code, tc.wantCode, body)
			}
			if code != http.StatusOK {
				return
			}
			var resp struct {
				Value string `json:"value"`
			}
			if err := json.Unmarshal(body, &resp); err != nil {
				t.Fatal(err)
			}
			_, claims := verifyToken(t, s.Issuer(GitHub), resp.Value)
			if claims["aud"] != tc.wantAud {
				t.Errorf("aud = %v, want %s", claims["aud"], tc.wantAud)
			}
			if claims["job_workflow_ref"] == nil {
				t.Errorf("no job_workflow_ref claim: %v", claims)
			}
		})
	}
}

func TestBadRequests(t *testing.T) {
	s, _ := newTestServer(t)
	for _, q := range []string{"alg=HS256", "ttl=soon", "email_verified=maybe", "exp=tomorrow", "iss=http://example.org"} {
		t.Run(q, func(t *testing.T) {
			code, body := get(t, s.Issuer(Email)+"/token?"+q, "")
			if code != http.StatusBadRequest {
				t.Errorf("status = %d, want 400 (%s)", code, body)
			}
		})
	}
}

func TestNewRejects(t *testing.T) {
	for _, base := range []string{"", "127.0.0.1:1", "ftp://127.0.0.1", "http://127.0.0.1/?q=1"} {
		if _, err := New(base); err == nil {
			t.Errorf("New(%q) accepted", base)
		}
	}
	if _, err := New("http://127.0.0.1:1", WithActionsToken("")); err == nil {
		t.Error("New accepted an empty actions token")
	}
}

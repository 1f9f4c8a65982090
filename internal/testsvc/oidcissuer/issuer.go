// Package oidcissuer is a minimal OpenID Connect issuer for tests: it mints
// ID tokens that a local Fulcio accepts, for email identities and for
// GitHub-Actions-shaped workflow identities, without any login.
//
// One Server serves two issuers under one base URL, because Fulcio maps
// each issuer URL to one identity type:
//
//	BASE/email    Fulcio type "email"            (SAN = the email claim)
//	BASE/github   Fulcio type "github-workflow"  (SAN = https://github.com/ + job_workflow_ref)
//
// Each issuer answers ISSUER/.well-known/openid-configuration, ISSUER/keys
// (JWKS with an RS256 and an ES256 key) and ISSUER/token?claim=value...
// (the raw JWT as text/plain). BASE/github/actions-token mimics GitHub's
// ACTIONS_ID_TOKEN_REQUEST_URL: bearer-protected, ?audience=AUD, answering
// {"value":"<jwt>"}.
//
// Query parameters of both token endpoints become claims (string values),
// except: email_verified (a bool: "false" makes it false), iat, nbf and exp
// (Unix seconds); aud on /token and audience on /actions-token (the
// audience, default "sigstore" on /token and https://github.com/OWNER on
// /actions-token as GitHub does); alg (RS256, the default, or ES256); ttl
// (a Go duration, default 10m); api-version (ignored).
package oidcissuer

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Kind names one of the server's issuers; it is also the issuer's path.
type Kind string

const (
	// Email is the issuer of email identities (Fulcio type "email").
	Email Kind = "email"
	// GitHub is the issuer of GitHub Actions workflow identities (Fulcio
	// type "github-workflow").
	GitHub Kind = "github"
)

// Defaults of minted tokens, where no query parameter overrides them.
const (
	DefaultAudience   = "sigstore"
	DefaultEmail      = "dev@example.com"
	DefaultRepository = "acme/kits"
	DefaultRef        = "refs/heads/main"
	DefaultWorkflow   = ".github/workflows/release.yml"
	DefaultSHA        = "3b18e512dba79e4c8300dd08aeb37f8e728b8dad"
	DefaultTTL        = 10 * time.Minute
)

// ErrBadRequest marks a token request with an invalid parameter.
var ErrBadRequest = errors.New("bad token request")

// Server is the issuer. It is an http.Handler; it generates its keys in New
// and keeps them in memory only.
type Server struct {
	base         string
	actionsToken string
	now          func() time.Time
	keys         map[jose.SignatureAlgorithm]jose.JSONWebKey
	mux          *http.ServeMux
}

type options struct {
	actionsToken string
	now          func() time.Time
}

// Option configures New.
type Option func(*options) error

// WithActionsToken sets the bearer token /github/actions-token requires.
// Without it New generates a random one (see Server.ActionsToken).
func WithActionsToken(token string) Option {
	return func(o *options) error {
		if token == "" {
			return errors.New("empty actions token")
		}
		o.actionsToken = token
		return nil
	}
}

// WithClock sets the clock for iat, nbf and exp (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(o *options) error {
		if now == nil {
			return errors.New("nil clock")
		}
		o.now = now
		return nil
	}
}

func makeOptions(opts []Option) (options, error) {
	o := options{now: time.Now}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	if o.actionsToken == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return o, fmt.Errorf("generating actions token: %w", err)
		}
		o.actionsToken = base64.RawURLEncoding.EncodeToString(b)
	}
	return o, nil
}

// New returns an issuer whose issuer URLs are baseURL+"/email" and
// baseURL+"/github". baseURL must be an absolute http or https URL without
// a query; a trailing slash is dropped.
func New(baseURL string, opts ...Option) (*Server, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return nil, fmt.Errorf("issuer base URL %q: want http(s)://host[:port][/path]", baseURL)
	}
	o, err := makeOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("issuer options: %w", err)
	}
	s := &Server{base: strings.TrimSuffix(baseURL, "/"), actionsToken: o.actionsToken, now: o.now}
	if s.keys, err = newKeys(); err != nil {
		return nil, err
	}
	s.mux = http.NewServeMux()
	for _, k := range []Kind{Email, GitHub} {
		p := "/" + string(k)
		s.mux.HandleFunc("GET "+p+"/.well-known/openid-configuration", s.discovery(k))
		s.mux.HandleFunc("GET "+p+"/keys", s.jwks)
		s.mux.HandleFunc("GET "+p+"/token", s.token(k))
	}
	s.mux.HandleFunc("GET /github/actions-token", s.actions)
	return s, nil
}

func newKeys() (map[jose.SignatureAlgorithm]jose.JSONWebKey, error) {
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generating RSA key: %w", err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating ECDSA key: %w", err)
	}
	keys := map[jose.SignatureAlgorithm]jose.JSONWebKey{}
	for alg, priv := range map[jose.SignatureAlgorithm]crypto.Signer{jose.RS256: rk, jose.ES256: ek} {
		jwk := jose.JSONWebKey{Key: priv, Algorithm: string(alg), Use: "sig"}
		pub := jwk.Public()
		tp, err := pub.Thumbprint(crypto.SHA256)
		if err != nil {
			return nil, fmt.Errorf("key thumbprint: %w", err)
		}
		jwk.KeyID = base64.RawURLEncoding.EncodeToString(tp)
		keys[alg] = jwk
	}
	return keys, nil
}

// ServeHTTP serves the issuers' endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Issuer returns the issuer URL of kind: the iss claim of its tokens.
func (s *Server) Issuer(kind Kind) string { return s.base + "/" + string(kind) }

// ActionsTokenURL returns the URL to put in ACTIONS_ID_TOKEN_REQUEST_URL.
// Like GitHub's it already has a query, so clients append "&audience=...".
func (s *Server) ActionsTokenURL() string { return s.base + "/github/actions-token?api-version=2.0" }

// ActionsToken returns the bearer token of ActionsTokenURL, the value of
// ACTIONS_ID_TOKEN_REQUEST_TOKEN.
func (s *Server) ActionsToken() string { return s.actionsToken }

func (s *Server) discovery(k Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		iss := s.Issuer(k)
		writeJSON(w, map[string]any{
			"issuer":                                iss,
			"jwks_uri":                              iss + "/keys",
			"authorization_endpoint":                iss + "/authorize",
			"token_endpoint":                        iss + "/token",
			"response_types_supported":              []string{"id_token"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{string(jose.RS256), string(jose.ES256)},
		})
	}
}

func (s *Server) jwks(w http.ResponseWriter, _ *http.Request) {
	set := jose.JSONWebKeySet{}
	for _, alg := range []jose.SignatureAlgorithm{jose.RS256, jose.ES256} {
		k := s.keys[alg]
		set.Keys = append(set.Keys, k.Public())
	}
	writeJSON(w, set)
}

func (s *Server) token(k Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		aud := q.Get("aud")
		q.Del("aud")
		if aud == "" {
			aud = DefaultAudience
		}
		tok, err := s.Mint(k, aud, q)
		if err != nil {
			httpError(w, err)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, tok)
	}
}

func (s *Server) actions(w http.ResponseWriter, r *http.Request) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.actionsToken)) != 1 {
		http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
		return
	}
	q := r.URL.Query()
	aud := q.Get("audience")
	q.Del("audience")
	q.Del("api-version")
	if aud == "" {
		aud = "https://github.com/" + owner(first(q.Get("repository"), DefaultRepository))
	}
	tok, err := s.Mint(GitHub, aud, q)
	if err != nil {
		httpError(w, err)
		return
	}
	writeJSON(w, map[string]string{"value": tok})
}

// Mint returns a signed ID token of kind for audience aud, with the claims
// in q as the package documentation describes (aud in q is not special
// here: pass the audience as aud).
func (s *Server) Mint(kind Kind, aud string, q url.Values) (string, error) {
	alg := jose.SignatureAlgorithm(first(q.Get("alg"), string(jose.RS256)))
	key, ok := s.keys[alg]
	if !ok {
		return "", fmt.Errorf("%w: alg %q: want RS256 or ES256", ErrBadRequest, alg)
	}
	ttl := DefaultTTL
	if v := q.Get("ttl"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return "", fmt.Errorf("%w: ttl: %w", ErrBadRequest, err)
		}
		ttl = d
	}
	q.Del("alg")
	q.Del("ttl")
	now := s.now()
	claims := map[string]any{
		"iss": s.Issuer(kind), "aud": aud,
		"iat": now.Unix(), "nbf": now.Add(-30 * time.Second).Unix(), "exp": now.Add(ttl).Unix(),
	}
	switch kind {
	case Email:
		email := first(q.Get("email"), DefaultEmail)
		claims["email"], claims["sub"], claims["email_verified"] = email, email, true
	case GitHub:
		for k, v := range githubClaims(q) {
			claims[k] = v
		}
	default:
		return "", fmt.Errorf("%w: unknown issuer kind %q", ErrBadRequest, kind)
	}
	if err := override(claims, q); err != nil {
		return "", err
	}
	return sign(key, claims)
}

// githubClaims are the claims of a GitHub Actions ID token, every one that
// Fulcio's github-workflow type requires, derived from the repository,
// ref and workflow_ref in q or their defaults.
func githubClaims(q url.Values) map[string]string {
	repo := first(q.Get("repository"), DefaultRepository)
	ref := first(q.Get("ref"), DefaultRef)
	sha := first(q.Get("sha"), DefaultSHA)
	wref := first(q.Get("workflow_ref"), repo+"/"+DefaultWorkflow+"@"+ref)
	refType := "branch"
	if strings.HasPrefix(ref, "refs/tags/") {
		refType = "tag"
	}
	return map[string]string{
		"sub":        "repo:" + repo + ":ref:" + ref,
		"repository": repo, "repository_id": "100001", "repository_visibility": "public",
		"repository_owner": owner(repo), "repository_owner_id": "200002",
		"ref": ref, "ref_type": refType, "sha": sha,
		"workflow": "release", "workflow_ref": wref, "workflow_sha": sha,
		"job_workflow_ref": first(q.Get("job_workflow_ref"), wref), "job_workflow_sha": sha,
		"event_name": "push", "run_id": "300003", "run_attempt": "1", "run_number": "1",
		"runner_environment": "github-hosted", "actor": "octocat", "actor_id": "400004",
	}
}

// override sets the claims of q on claims, typed where the claim is not a
// string.
func override(claims map[string]any, q url.Values) error {
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "email_verified":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%w: email_verified: %w", ErrBadRequest, err)
			}
			claims[k] = b
		case "iat", "nbf", "exp":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("%w: %s: %w", ErrBadRequest, k, err)
			}
			claims[k] = n
		case "iss":
			return fmt.Errorf("%w: iss cannot be overridden", ErrBadRequest)
		default:
			claims[k] = v
		}
	}
	return nil
}

func sign(key jose.JSONWebKey, claims map[string]any) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(key.Algorithm), Key: key},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("creating %s signer: %w", key.Algorithm, err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("encoding claims: %w", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("signing token: %w", err)
	}
	return jws.CompactSerialize()
}

func owner(repo string) string { o, _, _ := strings.Cut(repo, "/"); return o }

func first(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func httpError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	if errors.Is(err, ErrBadRequest) {
		code = http.StatusBadRequest
	}
	http.Error(w, err.Error(), code)
}

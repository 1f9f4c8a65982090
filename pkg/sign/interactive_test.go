package sign_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/kitsmith/kitsmith/pkg/sign"
)

// deviceIssuer is an OIDC provider on 127.0.0.1 with the device
// authorization grant (RFC 8628) and PKCE, as oauthflow's device flow
// needs: the first token poll is pending, the second gives an ID token.
func deviceIssuer(t *testing.T) (issuer string, polls *atomic.Int32) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	polls = &atomic.Int32{}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	issuer = srv.URL
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": issuer, "jwks_uri": issuer + "/keys", "authorization_endpoint": issuer + "/auth",
			"token_endpoint": issuer + "/token", "device_authorization_endpoint": issuer + "/device",
			"response_types_supported": []string{"id_token"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
		})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	mux.HandleFunc("/device", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("code_challenge") == "" || r.FormValue("client_id") != "sigstore" {
			http.Error(w, "PKCE and the sigstore client are required", http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]any{"device_code": "dev-code", "user_code": "ABCD-EFGH", "verification_uri": issuer + "/activate", "expires_in": 60, "interval": 0})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if polls.Add(1) == 1 {
			writeJSON(w, map[string]any{"error": "authorization_pending"})
			return
		}
		if r.FormValue("device_code") != "dev-code" || r.FormValue("code_verifier") == "" {
			writeJSON(w, map[string]any{"error": "access_denied"})
			return
		}
		now := time.Now()
		claims, _ := json.Marshal(map[string]any{
			"iss": issuer, "aud": "sigstore", "sub": "dev@example.org", "email": "dev@example.org", "email_verified": true,
			"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		})
		jws, err := signer.Sign(claims)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		tok, _ := jws.CompactSerialize()
		writeJSON(w, map[string]any{"access_token": "at", "token_type": "bearer", "id_token": tok})
	})
	return issuer, polls
}

// TestInteractiveTokenDevice runs the device flow of oauthflow against a
// local provider: the prompt goes to the given writer, the token comes
// back verified.
func TestInteractiveTokenDevice(t *testing.T) {
	issuer, polls := deviceIssuer(t)
	var prompt bytes.Buffer
	tok, err := sign.InteractiveToken(issuer, sign.PublicGoodClientID, true, strings.NewReader(""), &prompt).Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(tok, ".") != 2 || polls.Load() != 2 {
		t.Errorf("token %q after %d polls, want a JWT after 2", tok, polls.Load())
	}
	if !strings.Contains(prompt.String(), "ABCD-EFGH") || strings.Contains(prompt.String(), tok) {
		t.Errorf("prompt = %q, want the user code and not the token", prompt.String())
	}
}

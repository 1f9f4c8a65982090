package signtest

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// Token returns an unsigned JWT-shaped token for identity, which the
// Fulcio that ServeFulcio starts accepts (it verifies nothing).
func Token(identity string) string {
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"sub": identity, "email": identity, "email_verified": true})
	return enc([]byte(`{"alg":"none"}`)) + "." + enc(claims) + "." + enc([]byte("unsigned"))
}

// ServeFulcio starts, on 127.0.0.1, a Fulcio signingCert endpoint that
// issues certificates of issuer for the email of the bearer token (see
// Token), unverified, and sets FulcioURL to it. It stops with t.
func (s *Sigstore) ServeFulcio(t testing.TB, issuer string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v2/signingCert" {
			http.NotFound(w, r)
			return
		}
		identity, ok := tokenIdentity(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		if !ok {
			http.Error(w, "no identity in the token", http.StatusUnauthorized)
			return
		}
		var req struct {
			PublicKeyRequest struct {
				PublicKey struct {
					Content string `json:"content"`
				} `json:"publicKey"`
			} `json:"publicKeyRequest"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		pub, err := cryptoutils.UnmarshalPEMToPublicKey([]byte(req.PublicKeyRequest.PublicKey.Content))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		der, err := s.Issue(Cert{Identity: identity, Issuer: issuer}, pub)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		leaf := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
		inter := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.interCert.Raw}))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"signedCertificateEmbeddedSct": map[string]any{"chain": map[string]any{"certificates": []string{leaf, inter}}},
		})
	}))
	t.Cleanup(srv.Close)
	s.FulcioURL = srv.URL
}

// tokenIdentity reads the email claim of a token, unverified.
func tokenIdentity(tok string) (string, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", false
	}
	var c struct {
		Email string `json:"email"`
	}
	if json.Unmarshal(b, &c) != nil || c.Email == "" {
		return "", false
	}
	return c.Email, true
}

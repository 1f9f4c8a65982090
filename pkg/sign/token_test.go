package sign_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/sign"
)

// secretToken looks like a JWT, so that sigstore-go reads a subject from it.
const secretToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJkZXZAZXhhbXBsZS5vcmciLCJlbWFpbCI6ImRldkBleGFtcGxlLm9yZyIsImVtYWlsX3ZlcmlmaWVkIjp0cnVlfQ.c2VjcmV0LXNpZ25hdHVyZS1wYXJ0LTAxMjM0NTY3"

func TestTokenSources(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte(secretToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	gha := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer request-secret-0123456789" || r.URL.Query().Get("audience") != "sigstore" || r.URL.Query().Get("api-version") != "2.0" {
			// Echo what was sent, as a careless server might.
			http.Error(w, "denied: "+r.Header.Get("Authorization"), http.StatusForbidden)
			return
		}
		w.Write([]byte(`{"value":"` + secretToken + `"}`))
	}))
	defer gha.Close()

	for _, tt := range []struct {
		name    string
		src     sign.TokenSource
		want    string
		wantErr error
	}{
		{name: "static", src: sign.StaticToken(secretToken), want: secretToken},
		{name: "static empty", src: sign.StaticToken(""), wantErr: sign.ErrNoToken},
		{name: "file", src: sign.FileToken(file), want: secretToken},
		{name: "file empty", src: sign.FileToken(empty), wantErr: sign.ErrNoToken},
		{name: "file missing", src: sign.FileToken(filepath.Join(dir, "nope")), wantErr: os.ErrNotExist},
		{name: "github actions", src: sign.GitHubActionsToken(gha.URL+"/token?api-version=2.0", "request-secret-0123456789", nil), want: secretToken},
		{name: "github actions unset", src: sign.GitHubActionsToken("", "", nil), wantErr: sign.ErrNoToken},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.src.Token(ctx)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Token error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Token = %q, %v; want %q", got, err, tt.want)
			}
		})
	}

	t.Run("github actions error hides the request token", func(t *testing.T) {
		const bearer = "wrong-request-secret-abcdefgh"
		_, err := sign.GitHubActionsToken(gha.URL+"/token?api-version=2.0", bearer, nil).Token(ctx)
		if err == nil {
			t.Fatal("no error from a refused token request")
		}
		if strings.Contains(err.Error(), bearer) {
			t.Errorf("error shows the request token: %v", err)
		}
	})
}

// TestFulcioErrorHidesToken checks that a Fulcio failure, even from a
// server that echoes the request, never shows the identity token.
func TestFulcioErrorHidesToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unauthorized: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	defer srv.Close()
	kp, err := sign.NewEphemeralKeypair()
	if err != nil {
		t.Fatal(err)
	}
	_, err = sign.NewFulcio(srv.URL, sign.StaticToken(secretToken), nil).Certificate(context.Background(), kp)
	if err == nil {
		t.Fatal("no error from a refusing Fulcio")
	}
	for _, part := range append([]string{secretToken}, strings.Split(secretToken, ".")...) {
		if strings.Contains(err.Error(), part) {
			t.Errorf("error shows the token (%q): %v", part, err)
		}
	}
	if !strings.Contains(err.Error(), "Fulcio") {
		t.Errorf("error does not say what failed: %v", err)
	}

	// Through the Signer too.
	s, err := sign.NewSigner(nil, sign.NewFulcio(srv.URL, sign.StaticToken(secretToken), nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Sign(context.Background(), kit(t))
	if err == nil || strings.Contains(err.Error(), secretToken) || strings.Contains(err.Error(), strings.Split(secretToken, ".")[2]) {
		t.Errorf("Sign error = %v; want an error without the token", err)
	}
}

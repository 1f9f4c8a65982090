package sign_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sigstore/sigstore-go/pkg/tuf"

	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// TestInstance resolves instances that need no TUF (every request would
// go to a test server that counts them) and ones that do.
func TestInstance(t *testing.T) {
	var requests int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		http.NotFound(w, r)
	}))
	defer srv.Close()
	emptyTUF := []sign.TUFOption{sign.WithTUFRepository(srv.URL, tuf.DefaultRoot())}

	dir := t.TempDir()
	trFile := filepath.Join(dir, "trusted_root.json")
	scFile := filepath.Join(dir, "signing_config.json")
	if err := os.WriteFile(trFile, signtest.New(t).TrustedRootJSON(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scFile, []byte(signingConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := sign.ReadTrustedRoot(trFile)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sign.ReadSigningConfig(scFile)
	if err != nil {
		t.Fatal(err)
	}
	fromConfig := sign.Services{
		Fulcio: "http://127.0.0.1:15555", OIDCIssuer: "http://127.0.0.1:18089",
		TSAs: []string{"http://127.0.0.1:15556/api/v1/timestamp"},
		Logs: []sign.Log{{URL: "http://127.0.0.1:15557", Version: 2}},
	}
	override := sign.Services{Fulcio: "http://127.0.0.1:1", TSAs: []string{"http://127.0.0.1:2/api/v1/timestamp"}, Logs: []sign.Log{{URL: "http://127.0.0.1:3", Version: 1}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	for _, tt := range []struct {
		name     string
		in       sign.Instance
		want     sign.Services
		wantTUF  bool  // the TUF repository is asked
		wantErr  error // of Signing
		tufError bool  // Signing fails with a *TUFError
	}{
		{name: "private instance from files", in: sign.Instance{TrustedRoot: tr, SigningConfig: sc}, want: fromConfig},
		{name: "overrides replace the config's services", in: sign.Instance{TrustedRoot: tr, SigningConfig: sc, Override: override},
			want: sign.Services{Fulcio: override.Fulcio, OIDCIssuer: fromConfig.OIDCIssuer, TSAs: override.TSAs, Logs: override.Logs}},
		{name: "a Fulcio override needs no signing config", in: sign.Instance{TrustedRoot: tr, Override: sign.Services{Fulcio: override.Fulcio}},
			want: sign.Services{Fulcio: override.Fulcio}},
		{name: "public-good needs a cache directory", in: sign.Instance{SigningConfig: sc}, wantErr: sign.ErrNoTUFCache},
		{name: "public-good read through TUF", in: sign.Instance{TrustedRoot: tr, TUFCache: t.TempDir(), TUF: emptyTUF}, wantTUF: true, tufError: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := requests
			_, svc, err := tt.in.Signing(ctx, time.Now())
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Signing: %v, want %v", err, tt.wantErr)
			}
			if _, ok := errors.AsType[*sign.TUFError](err); ok != tt.tufError {
				t.Fatalf("Signing: %v; a *TUFError: %v, want %v", err, ok, tt.tufError)
			}
			if tt.wantErr == nil && !tt.tufError {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, svc); diff != "" {
					t.Errorf("services (-want +got):\n%s", diff)
				}
			}
			if asked := requests > before; asked != tt.wantTUF {
				t.Errorf("TUF asked: %v, want %v", asked, tt.wantTUF)
			}
		})
	}

	// Verification needs only the trusted root.
	before := requests
	if got, err := (sign.Instance{TrustedRoot: tr, TUF: emptyTUF}).VerificationRoot(ctx); err != nil || got != tr {
		t.Errorf("VerificationRoot with a trusted root: %v, %v", got, err)
	}
	if requests != before {
		t.Error("VerificationRoot with a trusted root asked TUF")
	}
	if _, err := (sign.Instance{}).VerificationRoot(ctx); !errors.Is(err, sign.ErrNoTUFCache) {
		t.Errorf("VerificationRoot of public-good without a cache: %v, want ErrNoTUFCache", err)
	}
	if _, err := sign.ReadTrustedRoot(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadTrustedRoot of a missing file: %v", err)
	}
	if _, err := sign.ReadSigningConfig(trFile); err == nil {
		t.Error("ReadSigningConfig read a trusted root as a signing config")
	}
}

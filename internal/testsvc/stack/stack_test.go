package stack_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kitsmith/kitsmith/internal/testsvc/oidcissuer"
	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
)

// recorder is a testing.TB whose Fatal and Skip stop the goroutine and
// record the message, so Env's failures can be asserted.
type recorder struct {
	testing.TB
	mu      sync.Mutex
	fatal   string
	skipped bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fatal(args ...any) {
	r.mu.Lock()
	r.fatal = fmt.Sprint(args...)
	r.mu.Unlock()
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) { r.Fatal(fmt.Sprintf(format, args...)) }
func (r *recorder) Skip(...any) {
	r.mu.Lock()
	r.skipped = true
	r.mu.Unlock()
	runtime.Goexit()
}

// run calls f with a recorder in its own goroutine, as the testing package
// does, and returns the recorder once f has returned or stopped.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

var allVars = []string{
	"KITSMITH_TEST_TRUSTED_ROOT", "KITSMITH_TEST_SIGNING_CONFIG", "KITSMITH_TEST_OIDC_URL",
	"KITSMITH_TEST_OIDC_GITHUB_URL", "KITSMITH_TEST_FULCIO_URL", "KITSMITH_TEST_TSA_URL",
	"KITSMITH_TEST_REKOR_URL", "KITSMITH_TEST_CTLOG_URL", "KITSMITH_TEST_COSIGN", "KITSMITH_TEST_ACTIONLINT",
	"KITSMITH_TEST_ACTIONS_ID_TOKEN_REQUEST_URL", "KITSMITH_TEST_ACTIONS_ID_TOKEN_REQUEST_TOKEN",
}

// setStack points every variable at an in-process issuer and temp files.
func setStack(t *testing.T) (*oidcissuer.Server, stack.Stack) {
	t.Helper()
	hs := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(hs.Close)
	iss, err := oidcissuer.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = iss
	dir := t.TempDir()
	file := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := stack.Stack{
		TrustedRoot: file("trusted_root.json"), SigningConfig: file("signing_config.json"),
		OIDCURL: iss.Issuer(oidcissuer.Email), GitHubOIDCURL: iss.Issuer(oidcissuer.GitHub),
		FulcioURL: "http://127.0.0.1:1", TSAURL: "http://127.0.0.1:2/api/v1/timestamp", RekorURL: "http://127.0.0.1:3",
		Cosign: file("cosign"), Actionlint: file("actionlint"),
		ActionsTokenURL: iss.ActionsTokenURL(), ActionsToken: iss.ActionsToken(),
	}
	vals := []string{want.TrustedRoot, want.SigningConfig, want.OIDCURL, want.GitHubOIDCURL, want.FulcioURL,
		want.TSAURL, want.RekorURL, "", want.Cosign, want.Actionlint, want.ActionsTokenURL, want.ActionsToken}
	for i, k := range allVars {
		t.Setenv(k, vals[i])
	}
	return iss, want
}

func TestEnv(t *testing.T) {
	t.Run("no stack, not integration", func(t *testing.T) {
		for _, k := range allVars {
			t.Setenv(k, "")
		}
		t.Setenv("KITSMITH_INTEGRATION", "")
		var ok bool
		r := run(t, func(tb testing.TB) { _, ok = stack.Env(tb) })
		if ok || r.fatal != "" {
			t.Errorf("Env = ok %v, fatal %q; want false and no failure", ok, r.fatal)
		}
		if r := run(t, func(tb testing.TB) { stack.Token(tb, stack.Email, nil) }); !r.skipped {
			t.Errorf("Token without a stack did not skip (fatal %q)", r.fatal)
		}
	})
	t.Run("no stack, integration", func(t *testing.T) {
		for _, k := range allVars {
			t.Setenv(k, "")
		}
		t.Setenv("KITSMITH_INTEGRATION", "1")
		r := run(t, func(tb testing.TB) { stack.Env(tb) })
		if !strings.Contains(r.fatal, "no Sigstore stack") {
			t.Errorf("fatal = %q, want the missing stack reported", r.fatal)
		}
	})
	t.Run("partly configured", func(t *testing.T) {
		setStack(t)
		t.Setenv("KITSMITH_TEST_REKOR_URL", "")
		r := run(t, func(tb testing.TB) { stack.Env(tb) })
		if !strings.Contains(r.fatal, "KITSMITH_TEST_REKOR_URL") {
			t.Errorf("fatal = %q, want KITSMITH_TEST_REKOR_URL named", r.fatal)
		}
	})
	t.Run("complete", func(t *testing.T) {
		_, want := setStack(t)
		var got stack.Stack
		var ok bool
		r := run(t, func(tb testing.TB) { got, ok = stack.Env(tb) })
		if !ok || r.fatal != "" {
			t.Fatalf("Env = ok %v, fatal %q", ok, r.fatal)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("Env (-want +got):\n%s", d)
		}
	})
}

func claimsOf(t *testing.T, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a compact JWS", tok)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestToken(t *testing.T) {
	iss, _ := setStack(t)
	s, ok := stack.Env(t)
	if !ok {
		t.Fatal("Env: no stack")
	}
	tests := []struct {
		name   string
		kind   stack.Kind
		claims map[string]string
		want   map[string]any
	}{
		{"email default", stack.Email, nil, map[string]any{
			"iss": iss.Issuer(oidcissuer.Email), "aud": "sigstore", "email": stack.DefaultEmail, "email_verified": true}},
		{"email override", stack.Email, map[string]string{"email": "ops@example.org", "aud": "other"}, map[string]any{
			"iss": iss.Issuer(oidcissuer.Email), "aud": "other", "email": "ops@example.org", "email_verified": true}},
		{"github default", stack.GitHub, nil, map[string]any{
			"iss": iss.Issuer(oidcissuer.GitHub), "repository": stack.DefaultRepository, "ref": stack.DefaultRef,
			"job_workflow_ref": stack.DefaultRepository + "/" + stack.DefaultWorkflow + "@" + stack.DefaultRef}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := claimsOf(t, s.Token(t, tc.kind, tc.claims))
			got := map[string]any{}
			for k := range tc.want {
				got[k] = c[k]
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("claims (-want +got):\n%s", d)
			}
		})
	}
	t.Run("package Token", func(t *testing.T) {
		if c := claimsOf(t, stack.Token(t, stack.Email, nil)); c["email"] != stack.DefaultEmail {
			t.Errorf("email = %v", c["email"])
		}
	})
	t.Run("bad request fails the test", func(t *testing.T) {
		r := run(t, func(tb testing.TB) { s.Token(tb, stack.Email, map[string]string{"alg": "none"}) })
		if !strings.Contains(r.fatal, "400") {
			t.Errorf("fatal = %q, want the 400 reported", r.fatal)
		}
	})
}

// TestDefaultsMatchIssuer keeps the documented defaults of stack in step
// with what the issuer mints.
func TestDefaultsMatchIssuer(t *testing.T) {
	got := []string{stack.DefaultEmail, stack.DefaultRepository, stack.DefaultRef, stack.DefaultWorkflow,
		string(stack.Email), string(stack.GitHub)}
	want := []string{oidcissuer.DefaultEmail, oidcissuer.DefaultRepository, oidcissuer.DefaultRef, oidcissuer.DefaultWorkflow,
		string(oidcissuer.Email), string(oidcissuer.GitHub)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stack defaults (-issuer +stack):\n%s", d)
	}
}

package main

import (
	"bytes"
	"context"
	"crypto/elliptic"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"

	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

const (
	testSigner = "dev@example.org"
	testIssuer = "http://127.0.0.1:18089"
)

// runCLIEnv runs the command tree in-process with environment e.
func runCLIEnv(t *testing.T, e env, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, e, &out, &errOut)
	return out.String(), errOut.String(), code
}

// signFixture is an in-process Sigstore (Fulcio, TSA, trusted root file)
// and kits in a registry with the referrers API, one without, and a layout.
type signFixture struct {
	ss          *signtest.Sigstore
	trustedRoot string
	dir         string
	refs        map[string]string // "referrers", "tag-schema", "layout"
}

func newSignFixture(t *testing.T) *signFixture {
	t.Helper()
	ss := signtest.New(t)
	ss.ServeFulcio(t, testIssuer)
	f := &signFixture{ss: ss, dir: t.TempDir(), refs: map[string]string{}}
	f.trustedRoot = filepath.Join(f.dir, "trusted_root.json")
	if err := os.WriteFile(f.trustedRoot, ss.TrustedRootJSON(t), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := at.Mixin(t).Index(t)
	f.refs["referrers"] = at.Push(t, at.Registry(t, true)+"/kits/tool:1.0.0", idx)
	f.refs["tag-schema"] = at.Push(t, at.Registry(t, false)+"/kits/tool:1.0.0", idx)
	at.WriteLayout(t, filepath.Join(f.dir, "layout"), "1.0.0", idx)
	f.refs["layout"] = "oci:" + filepath.Join(f.dir, "layout")
	return f
}

// signArgs are the flags that sign against the fixture's instance, with
// no transparency log (it has none).
func (f *signFixture) signArgs(extra ...string) []string {
	return append([]string{"sign", "--trusted-root", f.trustedRoot, "--fulcio-url", f.ss.FulcioURL, "--tsa-url", f.ss.TSAURL, "--tlog-upload=false"}, extra...)
}

// verifyArgs verify against the fixture's instance.
func (f *signFixture) verifyArgs(extra ...string) []string {
	return append([]string{"verify", "--trusted-root", f.trustedRoot, "--insecure-ignore-sct", "--insecure-ignore-tlog"}, extra...)
}

func TestSignVerifyCLI(t *testing.T) {
	f := newSignFixture(t)
	tok := signtest.Token(testSigner)
	for _, store := range []string{"referrers", "tag-schema", "layout"} {
		t.Run(store, func(t *testing.T) {
			ref := f.refs[store]
			bundle := filepath.Join(t.TempDir(), "tool.sigstore.json")
			stdout, stderr, code := runCLI(t, f.signArgs("--identity-token", tok, "--bundle", bundle, "--recursive", ref)...)
			if code != exitOK {
				t.Fatalf("sign: exit %d\n%s", code, stderr)
			}
			if n := strings.Count(stdout, "signed sha256:"); n != 3 { // the index and its two platforms
				t.Errorf("sign signed %d manifests, want 3:\n%s", n, stdout)
			}
			data, err := os.ReadFile(bundle)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sign.ParseBundle(data); err != nil {
				t.Errorf("--bundle wrote no bundle: %v", err)
			}

			stdout, stderr, code = runCLI(t, f.verifyArgs("--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, ref)...)
			if code != exitOK || !strings.Contains(stdout, "verified, 1 of 1") || !strings.Contains(stdout, "accepted sha256:") {
				t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
			}
			stdout, _, code = runCLI(t, f.verifyArgs("--certificate-identity", "eve@example.org", "--certificate-oidc-issuer", testIssuer, ref)...)
			if code != exitFindings || !strings.Contains(stdout, `rejected sha256:`) || !strings.Contains(stdout, `expected SAN value "eve@example.org", got "dev@example.org"`) {
				t.Errorf("verify with the wrong identity: exit %d\n%s", code, stdout)
			}
		})
	}
}

func TestVerifyCLIOutcomes(t *testing.T) {
	f := newSignFixture(t)
	ref := f.refs["referrers"]
	if _, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(testSigner), ref)...); code != exitOK {
		t.Fatalf("sign: exit %d\n%s", code, stderr)
	}
	policy := filepath.Join(f.dir, "signers.json")
	if err := os.WriteFile(policy, []byte(`[{"identity":"ops@example.org","issuer":"`+testIssuer+`"},{"identityRegexp":"^dev@.*$","issuer":"`+testIssuer+`"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	badPolicy := filepath.Join(f.dir, "bad.json")
	if err := os.WriteFile(badPolicy, []byte(`[{"identity":"dev@example.org"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	unsigned := at.Push(t, strings.Split(ref, "/")[0]+"/kits/other:1.0.0", at.Workload(t).Index(t))
	tests := []struct {
		name string
		args []string
		code int
		want string // in stdout+stderr
	}{
		{"policy file", f.verifyArgs("--policy", policy, ref), exitOK, "verified, 1 of 1"},
		{"issuer regexp", f.verifyArgs("--certificate-identity", testSigner, "--certificate-oidc-issuer-regexp", `^http://127\.0\.0\.1:`, ref), exitOK, "verified"},
		{"wrong issuer", f.verifyArgs("--certificate-identity", testSigner, "--certificate-oidc-issuer", "https://token.actions.githubusercontent.com", ref), exitFindings, "expected issuer value"},
		{"regexp not matching", f.verifyArgs("--certificate-identity-regexp", `@example\.net$`, "--certificate-oidc-issuer", testIssuer, ref), exitFindings, "to match regex"},
		{"SCT required by default", []string{"verify", "--trusted-root", f.trustedRoot, "--insecure-ignore-tlog", "--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, ref}, exitFindings, "SCT"},
		{"tlog required by default", []string{"verify", "--trusted-root", f.trustedRoot, "--insecure-ignore-sct", "--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, ref}, exitFindings, "transparency log"},
		{"no signature", f.verifyArgs("--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, unsigned), exitFindings, "no Sigstore signature found"},
		{"untrusted root", []string{"verify", "--trusted-root", writeOtherRoot(t), "--insecure-ignore-sct", "--insecure-ignore-tlog", "--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, ref}, exitFindings, "failed to verify"},
		{"identity without issuer", f.verifyArgs("--certificate-identity", testSigner, ref), exitUsage, "needs both"},
		{"no policy at all", f.verifyArgs(ref), exitUsage, "no signer to accept"},
		{"bad policy file", f.verifyArgs("--policy", badPolicy, ref), exitUsage, "state exactly one of issuer and issuerRegexp"},
		{"missing trusted root", []string{"verify", "--trusted-root", filepath.Join(f.dir, "nope.json"), "--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, ref}, exitUsage, "reading the trusted root"},
		{"bad format", f.verifyArgs("--format", "sarif", "--policy", policy, ref), exitUsage, "--format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tt.code, tt.want, stdout, stderr)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		stdout, stderr, code := runCLI(t, f.verifyArgs("--format", "json", "--policy", policy, ref)...)
		if code != exitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		var doc struct {
			FormatVersion int    `json:"formatVersion"`
			Reference     string `json:"reference"`
			Verified      bool   `json:"verified"`
			Signatures    []struct {
				Referrer   string `json:"referrer"`
				Identity   string `json:"identity"`
				Issuer     string `json:"issuer"`
				Accepted   bool   `json:"accepted"`
				Timestamps []struct {
					Source string `json:"source"`
				} `json:"timestamps"`
			} `json:"signatures"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		if doc.FormatVersion != 1 || !doc.Verified || doc.Reference != ref || len(doc.Signatures) != 1 {
			t.Fatalf("document = %+v", doc)
		}
		s := doc.Signatures[0]
		if !s.Accepted || s.Identity != testSigner || s.Issuer != testIssuer || !strings.HasPrefix(s.Referrer, "sha256:") || len(s.Timestamps) != 1 || s.Timestamps[0].Source != "timestamp-authority" {
			t.Errorf("signature = %+v", s)
		}
	})
}

func writeOtherRoot(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "other_root.json")
	if err := os.WriteFile(p, signtest.New(t).TrustedRootJSON(t), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSignTokenSources signs with each source of identity token the
// command reads, and checks that no output shows a token.
func TestSignTokenSources(t *testing.T) {
	f := newSignFixture(t)
	ref := f.refs["layout"]
	tok := signtest.Token(testSigner)
	tokFile := filepath.Join(f.dir, "token")
	if err := os.WriteFile(tokFile, []byte(tok), 0o600); err != nil {
		t.Fatal(err)
	}
	gha := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer gha-request-token" || r.URL.Query().Get("audience") != "sigstore" {
			http.Error(w, "denied", http.StatusForbidden)
			return
		}
		w.Write([]byte(`{"value":"` + tok + `"}`))
	}))
	defer gha.Close()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "denied: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	defer echo.Close()

	tests := []struct {
		name string
		env  env
		args []string
		code int
	}{
		{"--identity-token-file", env{}, f.signArgs("--identity-token-file", tokFile, ref), exitOK},
		{"SIGSTORE_ID_TOKEN", env{"SIGSTORE_ID_TOKEN": tok}, f.signArgs(ref), exitOK},
		{"GitHub Actions", env{"ACTIONS_ID_TOKEN_REQUEST_URL": gha.URL + "/token?api-version=2.0", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "gha-request-token"}, f.signArgs(ref), exitOK},
		{"no token", env{}, f.signArgs(ref), exitUsage},
		{"Fulcio refuses", env{"SIGSTORE_ID_TOKEN": tok}, []string{"sign", "--trusted-root", f.trustedRoot, "--fulcio-url", echo.URL, "--tsa-url", f.ss.TSAURL, "--tlog-upload=false", ref}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLIEnv(t, tt.env, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, part := range append([]string{tok}, strings.Split(tok, ".")[1:]...) {
				if strings.Contains(stdout+stderr, part) {
					t.Errorf("output shows the token:\n%s%s", stdout, stderr)
				}
			}
		})
	}
}

// TestSignVerifyKey signs a layout with an encrypted cosign key and
// verifies with its public key.
func TestSignVerifyKey(t *testing.T) {
	f := newSignFixture(t)
	ref := f.refs["layout"]
	priv, pub, err := cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), cryptoutils.StaticPasswordFunc([]byte("s3cret")))
	if err != nil {
		t.Fatal(err)
	}
	keyFile, pubFile := filepath.Join(f.dir, "cosign.key"), filepath.Join(f.dir, "cosign.pub")
	if err := os.WriteFile(keyFile, priv, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pubFile, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLIEnv(t, env{}, "sign", "--key", keyFile, "--tlog-upload=false", ref); code != exitUsage || !strings.Contains(stderr, "COSIGN_PASSWORD") {
		t.Errorf("sign without the password: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLIEnv(t, env{"COSIGN_PASSWORD": "s3cret"}, "sign", "--key", keyFile, ref); code != exitUsage || !strings.Contains(stderr, "--tlog-upload=false") {
		t.Errorf("sign --key with no log: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLIEnv(t, env{"COSIGN_PASSWORD": "s3cret"}, "sign", "--key", keyFile, "--tlog-upload=false", ref); code != exitOK {
		t.Fatalf("sign --key: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := runCLI(t, "verify", "--key", pubFile, "--insecure-ignore-tlog", ref)
	if code != exitOK || !strings.Contains(stdout, "accepted sha256:") || !strings.Contains(stdout, "key ") {
		t.Errorf("verify --key: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, _, code := runCLI(t, "verify", "--key", pubFile, ref); code != exitFindings {
		t.Errorf("verify --key requires a log entry by default: exit %d", code)
	}
	// an admission policy with a ceiling only applies to key signatures
	for _, tc := range []struct {
		name, policy string
		code         int
		want         string
	}{
		{"within", "policyVersion: \"1\"\nceiling:\n  network:\n    runtime: [example.com]\n", exitOK, "stays within the permission ceiling"},
		{"beyond", "policyVersion: \"1\"\nceiling: {}\n", exitFindings, "network.runtime.allow example.com is beyond the ceiling"},
		{"signers", trustedSigners, exitUsage, "lists signers; use a policy with a ceiling only"},
	} {
		policy := writePolicy(t, t.TempDir(), "policy.yaml", tc.policy)
		stdout, stderr, code := runCLI(t, "verify", "--key", pubFile, "--insecure-ignore-tlog", "--policy", policy, ref)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("verify --key --policy (%s): exit %d, want %d saying %q\n%s%s", tc.name, code, tc.code, tc.want, stdout, stderr)
		}
	}
	keyless := f.refs["referrers"]
	if _, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(testSigner), keyless)...); code != exitOK {
		t.Fatalf("sign: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code = runCLI(t, "verify", "--key", pubFile, "--insecure-ignore-tlog", keyless)
	if code != exitFindings || !strings.Contains(stdout, "names no signer identity") {
		t.Errorf("verify --key of a keyless signature: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestSignVerifyHelp checks that --help teaches with the examples the
// issue names.
func TestSignVerifyHelp(t *testing.T) {
	for cmd, wants := range map[string][]string{
		"sign": {"GitHub Actions", "id-token: write", "--trusted-root trusted_root.json --signing-config", "--key cosign.key", "Exit status"},
		"verify": {"token.actions.githubusercontent.com", "--certificate-github-workflow-trigger", "private instance", "offline", "--policy", "Exit status",
			"permission ceiling", "--kit-arg", "beyond the ceiling", "--policy kits/policy.yaml"},
		"publish": {"--policy", "permission ceiling", "stage \"policy\"", "kind: set is resolved"},
	} {
		stdout, _, code := runCLI(t, cmd, "--help")
		if code != exitOK {
			t.Errorf("%s --help: exit %d", cmd, code)
		}
		for _, w := range wants {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s --help lacks %q", cmd, w)
			}
		}
	}
}

// TestSignRefusesBeforeContactingSigstore checks that a missing token or
// key file, an unwritable --bundle and a reference that names nothing are
// reported as usage errors before any Sigstore service is contacted.
func TestSignRefusesBeforeContactingSigstore(t *testing.T) {
	var hits int
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits++
		http.Error(w, "not here", http.StatusTeapot)
	}))
	t.Cleanup(svc.Close)
	f := newSignFixture(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	// A signing config file the test never writes: reading it would fail
	// later than the checks under test, and no service URL is reachable
	// but the counting server.
	base := []string{"sign", "--trusted-root", f.trustedRoot, "--fulcio-url", svc.URL, "--tsa-url", svc.URL, "--tlog-upload=false"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"token file", []string{"--identity-token-file", missing, f.refs["layout"]}, "--identity-token-file: "},
		{"key file", []string{"--key", missing, f.refs["layout"]}, "--key: "},
		{"bundle under a file", []string{"--identity-token", "x", "--bundle", filepath.Join(f.trustedRoot, "b.json"), f.refs["layout"]}, "--bundle "},
		{"no such layout", []string{"--identity-token", "x", "oci:" + missing}, missing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits = 0
			_, stderr, code := runCLI(t, append(slices.Clone(base), tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d naming %q:\n%s", code, exitUsage, tt.want, stderr)
			}
			if hits != 0 {
				t.Errorf("%d request(s) reached a Sigstore service before the refusal", hits)
			}
		})
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// TestVerifyWarnsUnanchored keeps accepting unanchored SAN and issuer
// regexps given by flag, as cosign does, but warns of each, with the
// anchored form; an anchored one gets no warning. A signer file refuses
// an unanchored expression (signer.Anchored, the one signer grammar).
func TestVerifyWarnsUnanchored(t *testing.T) {
	f := newSignFixture(t)
	ref := f.refs["referrers"]
	if _, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(testSigner), ref)...); code != exitOK {
		t.Fatalf("sign: exit %d\n%s", code, stderr)
	}
	list := filepath.Join(f.dir, "signers.yaml")
	if err := os.WriteFile(list, []byte("- identityRegexp: 'dev@example\\.org'\n  issuer: "+testIssuer+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		warnings []string
		code     int
	}{
		{"unanchored identity flag", []string{"--certificate-identity-regexp", `dev@example\.org`, "--certificate-oidc-issuer", testIssuer},
			[]string{`warning: --certificate-identity-regexp "dev@example\\.org" is unanchored`, `use "^dev@example\\.org$"`}, exitOK},
		{"unanchored issuer flag", []string{"--certificate-identity", testSigner, "--certificate-oidc-issuer-regexp", `127\.0\.0\.1`},
			[]string{`--certificate-oidc-issuer-regexp "127\\.0\\.0\\.1" is unanchored: it accepts any issuer`}, exitOK},
		{"unanchored signer list", []string{"--policy", list}, []string{"not anchored as a whole"}, exitUsage},
		{"anchored", []string{"--certificate-identity-regexp", `^dev@example\.org$`, "--certificate-oidc-issuer-regexp", `^http://127\.0\.0\.1:\d+$`}, nil, exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, f.verifyArgs(append(tt.args, ref)...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.warnings {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if (len(tt.warnings) == 0 || tt.code != exitOK) && strings.Contains(stderr, "warning:") {
				t.Errorf("a warning for anchored expressions:\n%s", stderr)
			}
			if strings.Contains(stdout, "warning:") {
				t.Errorf("a warning on stdout:\n%s", stdout)
			}
		})
	}
}

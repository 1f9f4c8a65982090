package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// TestVerifyWarnsUnanchored keeps accepting unanchored SAN and issuer
// regexps, as cosign does, but warns of each, with the anchored form; an
// anchored one and a path prefix get no warning.
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
	}{
		{"unanchored identity flag", []string{"--certificate-identity-regexp", `dev@example\.org`, "--certificate-oidc-issuer", testIssuer},
			[]string{`warning: --certificate-identity-regexp "dev@example\\.org" is unanchored`, `use "^dev@example\\.org$"`}},
		{"unanchored issuer flag", []string{"--certificate-identity", testSigner, "--certificate-oidc-issuer-regexp", `127\.0\.0\.1`},
			[]string{`--certificate-oidc-issuer-regexp "127\\.0\\.0\\.1" is unanchored: it accepts any issuer`}},
		{"unanchored signer list", []string{"--policy", list}, []string{`signer 1 identityRegexp "dev@example\\.org" is unanchored`}},
		{"anchored", []string{"--certificate-identity-regexp", `^dev@example\.org$`, "--certificate-oidc-issuer-regexp", `^http://127\.0\.0\.1:\d+$`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, f.verifyArgs(append(tt.args, ref)...)...)
			if code != exitOK {
				t.Fatalf("exit %d: the expression is still accepted\n%s%s", code, stdout, stderr)
			}
			for _, w := range tt.warnings {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if len(tt.warnings) == 0 && strings.Contains(stderr, "warning:") {
				t.Errorf("a warning for anchored expressions:\n%s", stderr)
			}
			if strings.Contains(stdout, "warning:") {
				t.Errorf("a warning on stdout:\n%s", stdout)
			}
		})
	}
}

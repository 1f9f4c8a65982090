package testsvc_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"google.golang.org/protobuf/encoding/protojson"
)

// cosign runs the stack's cosign with a throw-away HOME (cosign writes
// ~/.sigstore) and a time limit, and returns its combined output.
func cosign(t *testing.T, s stack.Stack, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Cosign, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "SIGSTORE_NO_CACHE=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// sctFlags are the flags cosign verification needs for this stack: none
// with a CT log (SCTs are then checked), --insecure-ignore-sct without.
func sctFlags(s stack.Stack) []string {
	if s.CTLogURL == "" {
		return []string{"--insecure-ignore-sct"}
	}
	return nil
}

// TestCosign proves that cosign works with the generated trust files:
// cosign signs a blob through signing_config.json and verifies it with
// trusted_root.json; sigstore-go verifies cosign's bundle; cosign verifies
// a DSSE bundle made by sigstore-go; a wrong identity fails in cosign.
func TestCosign(t *testing.T) {
	s, ok := stack.Env(t)
	if !ok {
		t.Skip("no Sigstore stack; run scripts/test.sh")
	}
	dir := t.TempDir()
	blob := filepath.Join(dir, "artifact.txt")
	content := []byte("kitsmith cosign interop\n")
	if err := os.WriteFile(blob, content, 0o644); err != nil {
		t.Fatal(err)
	}
	identity := []string{"--certificate-identity", stack.DefaultEmail, "--certificate-oidc-issuer", s.OIDCURL}

	t.Run("cosign sign-blob and verify-blob", func(t *testing.T) {
		b := filepath.Join(dir, "cosign.bundle.json")
		start := time.Now()
		if out, err := cosign(t, s, "sign-blob", "--yes", "--signing-config", s.SigningConfig,
			"--trusted-root", s.TrustedRoot, "--identity-token", s.Token(t, stack.Email, nil),
			"--bundle", b, blob); err != nil {
			t.Fatalf("cosign sign-blob: %v\n%s", err, out)
		}
		t.Logf("cosign sign-blob took %v", time.Since(start).Round(time.Millisecond))
		args := append([]string{"verify-blob", "--trusted-root", s.TrustedRoot, "--bundle", b}, identity...)
		if out, err := cosign(t, s, append(append(args, sctFlags(s)...), blob)...); err != nil {
			t.Fatalf("cosign verify-blob: %v\n%s", err, out)
		}
		wrong := append([]string{"verify-blob", "--trusted-root", s.TrustedRoot, "--bundle", b,
			"--certificate-identity", "mallory@example.com", "--certificate-oidc-issuer", s.OIDCURL}, sctFlags(s)...)
		out, err := cosign(t, s, append(wrong, blob)...)
		if err == nil || !strings.Contains(out, "mallory@example.com") {
			t.Errorf("cosign verify-blob with a wrong identity: err %v, output:\n%s", err, out)
		}

		// sigstore-go reads and verifies cosign's bundle against the same root.
		cb, err := bundle.LoadJSONFromPath(b)
		if err != nil {
			t.Fatalf("loading cosign's bundle: %v", err)
		}
		tr := loadTrust(t, s)
		id, err := verify.NewShortCertificateIdentity(s.OIDCURL, "", stack.DefaultEmail, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.verifier(t, s).Verify(cb, verify.NewPolicy(verify.WithArtifact(bytes.NewReader(content)),
			verify.WithCertificateIdentity(id))); err != nil {
			t.Errorf("sigstore-go verifying cosign's bundle: %v", err)
		}
	})

	t.Run("cosign verifies a sigstore-go DSSE bundle", func(t *testing.T) {
		tr := loadTrust(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		kp, err := sign.NewEphemeralKeypair(nil)
		if err != nil {
			t.Fatal(err)
		}
		digest := sha256.Sum256(content)
		pb, err := sign.Bundle(&sign.DSSEData{Data: statement(digest[:]), PayloadType: "application/vnd.in-toto+json"},
			kp, tr.bundleOptions(t, ctx, s.Token(t, stack.Email, nil)))
		if err != nil {
			t.Fatalf("sign.Bundle: %v", err)
		}
		j, err := protojson.Marshal(pb)
		if err != nil {
			t.Fatal(err)
		}
		b := filepath.Join(dir, "sigstore-go.bundle.json")
		if err := os.WriteFile(b, j, 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"verify-blob-attestation", "--trusted-root", s.TrustedRoot, "--bundle", b,
			"--new-bundle-format", "--type", "https://sigstore.dev/cosign/sign/v1"}, identity...)
		if out, err := cosign(t, s, append(append(args, sctFlags(s)...), blob)...); err != nil {
			t.Fatalf("cosign verify-blob-attestation: %v\n%s", err, out)
		}
		other := filepath.Join(dir, "other.txt")
		if err := os.WriteFile(other, []byte("not the signed bytes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := cosign(t, s, append(append(args, sctFlags(s)...), other)...); err == nil {
			t.Errorf("cosign accepted the bundle for other bytes:\n%s", out)
		}
	})
}

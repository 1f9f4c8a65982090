package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/publish"
)

// publishServices returns the local Sigstore stack and registry, or skips
// (fails with KITSMITH_INTEGRATION=1).
func publishServices(t *testing.T) (stack.Stack, string) {
	t.Helper()
	s, ok := stack.Env(t)
	reg := os.Getenv("KITSMITH_TEST_REGISTRY")
	if !ok || reg == "" {
		if os.Getenv("KITSMITH_INTEGRATION") == "1" {
			t.Fatalf("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_REGISTRY=%q (scripts/services.sh env)", reg)
		}
		t.Skip("no Sigstore stack or registry (scripts/services.sh env)")
	}
	return s, reg
}

// trustFlags are the flags that point kitsmith at the local stack.
func trustFlags(s stack.Stack) []string {
	f := []string{"--trusted-root", s.TrustedRoot, "--signing-config", s.SigningConfig}
	if s.CTLogURL == "" {
		f = append(f, "--insecure-ignore-sct")
	}
	return f
}

// readMetadata reads a publish metadata file.
func readMetadata(t *testing.T, file string) publish.Metadata {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m publish.Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return m
}

// cosign runs the stack's cosign with a throw-away HOME.
func cosign(t *testing.T, s stack.Stack, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Cosign, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPublishIntegration publishes both repository kits keyless against
// the local Sigstore stack and registry, then checks the pushed
// references with kitsmith check, cosign verify and cosign
// verify-attestation --type slsaprovenance1, and logs the time per stage.
func TestPublishIntegration(t *testing.T) {
	s, reg := publishServices(t)
	prefix := fmt.Sprintf("%s/kitsmith-publish-%d", reg, time.Now().UnixNano())
	meta := filepath.Join(t.TempDir(), "publish.json")
	tok := s.Token(t, stack.Email, nil)
	args := append(trustFlags(s), "--identity-token", tok, "--tag-template", prefix+"/{stem}:{version}",
		"--metadata-file", meta, "../../kits/outside", "../../kits/inside")
	start := time.Now()
	stdout, stderr, code := runPublish(t, env{"HOME": t.TempDir()}, args...)
	wall := time.Since(start)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	m := readMetadata(t, meta)
	t.Logf("kitsmith publish of %d kits: %s wall", len(m.Kits), wall.Round(time.Millisecond))
	for _, k := range m.Kits {
		t.Logf("  %s: %v ms by stage", k.Stem, k.TimingsMillis)
		if !k.Signed || !k.Tagged || k.Provenance == nil || k.Signature.Identity != stack.DefaultEmail || k.Signature.Issuer != s.OIDCURL {
			t.Fatalf("%s: %+v; want signed by %s, attested and tagged", k.Stem, k, stack.DefaultEmail)
		}
		if _, stderr, code := runCLI(t, "check", k.Reference); code != 0 {
			t.Errorf("kitsmith check %s: exit %d\n%s", k.Reference, code, stderr)
		}
		policy := []string{"--trusted-root", s.TrustedRoot, "--certificate-identity", stack.DefaultEmail, "--certificate-oidc-issuer", s.OIDCURL, "--allow-insecure-registry"}
		if s.CTLogURL == "" {
			policy = append(policy, "--insecure-ignore-sct")
		}
		if out, err := cosign(t, s, append(append([]string{"verify"}, policy...), k.Pinned)...); err != nil {
			t.Errorf("cosign verify %s: %v\n%s", k.Pinned, err, out)
		}
		out, err := cosign(t, s, append(append([]string{"verify-attestation", "--type", "slsaprovenance1"}, policy...), k.Pinned)...)
		if err != nil {
			t.Errorf("cosign verify-attestation %s: %v\n%s", k.Pinned, err, out)
			continue
		}
		checkProvenance(t, out, k)
	}
}

// checkProvenance decodes the statement cosign verify-attestation printed
// and checks its subject and the kit source it records.
func checkProvenance(t *testing.T, out string, k publish.KitMetadata) {
	t.Helper()
	line, _, _ := strings.Cut(strings.TrimSpace(out[strings.Index(out, "{"):]), "\n")
	var env struct{ Payload string }
	if err := json.Unmarshal([]byte(line), &env); err != nil {
		t.Fatalf("cosign output: %v\n%s", err, out)
	}
	b, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		PredicateType string
		Subject       []struct{ Digest map[string]string }
		Predicate     publish.Provenance
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	src := st.Predicate.BuildDefinition.ExternalParameters.Source
	if st.PredicateType != publish.SLSAPredicateType || len(st.Subject) != 1 || "sha256:"+st.Subject[0].Digest["sha256"] != k.Digest ||
		!strings.HasSuffix(src.Path, k.Stem+".yaml") || len(src.Commit) != 40 {
		t.Errorf("%s provenance: %s", k.Stem, b)
	}
}

// TestPublishIntegrationFailures makes signing and verification fail
// against the real services and shows that no tag is left.
func TestPublishIntegrationFailures(t *testing.T) {
	s, reg := publishServices(t)
	prefix := fmt.Sprintf("%s/kitsmith-publish-fail-%d", reg, time.Now().UnixNano())
	// A trusted root without the certificate authority: Fulcio still
	// issues certificates (signing succeeds), verification cannot trust them.
	rootJSON, err := os.ReadFile(s.TrustedRoot)
	if err != nil {
		t.Fatal(err)
	}
	var tr map[string]any
	if err := json.Unmarshal(rootJSON, &tr); err != nil {
		t.Fatal(err)
	}
	delete(tr, "certificateAuthorities")
	untrusting := filepath.Join(t.TempDir(), "trusted_root.json")
	b, _ := json.Marshal(tr)
	if err := os.WriteFile(untrusting, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		stage string
	}{
		{"signing failure: Fulcio refuses the token", append(trustFlags(s), "--identity-token", "not-a-token"), "sign"},
		{"verification failure: the CA is not trusted", []string{"--trusted-root", untrusting, "--signing-config", s.SigningConfig,
			"--insecure-ignore-sct", "--identity-token", s.Token(t, stack.Email, nil)}, "verify"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := fmt.Sprintf("%s/k%d:1", prefix, i)
			stdout, stderr, code := runPublish(t, env{"HOME": t.TempDir()}, append(tt.args, "-t", ref, "../../kits/outside")...)
			if code != 1 || !strings.Contains(stdout, "at "+tt.stage+": no tag written") || !strings.Contains(stderr, "at "+tt.stage) ||
				!strings.Contains(stdout, "pushed by digest") {
				t.Errorf("exit %d; want 1 naming the %s stage and the pushed blobs\nstdout:\n%s\nstderr:\n%s", code, tt.stage, stdout, stderr)
			}
			if _, err := artifact.Head(context.Background(), ref); !errors.Is(err, artifact.ErrNotFound) {
				t.Errorf("tag %s after a failed %s: %v; want none", ref, tt.stage, err)
			}
		})
	}
}

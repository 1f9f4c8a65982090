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

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/publish"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/sign"
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
// the local Sigstore stack and registry, gated by kits/policy.yaml's
// ceiling, then checks the pushed references with kitsmith check, kitsmith
// verify (--policy too), cosign verify and cosign verify-attestation
// --type slsaprovenance1, and logs the time per stage.
func TestPublishIntegration(t *testing.T) {
	s, reg := publishServices(t)
	prefix := fmt.Sprintf("%s/kitsmith-publish-%d", reg, time.Now().UnixNano())
	meta := filepath.Join(t.TempDir(), "publish.json")
	tok := s.Token(t, stack.Email, nil)
	args := append(trustFlags(s), "--identity-token", tok, "--tag-template", prefix+"/{stem}:{version}",
		"--policy", "../../kits/policy.yaml", "--metadata-file", meta, "../../kits/outside", "../../kits/inside")
	start := time.Now()
	stdout, stderr, code := runPublish(t, env{"HOME": t.TempDir()}, args...)
	wall := time.Since(start)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	m := readMetadata(t, meta)
	policyFile := repoPolicyFor(t, sign.TrustedSigner{Identity: stack.DefaultEmail, Issuer: s.OIDCURL})
	t.Logf("kitsmith publish of %d kits: %s wall", len(m.Kits), wall.Round(time.Millisecond))
	for _, k := range m.Kits {
		t.Logf("  %s: %v ms by stage", k.Stem, k.TimingsMillis)
		if !k.Signed || !k.Tagged || k.Provenance == nil || k.Signature.Identity != stack.DefaultEmail || k.Signature.Issuer != s.OIDCURL {
			t.Fatalf("%s: %+v; want signed by %s, attested and tagged", k.Stem, k, stack.DefaultEmail)
		}
		// The published form asks for exactly the authority the source does.
		if stdout, stderr, code := runCLI(t, "diff", "--fail-on", "widening", k.Kit, k.Reference); code != 0 ||
			!strings.Contains(stdout, "0 widenings, 0 narrowings, 0 other changes") {
			t.Errorf("kitsmith diff %s %s: exit %d\n%s%s", k.Kit, k.Reference, code, stdout, stderr)
		}
		if _, stderr, code := runCLI(t, "check", k.Reference); code != 0 {
			t.Errorf("kitsmith check %s: exit %d\n%s", k.Reference, code, stderr)
		}
		trust := trustFlags(s)[:2]
		if s.CTLogURL == "" {
			trust = append(trust, "--insecure-ignore-sct")
		}
		verify := append([]string{"verify", "--certificate-identity", stack.DefaultEmail, "--certificate-oidc-issuer", s.OIDCURL}, trust...)
		pstart := time.Now()
		if stdout, stderr, code := runCLI(t, append(verify, k.Reference)...); code != 0 ||
			strings.Count(stdout, "  accepted ") != 2 || strings.Count(stdout, "[attestation https://slsa.dev/provenance/v1]") != 1 {
			t.Errorf("kitsmith verify %s: exit %d; want the signature and the provenance attestation accepted, the latter named\n%s%s", k.Reference, code, stdout, stderr)
		}
		plain := time.Since(pstart)
		admission := append(append([]string{"verify", "--policy", policyFile}, trust...), k.Reference)
		vstart := time.Now()
		if stdout, stderr, code := runCLI(t, admission...); code != 0 || !strings.Contains(stdout, "stays within the permission ceiling") {
			t.Errorf("kitsmith verify --policy (kits/policy.yaml's ceiling) %s: exit %d\n%s%s", k.Reference, code, stdout, stderr)
		}
		t.Logf("  %s: kitsmith verify %s, verify --policy %s wall", k.Stem, plain.Round(time.Millisecond), time.Since(vstart).Round(time.Millisecond))
		// kits/policy.yaml itself trusts only the release workflow.
		repoPolicy := append(append([]string{"verify", "--policy", filepath.Join("..", "..", "kits", "policy.yaml")}, trust...), k.Reference)
		if stdout, stderr, code := runCLI(t, repoPolicy...); code != exitFindings || !strings.Contains(stdout, "not verified") {
			t.Errorf("kitsmith verify --policy kits/policy.yaml %s signed by %s: exit %d, want 1\n%s%s", k.Reference, stack.DefaultEmail, code, stdout, stderr)
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

// repoPolicyFor writes kits/policy.yaml with its signers replaced by
// signer (and no GitHub workflow claims), so that kits the test signs are
// judged against the repository's own ceiling.
func repoPolicyFor(t *testing.T, signer sign.TrustedSigner) string {
	t.Helper()
	p, err := review.LoadPolicy(filepath.Join("..", "..", "kits", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Ceiling == nil {
		t.Fatal("kits/policy.yaml states no ceiling")
	}
	p.Signers, p.GitHubWorkflow = []sign.TrustedSigner{signer}, nil
	b, err := yaml.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
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

// TestPublishIntegrationFailures makes signing fail against the real
// services (Fulcio refuses the token) and shows that no tag is left. The
// read-back verification failing is pkg/publish's TestRunIntegration.
func TestPublishIntegrationFailures(t *testing.T) {
	s, reg := publishServices(t)
	ref := fmt.Sprintf("%s/kitsmith-publish-fail-%d/k:1", reg, time.Now().UnixNano())
	args := append(trustFlags(s), "--identity-token", "not-a-token", "-t", ref, "../../kits/outside")
	stdout, stderr, code := runPublish(t, env{"HOME": t.TempDir()}, args...)
	if code != 1 || !strings.Contains(stdout, "at sign: no tag written") || !strings.Contains(stderr, "at sign") ||
		!strings.Contains(stdout, "pushed by digest") {
		t.Errorf("exit %d; want 1 naming the sign stage and the pushed blobs\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if _, err := artifact.Head(context.Background(), ref); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("tag %s after a failed signature: %v; want none", ref, err)
	}
}

// TestPublishIntegrationGitHub publishes as the release workflow does: the
// token from GitHub Actions' endpoint, the builder from GITHUB_* (here the
// local issuer's GitHub-shaped tokens), then verifies with the workflow's
// repository as release-kits.yml does.
func TestPublishIntegrationGitHub(t *testing.T) {
	s, reg := publishServices(t)
	ref := fmt.Sprintf("%s/kitsmith-publish-gh-%d/reshapr-outside:0.3.0", reg, time.Now().UnixNano())
	dir := t.TempDir()
	e := env{
		"HOME": dir, "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"ACTIONS_ID_TOKEN_REQUEST_URL": s.ActionsTokenURL, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": s.ActionsToken,
		"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": stack.DefaultRepository, "GITHUB_RUN_ID": "7", "GITHUB_RUN_ATTEMPT": "1",
		"GITHUB_WORKFLOW_REF": stack.DefaultRepository + "/" + stack.DefaultWorkflow + "@" + stack.DefaultRef,
	}
	meta := filepath.Join(dir, "publish.json")
	stdout, stderr, code := runPublish(t, e, append(trustFlags(s), "-t", ref, "--metadata-file", meta, "../../kits/outside")...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	k := readMetadata(t, meta).Kits[0]
	wantID := "https://github.com/" + stack.DefaultRepository + "/" + stack.DefaultWorkflow + "@" + stack.DefaultRef
	if k.Signature == nil || k.Signature.Identity != wantID || k.Signature.Issuer != s.GitHubOIDCURL {
		t.Errorf("signer %+v; want %s from %s", k.Signature, wantID, s.GitHubOIDCURL)
	}
	if out, err := os.ReadFile(e["GITHUB_OUTPUT"]); err != nil || string(out) != "digest="+k.Digest+"\nref="+ref+"\n" {
		t.Errorf("GITHUB_OUTPUT = %q, %v", out, err)
	}
	verify := append([]string{"verify", "--certificate-github-workflow-repository", stack.DefaultRepository,
		"--certificate-identity-regexp", "^https://github.com/" + stack.DefaultRepository + "/", "--certificate-oidc-issuer", s.GitHubOIDCURL}, trustFlags(s)[:2]...)
	if stdout, stderr, code := runCLI(t, append(verify, ref)...); code != 0 {
		t.Errorf("kitsmith verify: exit %d\n%s%s", code, stdout, stderr)
	}
	verify[2] = "someone/else"
	if _, _, code := runCLI(t, append(verify, ref)...); code != 1 {
		t.Errorf("kitsmith verify for another repository: exit %d; want 1", code)
	}
}

// TestPublishIntegrationBuildFailure publishes three kits at once through
// the real BuildKit daemon: one publishes, one fails to build, one builds
// an image the artifact check refuses (/home/agent owned by root). The
// failing kits get no tag and exit 1 names them with their stage; the
// other is published.
func TestPublishIntegrationBuildAndCheckFailures(t *testing.T) {
	host, reg := buildServices(t)
	prefix := fmt.Sprintf("%s/kitsmith-publish-build-%d", reg, time.Now().UnixNano())
	stdout, stderr, code := runPublish(t, env{"BUILDKIT_HOST": host}, "--unsigned", "--tag-template", prefix+"/{stem}:{version}",
		"../../kits/outside", "../../pkg/publish/testdata/build-error", "../../pkg/publish/testdata/check-error")
	for _, want := range []string{
		"FAILED ../../pkg/publish/testdata/build-error/build-error.yaml at build: no tag written", `"/missing-file": not found`,
		"FAILED ../../pkg/publish/testdata/check-error/check-error.yaml at check: no tag written", "overlay-home-ownership",
		"published " + prefix + "/reshapr-outside:0.3.0 UNSIGNED",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout does not say %q", want)
		}
	}
	if code != 1 || !strings.Contains(stderr, "2 of 3 kits not published") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, stem := range []string{"build-error", "check-error"} {
		if _, err := artifact.Head(context.Background(), prefix+"/"+stem+":1.0.0"); !errors.Is(err, artifact.ErrNotFound) {
			t.Errorf("tag of %s: %v; want none", stem, err)
		}
	}
	if _, err := artifact.Head(context.Background(), prefix+"/reshapr-outside:0.3.0"); err != nil {
		t.Errorf("tag of the kit that built: %v", err)
	}
}

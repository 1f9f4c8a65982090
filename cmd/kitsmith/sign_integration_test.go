package main

import (
	"bytes"
	"context"
	"crypto/elliptic"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// liveRegistries returns the registries the integration tests push to: an
// in-process one with the OCI referrers API, and the distribution v3
// registry at KITSMITH_TEST_REGISTRY, which has none.
func liveRegistries(t *testing.T) map[string]string {
	t.Helper()
	regs := map[string]string{"referrers-api": at.Registry(t, true)}
	if r := os.Getenv("KITSMITH_TEST_REGISTRY"); r != "" {
		regs["distribution"] = r
	} else if os.Getenv("KITSMITH_INTEGRATION") == "1" {
		t.Fatal("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_REGISTRY is unset: eval \"$(scripts/services.sh env)\"")
	}
	return regs
}

// cosignCLI runs the stack's cosign with a throw-away HOME and a time
// limit, and returns its combined output.
func cosignCLI(t *testing.T, s stack.Stack, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Cosign, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "SIGSTORE_NO_CACHE=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// pushKit pushes a fresh kit, with a digest of its own, to reg and
// returns its digest-pinned ref.
func pushKit(t *testing.T, reg, name string) string {
	t.Helper()
	id := name + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	k := at.Mixin(t).SetAnnotation("org.opencontainers.image.description", id)
	return at.Push(t, reg+"/kitsmith-sign-it/"+id+":1.0.0", k.Index(t))
}

// TestSignVerifyIntegration signs kits keyless against the local Sigstore
// stack, in both registry kinds, verifies them with kitsmith and cosign,
// and verifies with kitsmith what cosign signed.
func TestSignVerifyIntegration(t *testing.T) {
	s, ok := stack.Env(t)
	if !ok {
		t.Skip("no Sigstore stack; run scripts/test.sh")
	}
	var sct []string
	if s.CTLogURL == "" {
		sct = []string{"--insecure-ignore-sct"}
	}
	identity := []string{"--certificate-identity", stack.DefaultEmail, "--certificate-oidc-issuer", s.OIDCURL}
	verifyArgs := func(extra ...string) []string {
		return append(append([]string{"verify", "--trusted-root", s.TrustedRoot}, sct...), extra...)
	}
	for name, reg := range liveRegistries(t) {
		t.Run(name, func(t *testing.T) {
			kit, other, unsigned := pushKit(t, reg, "tool"), pushKit(t, reg, "other"), pushKit(t, reg, "unsigned")
			signWith := func(t *testing.T, ref string, extra ...string) {
				t.Helper()
				args := append([]string{"sign", "--trusted-root", s.TrustedRoot, "--signing-config", s.SigningConfig}, extra...)
				stdout, stderr, code := runCLIEnv(t, env{"SIGSTORE_ID_TOKEN": s.Token(t, stack.Email, nil)}, append(args, ref)...)
				if code != exitOK {
					t.Fatalf("kitsmith sign: exit %d\n%s%s", code, stdout, stderr)
				}
			}
			otherBundle := filepath.Join(t.TempDir(), "other.sigstore.json")
			signWith(t, kit)
			signWith(t, other, "--bundle", otherBundle)

			t.Run("kitsmith verify accepts the right identity", func(t *testing.T) {
				stdout, stderr, code := runCLI(t, verifyArgs(append(identity, kit)...)...)
				if code != exitOK || !strings.Contains(stdout, "log index") {
					t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
				}
			})
			rejections := []struct {
				name, want string
				args       []string
			}{
				{"wrong identity", `expected SAN value "eve@example.com", got "dev@example.com"`,
					verifyArgs("--certificate-identity", "eve@example.com", "--certificate-oidc-issuer", s.OIDCURL, kit)},
				{"wrong issuer", `expected issuer value "https://token.actions.githubusercontent.com"`,
					verifyArgs("--certificate-identity", stack.DefaultEmail, "--certificate-oidc-issuer", "https://token.actions.githubusercontent.com", kit)},
				{"identity regexp not matching", "to match regex",
					verifyArgs("--certificate-identity-regexp", `@example\.net$`, "--certificate-oidc-issuer", s.OIDCURL, kit)},
				{"untrusted root", "failed to verify",
					append([]string{"verify", "--trusted-root", writeOtherRoot(t)}, append(append(sct, identity...), kit)...)},
				{"no signature", "no Sigstore signature found", verifyArgs(append(identity, unsigned)...)},
			}
			for _, r := range rejections {
				t.Run("kitsmith verify rejects: "+r.name, func(t *testing.T) {
					stdout, stderr, code := runCLI(t, r.args...)
					if code != exitFindings || !strings.Contains(stdout, r.want) {
						t.Errorf("exit %d, want 1 with %q\n%s%s", code, r.want, stdout, stderr)
					}
				})
			}
			t.Run("kitsmith verify rejects: a signature copied from another kit", func(t *testing.T) {
				copyBundle(t, otherBundle, unsigned)
				stdout, stderr, code := runCLI(t, verifyArgs(append(identity, unsigned)...)...)
				if code != exitFindings || !strings.Contains(stdout, "not over this kit") {
					t.Errorf("exit %d\n%s%s", code, stdout, stderr)
				}
			})

			t.Run("kitsmith verify accepts beside junk referrers", func(t *testing.T) {
				ref := pushKit(t, reg, "junk-live")
				signWith(t, ref)
				subject, err := artifact.Head(context.Background(), ref)
				if err != nil {
					t.Fatal(err)
				}
				plant(t, ref, at.Referrer(t, subject, at.BundleType, bytes.Repeat([]byte("x"), 50<<20)), true)
				plant(t, ref, at.Referrer(t, subject, at.BundleType, []byte(`{"mediaType":"junk"}`)), true)
				stdout, stderr, code := runCLI(t, verifyArgs(append(identity, ref)...)...)
				if code != exitOK || !strings.Contains(stdout, "verified, 1 of 3") || !strings.Contains(stdout, "referrers: 3 listed, 3 examined") {
					t.Errorf("exit %d\n%s%s", code, stdout, stderr)
				}
				args := append(append([]string{"verify", "--trusted-root", s.TrustedRoot}, identity...), sct...)
				if out, err := cosignCLI(t, s, append(args, ref)...); err != nil {
					t.Logf("cosign verify beside the junk: %v\n%s", err, out)
				}
			})
			t.Run("cosign verify accepts a kitsmith signature", func(t *testing.T) {
				args := append(append([]string{"verify", "--trusted-root", s.TrustedRoot}, identity...), sct...)
				out, err := cosignCLI(t, s, append(args, kit)...)
				if err != nil {
					t.Fatalf("cosign verify: %v\n%s", err, out)
				}
				wrong := append([]string{"verify", "--trusted-root", s.TrustedRoot, "--certificate-identity", "eve@example.com", "--certificate-oidc-issuer", s.OIDCURL}, sct...)
				if out, err := cosignCLI(t, s, append(wrong, kit)...); err == nil {
					t.Errorf("cosign verify accepted the wrong identity:\n%s", out)
				}
			})
			t.Run("kitsmith verify accepts a cosign signature", func(t *testing.T) {
				ref := pushKit(t, reg, "cosigned")
				out, err := cosignCLI(t, s, "sign", "--yes", "--signing-config", s.SigningConfig, "--trusted-root", s.TrustedRoot,
					"--identity-token", s.Token(t, stack.Email, nil), ref)
				if err != nil {
					t.Fatalf("cosign sign: %v\n%s", err, out)
				}
				stdout, stderr, code := runCLI(t, verifyArgs(append(identity, ref)...)...)
				if code != exitOK {
					t.Fatalf("kitsmith verify: exit %d\n%s%s", code, stdout, stderr)
				}
				stdout, _, code = runCLI(t, verifyArgs("--certificate-identity", "eve@example.com", "--certificate-oidc-issuer", s.OIDCURL, ref)...)
				if code != exitFindings {
					t.Errorf("kitsmith verify accepted the wrong identity on cosign's signature: exit %d\n%s", code, stdout)
				}
			})
		})
	}
}

// TestSignGitHubActionsIntegration signs with the ambient GitHub Actions
// token and verifies the workflow claims, as a release job would.
func TestSignGitHubActionsIntegration(t *testing.T) {
	s, ok := stack.Env(t)
	if !ok {
		t.Skip("no Sigstore stack; run scripts/test.sh")
	}
	ref := pushKit(t, at.Registry(t, true), "gha")
	e := env{"ACTIONS_ID_TOKEN_REQUEST_URL": s.ActionsTokenURL, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": s.ActionsToken}
	stdout, stderr, code := runCLIEnv(t, e, "sign", "--trusted-root", s.TrustedRoot, "--signing-config", s.SigningConfig, "--recursive", ref)
	if code != exitOK {
		t.Fatalf("kitsmith sign: exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, s.ActionsToken) {
		t.Error("sign printed the Actions request token")
	}
	var sct []string
	if s.CTLogURL == "" {
		sct = []string{"--insecure-ignore-sct"}
	}
	base := append([]string{"verify", "--trusted-root", s.TrustedRoot,
		"--certificate-identity-regexp", "^https://github.com/" + stack.DefaultRepository + "/",
		"--certificate-oidc-issuer", s.GitHubOIDCURL,
		"--certificate-github-workflow-repository", stack.DefaultRepository}, sct...)
	if stdout, stderr, code := runCLI(t, append(base, "--certificate-github-workflow-ref", stack.DefaultRef, ref)...); code != exitOK {
		t.Errorf("verify with the workflow claims: exit %d\n%s%s", code, stdout, stderr)
	}
	if stdout, _, code := runCLI(t, append(base, "--certificate-github-workflow-ref", "refs/tags/v9", ref)...); code != exitFindings || !strings.Contains(stdout, "GithubWorkflowRef") {
		t.Errorf("verify with another ref: exit %d\n%s", code, stdout)
	}
}

// TestAttestSLSAIntegration attests SLSA v1 provenance about a kit with
// pkg/sign, as publish does, and reads it back with cosign
// verify-attestation --type slsaprovenance1 and with kitsmith verify
// --predicate-type.
func TestAttestSLSAIntegration(t *testing.T) {
	s, ok := stack.Env(t)
	if !ok {
		t.Skip("no Sigstore stack; run scripts/test.sh")
	}
	ctx := context.Background()
	tr, svc := signtest.LoadInstance(t, s.TrustedRoot, s.SigningConfig)
	signer, err := sign.NewSigner(nil, sign.NewFulcio(svc.Fulcio, sign.StaticToken(s.Token(t, stack.Email, nil)), nil),
		sign.WithServices(svc), sign.WithSelfVerification(tr))
	if err != nil {
		t.Fatal(err)
	}
	ref := pushKit(t, at.Registry(t, true), "attested")
	d, err := artifact.Head(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	provenance := []byte(`{"buildDefinition":{"buildType":"https://example.org/kitsmith/build/v1","externalParameters":{"kit":"tool"}},` +
		`"runDetails":{"builder":{"id":"https://example.org/kitsmith"}}}`)
	b, err := signer.Attest(ctx, d, "https://slsa.dev/provenance/v1", provenance)
	if err != nil {
		t.Fatal(err)
	}
	st, err := artifact.NewTarget(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sign.Attach(ctx, st, d, b); err != nil {
		t.Fatal(err)
	}
	var sct []string
	if s.CTLogURL == "" {
		sct = []string{"--insecure-ignore-sct"}
	}
	identity := []string{"--certificate-identity", stack.DefaultEmail, "--certificate-oidc-issuer", s.OIDCURL}
	args := append(append([]string{"verify-attestation", "--trusted-root", s.TrustedRoot, "--type", "slsaprovenance1"}, identity...), sct...)
	out, err := cosignCLI(t, s, append(args, ref)...)
	if err != nil {
		t.Fatalf("cosign verify-attestation: %v\n%s", err, out)
	}
	other := append(append([]string{"verify-attestation", "--trusted-root", s.TrustedRoot, "--type", "cyclonedx"}, identity...), sct...)
	if out, err := cosignCLI(t, s, append(other, ref)...); err == nil {
		t.Errorf("cosign verify-attestation found a CycloneDX attestation:\n%s", out)
	}
	kv := append(append([]string{"verify", "--trusted-root", s.TrustedRoot}, sct...), identity...)
	if stdout, stderr, code := runCLI(t, append(kv, "--predicate-type", "https://slsa.dev/provenance/v1", ref)...); code != exitOK {
		t.Errorf("kitsmith verify --predicate-type: exit %d\n%s%s", code, stdout, stderr)
	}
	if stdout, _, code := runCLI(t, append(kv, "--predicate-type", sign.CosignSignPredicateType, ref)...); code != exitFindings {
		t.Errorf("kitsmith verify accepted provenance as an image signature: exit %d\n%s", code, stdout)
	}
}

// TestSignKeyIntegration signs with a cosign key pair, a timestamp and a
// Rekor v2 entry, and checks the signatures both ways with cosign.
func TestSignKeyIntegration(t *testing.T) {
	s, ok := stack.Env(t)
	if !ok {
		t.Skip("no Sigstore stack; run scripts/test.sh")
	}
	dir := t.TempDir()
	priv, pub, err := cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), cryptoutils.StaticPasswordFunc([]byte("s3cret")))
	if err != nil {
		t.Fatal(err)
	}
	keyFile, pubFile := filepath.Join(dir, "cosign.key"), filepath.Join(dir, "cosign.pub")
	if err := os.WriteFile(keyFile, priv, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pubFile, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	reg := at.Registry(t, true)

	t.Run("kitsmith signs, cosign and kitsmith verify", func(t *testing.T) {
		ref := pushKit(t, reg, "keyed")
		e := env{"COSIGN_PASSWORD": "s3cret"}
		if stdout, stderr, code := runCLIEnv(t, e, "sign", "--key", keyFile, "--tsa-url", s.TSAURL, "--rekor-url", s.RekorURL, ref); code != exitOK {
			t.Fatalf("kitsmith sign --key: exit %d\n%s%s", code, stdout, stderr)
		}
		if out, err := cosignCLI(t, s, "verify", "--key", pubFile, "--trusted-root", s.TrustedRoot, ref); err != nil {
			t.Errorf("cosign verify --key: %v\n%s", err, out)
		}
		if stdout, stderr, code := runCLI(t, "verify", "--key", pubFile, "--trusted-root", s.TrustedRoot, ref); code != exitOK || !strings.Contains(stdout, "log index") {
			t.Errorf("kitsmith verify --key: exit %d\n%s%s", code, stdout, stderr)
		}
	})
	t.Run("cosign signs, kitsmith verifies", func(t *testing.T) {
		ref := pushKit(t, reg, "cosign-keyed")
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, s.Cosign, "sign", "--yes", "--key", keyFile, "--signing-config", s.SigningConfig, "--trusted-root", s.TrustedRoot, ref)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "SIGSTORE_NO_CACHE=1", "COSIGN_PASSWORD=s3cret")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cosign sign --key: %v\n%s", err, out)
		}
		if stdout, stderr, code := runCLI(t, "verify", "--key", pubFile, "--trusted-root", s.TrustedRoot, ref); code != exitOK {
			t.Errorf("kitsmith verify --key: exit %d\n%s%s", code, stdout, stderr)
		}
	})
}

// copyBundle attaches the bundle in file to the kit at ref, as someone
// copying another kit's signature would.
func copyBundle(t *testing.T, file, ref string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sign.ParseBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := artifact.Head(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	st, err := artifact.NewTarget(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sign.Attach(ctx, st, v1.Descriptor{MediaType: d.MediaType, Size: d.Size, Digest: d.Digest}, b); err != nil {
		t.Fatal(err)
	}
}

// TestCosignAttestIntegration verifies what `cosign attest --type
// slsaprovenance1` writes (an in-toto Statement v0.1 in a DSSE envelope)
// with kitsmith verify --predicate-type, on both registry kinds, as cosign
// verify-attestation accepts it.
func TestCosignAttestIntegration(t *testing.T) {
	s, ok := stack.Env(t)
	if !ok {
		t.Skip("no Sigstore stack; run scripts/test.sh")
	}
	var sct []string
	if s.CTLogURL == "" {
		sct = []string{"--insecure-ignore-sct"}
	}
	identity := []string{"--certificate-identity", stack.DefaultEmail, "--certificate-oidc-issuer", s.OIDCURL}
	pred := filepath.Join(t.TempDir(), "provenance.json")
	if err := os.WriteFile(pred, []byte(`{"buildDefinition":{"buildType":"https://example.org/build/v1","externalParameters":{}},"runDetails":{"builder":{"id":"https://example.org/ci"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, reg := range liveRegistries(t) {
		t.Run(name, func(t *testing.T) {
			ref := pushKit(t, reg, "cosign-attested")
			out, err := cosignCLI(t, s, "attest", "--yes", "--type", "slsaprovenance1", "--predicate", pred,
				"--signing-config", s.SigningConfig, "--trusted-root", s.TrustedRoot, "--identity-token", s.Token(t, stack.Email, nil), ref)
			if err != nil {
				t.Fatalf("cosign attest: %v\n%s", err, out)
			}
			args := append(append([]string{"verify-attestation", "--trusted-root", s.TrustedRoot, "--type", "slsaprovenance1"}, identity...), sct...)
			if out, err := cosignCLI(t, s, append(args, ref)...); err != nil {
				t.Fatalf("cosign verify-attestation refuses its own attestation: %v\n%s", err, out)
			}
			kv := append(append([]string{"verify", "--trusted-root", s.TrustedRoot}, sct...), identity...)
			stdout, stderr, code := runCLI(t, append(kv, "--predicate-type", "https://slsa.dev/provenance/v1", ref)...)
			if code != exitOK || !strings.Contains(stdout, "[attestation https://slsa.dev/provenance/v1]") {
				t.Errorf("kitsmith verify --predicate-type on cosign's attestation: exit %d\n%s%s", code, stdout, stderr)
			}
			stdout, _, code = runCLI(t, append(kv, "--predicate-type", sign.CosignSignPredicateType, ref)...)
			if code != exitFindings || !strings.Contains(stdout, "is not the required") {
				t.Errorf("kitsmith verify accepted cosign's provenance as an image signature: exit %d\n%s", code, stdout)
			}
		})
	}
}

// TestCosignLegacyIntegration verifies signatures cosign v3.1.3 writes in
// its legacy mode (--new-bundle-format=false: the sha256-<hex>.sig tag
// with a simple-signing payload, the certificate and an RFC 3161
// timestamp in annotations; the local stack's Rekor v2 takes no legacy
// entries, so --tlog-upload=false) through the identity policy, labelled
// legacy; --require-bundle refuses them; cosign verify agrees.
func TestCosignLegacyIntegration(t *testing.T) {
	s, ok := stack.Env(t)
	if !ok {
		t.Skip("no Sigstore stack; run scripts/test.sh")
	}
	sct := []string{"--insecure-ignore-tlog"}
	if s.CTLogURL == "" {
		sct = append(sct, "--insecure-ignore-sct")
	}
	identity := []string{"--certificate-identity", stack.DefaultEmail, "--certificate-oidc-issuer", s.OIDCURL}
	for name, reg := range liveRegistries(t) {
		t.Run(name, func(t *testing.T) {
			ref := pushKit(t, reg, "cosign-legacy")
			out, err := cosignCLI(t, s, "sign", "--yes", "--new-bundle-format=false", "--use-signing-config=false",
				"--fulcio-url", s.FulcioURL, "--timestamp-server-url", s.TSAURL, "--tlog-upload=false",
				"--trusted-root", s.TrustedRoot, "--identity-token", s.Token(t, stack.Email, nil), ref)
			if err != nil {
				t.Fatalf("cosign sign (legacy): %v\n%s", err, out)
			}
			if out, err := cosignCLI(t, s, append(append(append([]string{"verify", "--trusted-root", s.TrustedRoot}, identity...), sct...), ref)...); err != nil {
				t.Logf("cosign verify of its own legacy signature: %v\n%s", err, out)
			}
			kv := append(append([]string{"verify", "--trusted-root", s.TrustedRoot}, sct...), identity...)
			stdout, stderr, code := runCLI(t, append(kv, ref)...)
			if code != exitOK || !strings.Contains(stdout, "[legacy cosign signature]") || !strings.Contains(stdout, "accepted") {
				t.Fatalf("kitsmith verify of cosign's legacy signature: exit %d\n%s%s", code, stdout, stderr)
			}
			stdout, _, code = runCLI(t, append(kv, "--require-bundle", ref)...)
			if code != exitFindings || !strings.Contains(stdout, "requires Sigstore bundles") {
				t.Errorf("--require-bundle: exit %d\n%s", code, stdout)
			}
			wrong := append(append([]string{"verify", "--trusted-root", s.TrustedRoot}, sct...), "--certificate-identity", "eve@example.com", "--certificate-oidc-issuer", s.OIDCURL, ref)
			if stdout, _, code := runCLI(t, wrong...); code != exitFindings || !strings.Contains(stdout, `expected SAN value "eve@example.com"`) {
				t.Errorf("the wrong identity: exit %d\n%s", code, stdout)
			}
		})
	}
}

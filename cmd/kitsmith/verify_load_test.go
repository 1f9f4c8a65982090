package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// TestReferrerLoadSetup prepares the figure the README's bounds are
// measured with: a kit in KITSMITH_TEST_REGISTRY (distribution, the
// tag-schema fallback) with one valid signature, 1000 junk referrers
// marked as Sigstore bundles (so that every one is read) and one 50 MB
// bundle. It writes the trusted root and the kit's reference into
// KITSMITH_REFERRER_LOAD_DIR, then verify is measured as a process:
//
//	KITSMITH_REFERRER_LOAD_DIR=/tmp/load KITSMITH_TEST_REGISTRY=127.0.0.1:5012 go test ./cmd/kitsmith -run TestReferrerLoadSetup
//	/usr/bin/time -v kitsmith verify --trusted-root /tmp/load/trusted_root.json --insecure-ignore-sct --insecure-ignore-tlog \
//	    --certificate-identity dev@example.org --certificate-oidc-issuer http://127.0.0.1:18089 "$(cat /tmp/load/ref)"
//
// It is skipped unless KITSMITH_REFERRER_LOAD_DIR is set.
func TestReferrerLoadSetup(t *testing.T) {
	dir, reg := os.Getenv("KITSMITH_REFERRER_LOAD_DIR"), os.Getenv("KITSMITH_TEST_REGISTRY")
	if dir == "" || reg == "" {
		t.Skip("KITSMITH_REFERRER_LOAD_DIR and KITSMITH_TEST_REGISTRY set up the referrer load figure")
	}
	f := newSignFixture(t)
	ref := pushKit(t, reg, "load")
	if _, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(testSigner), ref)...); code != exitOK {
		t.Fatalf("sign: exit %d\n%s", code, stderr)
	}
	ctx := context.Background()
	subject, err := artifact.Head(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	plant(t, ref, at.Referrer(t, subject, at.BundleType, bytes.Repeat([]byte("x"), 50<<20)), true)
	for i := range 1000 {
		plant(t, ref, at.Referrer(t, subject, at.BundleType, []byte(fmt.Sprintf(`{"junk":%d}`, i))), true)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.trustedRoot)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trusted_root.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ref"), []byte(ref), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, f.verifyArgs("--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, ref)...)
	if code != exitOK {
		t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Log(lineWith(stdout, "referrers:"))
}

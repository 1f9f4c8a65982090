package admission

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/sign"
)

func write(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadPolicyFile(t *testing.T) {
	// kitsmith's admission policy: signers matched whole, claims, ceiling
	f, err := ReadPolicyFile(filepath.Join("..", "..", "kits", "policy.yaml"))
	if err != nil || f.Ceiling() == nil {
		t.Fatalf("kits/policy.yaml: %v, %v", f, err)
	}
	var p sign.Policy
	if err := f.Apply(&p); err != nil {
		t.Fatal(err)
	}
	want := sign.Policy{GitHubWorkflowRepository: "kitsmith/kitsmith", GitHubWorkflowTrigger: "push", TrustedSigners: []sign.TrustedSigner{{
		IdentityRegexp: "^(?:" + f.Policy.Signers[0].IdentityRegexp + ")$", Issuer: "https://token.actions.githubusercontent.com"}}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("sign policy (-want +got):\n%s", diff)
	}
	p = sign.Policy{GitHubWorkflowRepository: "other/repo"}
	var ce *ClaimConflictError
	if err := f.Apply(&p); !errors.As(err, &ce) || ce.Claim != "repository" || ce.Given != "other/repo" {
		t.Errorf("a contradicting claim: %v", err)
	}

	// a plain list, in the same grammar
	f, err = ReadPolicyFile(write(t, "signers.yaml", "- {identity: a@example.org, issuer: https://issuer.example.org}\n- {identityRegexp: '^.*@example\\.org$', issuer: https://issuer.example.org}\n"))
	if err != nil || f.Policy != nil || f.Ceiling() != nil || len(f.Signers) != 2 || f.Signers[1].IdentityRegexp != `^(?:^.*@example\.org$)$` {
		t.Errorf("a plain list: %+v, %v", f, err)
	}
	for name, body := range map[string]string{
		"half anchored, plain list": "- {identityRegexp: '^a@example\\.org|evil$', issuer: https://i}\n",
		"half anchored, policy":     "policyVersion: \"1\"\nsigners: [{identityRegexp: '^a@example\\.org|evil$', issuer: https://i}]\n",
		"an invalid ceiling":        "policyVersion: \"1\"\nceiling: {volumes: [data]}\n",
	} {
		if _, err := ReadPolicyFile(write(t, "p.yaml", body)); !errors.Is(err, ErrPolicyFile) {
			t.Errorf("%s: err = %v, want ErrPolicyFile", name, err)
		}
	}
	if _, err := ReadPolicyFile(filepath.Join(t.TempDir(), "none.yaml")); !errors.Is(err, ErrPolicyFile) || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("a missing file: %v", err)
	}
}

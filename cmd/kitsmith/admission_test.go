package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestRepoPolicySigner checks that kits/policy.yaml trusts what the
// repository's release workflow signs with: the keyless certificate of
// .github/workflows/release-kits.yml at a version tag, and nothing else.
func TestRepoPolicySigner(t *testing.T) {
	const workflow = ".github/workflows/release-kits.yml"
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(workflow)))
	if err != nil {
		t.Fatalf("the release workflow: %v", err)
	}
	var wf struct {
		On struct {
			Push struct {
				Tags     []string `yaml:"tags"`
				Branches []string `yaml:"branches"`
			} `yaml:"push"`
		} `yaml:"on"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.On.Push.Tags) != 1 || wf.On.Push.Tags[0] != "v*" || len(wf.On.Push.Branches) != 0 {
		t.Fatalf("%s no longer runs on v* tag pushes only (%+v): update kits/policy.yaml's signer", workflow, wf.On.Push)
	}
	p, err := loadPolicy(filepath.Join("..", "..", "kits", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Signers) != 1 || p.Signers[0].Issuer != "https://token.actions.githubusercontent.com" {
		t.Fatalf("signers = %+v, want the one GitHub Actions signer", p.Signers)
	}
	if w := p.GitHubWorkflow; w == nil || w.Repository != "kitsmith/kitsmith" || w.Trigger != "push" {
		t.Errorf("githubWorkflow = %+v, want repository kitsmith/kitsmith, trigger push", w)
	}
	re := regexp.MustCompile(p.Signers[0].IdentityRegexp)
	san := "https://github.com/kitsmith/kitsmith/" + workflow + "@"
	for _, tc := range []struct {
		identity string
		want     bool
	}{
		{san + "refs/tags/v1.2.3", true},
		{san + "refs/tags/v0.3.0-rc.1", true},
		{san + "refs/heads/main", false},
		{san + "refs/tags/latest", false},
		{"https://github.com/kitsmith/kitsmith/.github/workflows/publish.yml@refs/tags/v1.2.3", false},
		{"https://github.com/fork/kitsmith/" + workflow + "@refs/tags/v1.2.3", false},
		{san + "refs/tags/v1.2.3\n", false},
	} {
		if got := re.MatchString(tc.identity); got != tc.want {
			t.Errorf("%q matches %v, want %v", tc.identity, got, tc.want)
		}
	}
}

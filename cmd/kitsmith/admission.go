package main

// The admission policy of verify --policy (docs/policy.md): trusted
// signers for pkg/sign and a permission ceiling for pkg/review.

import (
	"context"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// applyPolicyFile reads the file of verify --policy into sp. A mapping is
// kitsmith's admission policy (review.LoadPolicy): its signers join
// sp.TrustedSigners, its GitHub workflow claims fill sp's (a claim the
// flags state differently is a usage error), and it is returned for its
// ceiling. Anything else is sign's plain list of trusted signers, and the
// policy returned is nil. Failing to read either is a usage error.
func applyPolicyFile(path string, sp *sign.Policy) (*review.Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, asUsage(fmt.Errorf("reading the policy: %w", err), "")
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		if sp.TrustedSigners, err = sign.ParseTrustedSigners(data); err != nil {
			return nil, asUsage(fmt.Errorf("%s: %w", path, err), "")
		}
		return nil, nil
	}
	p, err := loadPolicy(path)
	if err != nil {
		return nil, err
	}
	for _, s := range p.SignerMatchers() {
		sp.TrustedSigners = append(sp.TrustedSigners, sign.TrustedSigner{
			Identity: s.Identity, IdentityRegexp: s.IdentityRegexp, Issuer: s.Issuer, IssuerRegexp: s.IssuerRegexp})
	}
	if w := p.GitHubWorkflow; w != nil {
		for _, c := range []struct {
			flag  string
			dst   *string
			value string
		}{
			{"repository", &sp.GitHubWorkflowRepository, w.Repository}, {"ref", &sp.GitHubWorkflowRef, w.Ref},
			{"trigger", &sp.GitHubWorkflowTrigger, w.Trigger}, {"name", &sp.GitHubWorkflowName, w.Name},
			{"sha", &sp.GitHubWorkflowSHA, w.SHA},
		} {
			switch {
			case c.value == "":
			case *c.dst == "":
				*c.dst = c.value
			case *c.dst != c.value:
				return nil, usageErrorf("--certificate-github-workflow-%s %q contradicts githubWorkflow.%s %q of %s", c.flag, *c.dst, c.flag, c.value, path)
			}
		}
	}
	return p, nil
}

// loadPolicy reads an admission policy file; failing to is a usage or
// I/O error (exit 2).
func loadPolicy(path string) (*review.Policy, error) {
	p, err := review.LoadPolicy(path)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return p, nil
}

// checkCeiling judges the kit in a against the policy's ceiling; failing
// to (a descriptor or a baseline that cannot be read, an undeclared kit
// arg) is a usage or I/O error (exit 2).
func checkCeiling(ctx context.Context, a *artifact.Artifact, p *review.Policy, opts ...review.CeilingOption) (*review.CeilingResult, error) {
	r, err := review.CheckArtifact(ctx, a, p, opts...)
	if err != nil {
		return nil, usageErrorf("checking the permission ceiling: %v", err)
	}
	return r, nil
}

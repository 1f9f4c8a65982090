package main

// The admission policy of verify --policy (docs/policy.md), read by
// pkg/admission: trusted signers for pkg/sign and a permission ceiling
// for pkg/review.

import (
	"errors"

	"github.com/kitsmith/kitsmith/pkg/admission"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// applyPolicyFile reads the file of verify --policy into sp
// (admission.ReadPolicyFile, File.Apply) and returns the admission
// policy for its ceiling, or nil for a plain list of signers. Failing to
// read it, and a GitHub workflow claim the flags state differently, are
// usage errors.
func applyPolicyFile(path string, sp *sign.Policy) (*review.Policy, error) {
	f, err := admission.ReadPolicyFile(path)
	if err != nil {
		return nil, asUsage(err, "")
	}
	var ce *admission.ClaimConflictError
	if err := f.Apply(sp); errors.As(err, &ce) {
		return nil, usageErrorf("--certificate-github-workflow-%s %q contradicts githubWorkflow.%s %q of %s", ce.Claim, ce.Given, ce.Claim, ce.File, ce.Path)
	} else if err != nil {
		return nil, asUsage(err, "")
	}
	return f.Policy, nil
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

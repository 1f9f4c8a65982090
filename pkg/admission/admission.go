// Package admission is the admission check of `kitsmith verify --policy`
// as a library: a kit is admitted when a trusted signer signed its exact
// digest and what that digest grants stays within the policy's
// permission ceiling. It reads the policy file (ReadPolicyFile: kitsmith's
// admission policy, or a plain list of signers in the one signer grammar
// of pkg/sign/signer), verifies the signatures with pkg/sign and judges
// the verified digest with pkg/review.
package admission

import (
	"context"
	"errors"
	"fmt"
	"os"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// File is a policy file as verify --policy reads it.
type File struct {
	// Path is where it was read from.
	Path string
	// Policy is the admission policy, or nil for a plain list of
	// signers.
	Policy *review.Policy
	// Signers are the file's trusted signers, as the verifier matches
	// them: every regular expression matching whole values only
	// (signer.Signer.WholeMatch).
	Signers []sign.TrustedSigner
}

// ErrPolicyFile is wrapped by every error reading a policy file.
var ErrPolicyFile = errors.New("reading the policy")

// ReadPolicyFile reads a policy file: a YAML mapping is kitsmith's
// admission policy (review.LoadPolicy); anything else is a plain list of
// signers (sign.ParseTrustedSigners). Both state signers in the one
// signer grammar: exactly one of identity and identityRegexp, exactly one
// of issuer and issuerRegexp, regular expressions anchored as a whole.
func ReadPolicyFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPolicyFile, err)
	}
	f := &File{Path: path}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		list, err := sign.ParseTrustedSigners(data)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrPolicyFile, path, err)
		}
		for _, s := range list {
			f.Signers = append(f.Signers, s.WholeMatch())
		}
		return f, nil
	}
	if f.Policy, err = review.LoadPolicy(path); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPolicyFile, err)
	}
	f.Signers = f.Policy.SignerMatchers()
	return f, nil
}

// ClaimConflictError is a GitHub workflow claim the signature policy
// already states differently from the policy file.
type ClaimConflictError struct {
	// Claim is the claim's key in the file: repository, ref, trigger,
	// name or sha.
	Claim       string
	Given, File string
	Path        string
}

// Error names the claim and both values.
func (e *ClaimConflictError) Error() string {
	return fmt.Sprintf("the GitHub workflow %s %q contradicts githubWorkflow.%s %q of %s", e.Claim, e.Given, e.Claim, e.File, e.Path)
}

// Apply adds the file's signers to p's trusted signers and fills in the
// GitHub workflow claims it states; a claim p states differently is a
// *ClaimConflictError.
func (f *File) Apply(p *sign.Policy) error {
	p.TrustedSigners = append(p.TrustedSigners, f.Signers...)
	if f.Policy == nil || f.Policy.GitHubWorkflow == nil {
		return nil
	}
	w := f.Policy.GitHubWorkflow
	for _, c := range []struct {
		claim string
		dst   *string
		value string
	}{
		{"repository", &p.GitHubWorkflowRepository, w.Repository}, {"ref", &p.GitHubWorkflowRef, w.Ref},
		{"trigger", &p.GitHubWorkflowTrigger, w.Trigger}, {"name", &p.GitHubWorkflowName, w.Name},
		{"sha", &p.GitHubWorkflowSHA, w.SHA},
	} {
		switch {
		case c.value == "":
		case *c.dst == "":
			*c.dst = c.value
		case *c.dst != c.value:
			return &ClaimConflictError{Claim: c.claim, Given: *c.dst, File: c.value, Path: f.Path}
		}
	}
	return nil
}

// Ceiling returns the file's admission policy when it states a ceiling,
// else nil.
func (f *File) Ceiling() *review.Policy {
	if f == nil || f.Policy == nil || f.Policy.Ceiling == nil {
		return nil
	}
	return f.Policy
}

// Options say how Verify judges a kit.
type Options struct {
	// Policy is the signature policy (flags plus File.Apply).
	Policy sign.Policy
	// Ceiling is the admission policy whose ceiling the verified digest
	// is judged against, or nil for signatures only.
	Ceiling *review.Policy
	// KitArgs are create-phase arg values and Platform the one platform
	// to judge ("" every platform), for the ceiling (review.CheckArtifact).
	KitArgs  map[string]string
	Platform string
	// Artifact are the options the verified digest and a baseline digest
	// are opened with.
	Artifact []artifact.Option
}

// Result is an admission verdict.
type Result struct {
	// Signatures is the signature verdict; Verified reports whether one
	// satisfies the policy.
	Signatures *sign.Result
	Verified   bool
	// Reason is why none does (sign.ErrNoSignature or a
	// *sign.VerificationError), or nil.
	Reason error
	// Ceiling is the ceiling's verdict on the verified digest; nil
	// without a ceiling or without an accepted signature.
	Ceiling *review.CeilingResult
}

// OK reports whether the kit is admitted: a signature satisfies the
// policy, and the kit stays within the ceiling (if any).
func (r *Result) OK() bool { return r.Verified && (r.Ceiling == nil || r.Ceiling.OK()) }

// ErrChanged reports a reference whose kit changed between the
// signature check and the ceiling's read.
var ErrChanged = errors.New("the kit changed while it was verified")

// Verify admits the kit subject names in st (read by ref): its
// signatures are verified with v against o.Policy, and once one is
// accepted the kit at the verified digest (repo@digest for a registry
// reference, never what a tag names by then) is judged against
// o.Ceiling. A kit without an accepted signature is a Result, not an
// error; an error is a failure to verify or judge at all.
func Verify(ctx context.Context, v *sign.Verifier, st sign.ReferrerStore, subject v1.Descriptor, ref string, o Options) (*Result, error) {
	res, err := v.Verify(ctx, st, subject, o.Policy)
	var ve *sign.VerificationError
	r := &Result{Signatures: res}
	switch {
	case err == nil:
		r.Verified = true
	case errors.Is(err, sign.ErrNoSignature), errors.As(err, &ve):
		r.Reason = err
		return r, nil
	default:
		return nil, err
	}
	if o.Ceiling == nil || o.Ceiling.Ceiling == nil {
		return r, nil
	}
	digest := res.Subject.Digest.String()
	pinned, err := pinnedRef(ref, digest)
	if err != nil {
		return nil, err
	}
	a, err := artifact.Open(ctx, pinned, o.Artifact...)
	if err != nil {
		return nil, err
	}
	c, err := review.CheckArtifact(ctx, a, o.Ceiling, review.WithKitArgs(o.KitArgs), review.WithPlatform(o.Platform),
		review.WithArtifactOptions(o.Artifact...))
	if err != nil {
		return nil, fmt.Errorf("checking the permission ceiling: %w", err)
	}
	if c.Digest != digest {
		return nil, fmt.Errorf("%s: %w: the signature is on %s, the kit read is %s", ref, ErrChanged, digest, c.Digest)
	}
	r.Ceiling = c
	return r, nil
}

// pinnedRef names the kit at digest: repo@digest for a registry
// reference; a layout or archive reference stays (its digest is compared
// once read).
func pinnedRef(ref, digest string) (string, error) {
	r, err := artifact.ParseReference(ref)
	if err != nil {
		return "", err
	}
	pinned, err := r.Pinned(digest)
	if errors.Is(err, artifact.ErrNotRegistry) {
		return ref, nil
	}
	return pinned, err
}

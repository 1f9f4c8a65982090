package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Builder builds and checks one kit, as build.Build does: a
// *build.DescriptorError for a kit whose descriptor cannot be published, a
// *build.CheckError for a built image that fails the conformance checks.
// It sends progress on ev and closes it before returning (ev may be nil).
type Builder interface {
	Build(ctx context.Context, k *spec.Kit, o build.Options, ev chan<- progress.Event) (*build.Result, error)
}

// Registry opens the artifact.Target each kit is published to: its
// registry repository, or an OCI layout for a reference oci:DIR[:TAG].
// The target's Head, Push, Tag and referrer methods are the registry side
// of publishing. NewRegistry returns the one pkg/artifact implements.
type Registry interface {
	// Target opens the target ref names; the reference's tag is what the
	// target's Head reads and Tag writes.
	Target(ctx context.Context, ref string) (artifact.Target, error)
}

// ConditionalTagger is an artifact.Target that can write its tag
// conditionally: only if it still points at prev (nil: only if it does
// not exist), where the registry honours conditional requests; a refused
// write wraps artifact.ErrTagMoved. Run's tag stage uses it when the
// target implements it, as pkg/artifact's registry targets do.
type ConditionalTagger interface {
	TagIf(ctx context.Context, d v1.Descriptor, prev *v1.Hash) error
}

// Signature is a signature or attestation attached to a subject.
type Signature struct {
	// Referrer is the referrer manifest holding the bundle.
	Referrer v1.Descriptor
	// Subject is what was signed.
	Subject v1.Descriptor
	// Identity is the signer: the certificate's subject alternative name
	// for keyless signing, or the key's name (e.g. its fingerprint).
	Identity string
	// Issuer is the OIDC issuer that vouched for Identity; "" for a key.
	Issuer string
	// LogIndex is the transparency log index, or -1 without a log entry.
	LogIndex int64
}

// Signer signs a subject and attaches the bundle to st as a referrer.
// NewSigner adapts *sign.Signer and sign.Attach.
type Signer interface {
	// Sign signs subject (an in-toto statement cosign verify accepts).
	Sign(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor) (*Signature, error)
	// Attest signs an in-toto statement with the given predicate about
	// subject.
	Attest(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor, predicateType string, predicate json.RawMessage) (*Signature, error)
}

// Verifier verifies the signatures st holds for subject against the
// identity of want (Identity, Issuer). NewVerifier adapts *sign.Verifier.
type Verifier interface {
	Verify(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor, want Signature) (*Verification, error)
}

// Verification is what a successful verification established.
type Verification struct {
	// Identity and Issuer are the verified signer.
	Identity, Issuer string
	// Signatures counts the signatures that verified.
	Signatures int
}

// Options configures Run. The zero value is not enough: a Registry,
// either a Signer and a Verifier or Unsigned, and a reference for each kit
// (Tag or TagTemplate) are needed.
type Options struct {
	// Tag is the reference to publish to (registry/repo:tag), for a single
	// kit. Exactly one of Tag and TagTemplate is set.
	Tag string
	// TagTemplate names each kit's reference from its descriptor:
	// {stem} (the descriptor's base name), {name} (the kit directory's
	// base name), {version} and {kind}, e.g.
	// "registry.example.org/kits/{stem}:{version}".
	TagTemplate string
	// FailLevel is the lowest lint severity that stops a kit. Zero means
	// lint.SeverityError.
	FailLevel lint.Severity
	// Lint are extra lint options for every kit; the kit's .kitsmith.yaml
	// (found from its directory upwards, lint.WithKitConfig) always
	// applies, so lint.WithConfig is refused (lint.ErrConfigConflict).
	Lint []lint.Option
	// Build configures the build; Outputs must be empty (Run pushes). A
	// nil SourceDateEpoch means, per kit, what build.SourceDateEpoch
	// resolves without an environment value (as kitsmith build takes it):
	// the committer time of the last commit touching the kit directory,
	// else nil (0, without a created annotation).
	Build build.Options
	// Jobs is how many kits are published at once. Zero means
	// runtime.NumCPU().
	Jobs int
	// Force moves an existing tag to the new digest; without it a tag that
	// points elsewhere is refused.
	Force bool
	// Unsigned publishes without signing, attesting or verifying. The
	// result says so (KitResult.Unsigned).
	Unsigned bool
	// Recursive also signs every platform manifest of the index.
	Recursive bool
	// Builder builds and checks kits; nil means build.Build on Run's
	// solver.
	Builder Builder
	// Registry is where kits go; nil is an error.
	Registry Registry
	// Signer and Verifier sign and verify; both nil only with Unsigned.
	Signer   Signer
	Verifier Verifier
	// Policy is an admission policy whose permission ceiling every kit
	// must stay within before anything is pushed (the policy stage: the
	// built kit's published descriptor, in the effective form with the
	// defaults; a baseline digest is read from the kit's repository). Its
	// signers are not consulted: the read-back verification checks the
	// identity the kit was signed with. Nil means no policy stage; a
	// policy without a ceiling is an error.
	Policy *review.Policy
	// Provenance describes the build for the SLSA provenance predicate.
	Provenance ProvenanceOptions
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ProvenanceOptions is what the provenance attestation records beyond what
// Run learns itself (the kit source from git, the platforms, the digests).
type ProvenanceOptions struct {
	// BuilderID identifies the build platform (SLSA runDetails.builder.id),
	// e.g. the GitHub workflow URI. Empty means kitsmith's own URI at its
	// version.
	BuilderID string
	// InvocationID identifies this run (e.g. the CI run URL); may be "".
	InvocationID string
	// Version is kitsmith's version; empty means internal/version's.
	Version string
}

// options is Options resolved.
type options struct {
	Options
	jobs int
}

// ErrNoTag reports options that name no reference for a kit.
var ErrNoTag = errors.New("no reference to publish to: give a tag or a tag template")

func makeOptions(o Options, kits int) (*options, error) {
	r := &options{Options: o, jobs: o.Jobs}
	switch {
	case o.Tag != "" && o.TagTemplate != "":
		return nil, errors.New("a tag and a tag template are exclusive: use the template for several kits")
	case o.Tag == "" && o.TagTemplate == "":
		return nil, ErrNoTag
	case o.Tag != "" && kits > 1:
		return nil, fmt.Errorf("one tag for %d kits: use a tag template such as REGISTRY/{stem}:{version}", kits)
	}
	if o.TagTemplate != "" {
		if err := checkTemplate(o.TagTemplate); err != nil {
			return nil, err
		}
	}
	if o.Tag != "" {
		if err := CheckReference(o.Tag); err != nil {
			return nil, err
		}
	}
	if o.Policy != nil && o.Policy.Ceiling == nil {
		return nil, errors.New("the admission policy states no ceiling for publish to apply")
	}
	if len(o.Build.Outputs) > 0 {
		return nil, errors.New("build outputs are set: publish pushes the kit itself")
	}
	if o.Builder == nil || o.Registry == nil {
		return nil, errors.New("publish needs a registry to publish to")
	}
	switch {
	case o.Unsigned && (o.Signer != nil || o.Recursive):
		return nil, errors.New("unsigned contradicts a signer or recursive signing")
	case !o.Unsigned && (o.Signer == nil || o.Verifier == nil):
		return nil, errors.New("publish needs a signer and a verifier, or unsigned publishing said out loud")
	}
	if r.FailLevel == 0 {
		r.FailLevel = lint.SeverityError
	}
	if r.jobs <= 0 {
		r.jobs = runtime.NumCPU()
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	return r, nil
}

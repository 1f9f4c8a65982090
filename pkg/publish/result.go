package publish

import (
	"errors"
	"fmt"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Stage is one step of the pipeline.
type Stage string

// The stages, in the order Run goes through them.
const (
	StageValidate Stage = "validate"
	StageLint     Stage = "lint"
	StageBuild    Stage = "build"
	StageCheck    Stage = "check"
	StagePolicy   Stage = "policy"
	StagePush     Stage = "push"
	StageSign     Stage = "sign"
	StageAttest   Stage = "attest"
	StageVerify   Stage = "verify"
	StageTag      Stage = "tag"
)

// Stages returns the stages in pipeline order.
func Stages() []Stage {
	return []Stage{StageValidate, StageLint, StageBuild, StageCheck, StagePolicy, StagePush, StageSign, StageAttest, StageVerify, StageTag}
}

// StageError reports a kit whose publishing stopped at Stage. No tag was
// written for it.
type StageError struct {
	// Kit is the kit's display path.
	Kit string
	// Stage is the stage that failed.
	Stage Stage
	// Err is why.
	Err error
}

// Error names the kit, the stage and the reason.
func (e *StageError) Error() string {
	return fmt.Sprintf("publishing %s: %s failed: %v", e.Kit, e.Stage, e.Err)
}

// Unwrap returns the reason.
func (e *StageError) Unwrap() error { return e.Err }

// ErrTagExists reports a tag that points at another digest, which publish
// does not move without Force.
var ErrTagExists = errors.New("the tag already points at another digest")

// ErrTagRaced reports a tag another publish wrote at the same time: read
// back after the write, it points at another digest, or the registry
// refused the conditional write because it had moved.
var ErrTagRaced = errors.New("the tag was written by another publish at the same time")

// ErrLintFindings reports lint findings at or above the fail level.
var ErrLintFindings = errors.New("lint findings at or above the fail level")

// ErrInvalidKit reports a kit that fails validation.
var ErrInvalidKit = errors.New("the kit is invalid")

// Result is the outcome of Run: one KitResult per kit, in the order given.
type Result struct {
	Kits []*KitResult
}

// Failed returns the kits that did not publish.
func (r *Result) Failed() []*KitResult {
	var out []*KitResult
	for _, k := range r.Kits {
		if k.Err != nil {
			out = append(out, k)
		}
	}
	return out
}

// KitResult is what happened to one kit.
type KitResult struct {
	// Kit is the kit's display path; Stem its staged name.
	Kit, Stem string
	// Reference is the tag it was (or was to be) published to.
	Reference string
	// Err is a *StageError when the kit did not publish, else nil.
	Err error
	// Validation is the kit's validation report, with every error's
	// position (nil before the validate stage ran). Err unwraps to its
	// Errors when the kit is invalid.
	Validation *spec.Report
	// Lint is the kit's lint result (nil before the lint stage ran).
	Lint *lint.Result
	// Ceiling is the admission policy's verdict on the built kit (nil
	// without Options.Policy, or before the policy stage ran).
	Ceiling *review.CeilingResult
	// Index is the kit image's index; Manifests its platform manifests.
	Index     v1.Descriptor
	Manifests []build.Manifest
	// Pushed lists what was written to the registry by digest, index and
	// referrers included, in the order written. On failure these stay in
	// the registry, unreachable through any tag.
	Pushed []v1.Descriptor
	// Signature is the index's signature; Manifests' signatures follow in
	// ManifestSignatures with Recursive. Nil when unsigned or failed.
	Signature          *Signature
	ManifestSignatures []*Signature
	// Provenance is the SLSA provenance attestation.
	Provenance *Signature
	// Verified is what the read-back verification established.
	Verified *Verification
	// Tagged reports that the tag now points at Index; Unchanged that it
	// already did, so nothing was pushed, signed or tagged; Moved that
	// it pointed elsewhere before (Force).
	Tagged, Unchanged, Moved bool
	// Previous is what the tag pointed at before, if anything.
	Previous *v1.Descriptor
	// Unsigned reports a kit published without a signature.
	Unsigned bool
	// Timings are the stages run, in order, with how long each took.
	Timings []Timing
}

// Timing is how long one stage took.
type Timing struct {
	Stage    Stage
	Duration time.Duration
}

// FailedStage returns the stage the kit stopped at, or "".
func (k *KitResult) FailedStage() Stage {
	var se *StageError
	if errors.As(k.Err, &se) {
		return se.Stage
	}
	return ""
}

// Digest returns the index digest (sha256:…), or "" before the build.
func (k *KitResult) Digest() string {
	if k.Index.Digest.Hex == "" {
		return ""
	}
	return k.Index.Digest.String()
}

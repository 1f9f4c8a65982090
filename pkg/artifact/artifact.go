// Package artifact reads published kit images and judges them against the
// v3 specification's artifact rules, as the specification's conformance
// kit (kit-tck validate) does.
//
// A kit image is read from a registry reference, an OCI layout directory
// (oci:DIR[:tag]) or an OCI archive (oci-archive:FILE), or wrapped from an
// in-memory go-containerregistry index or image (as a build does before
// exporting anything).
package artifact

import (
	"context"
	"errors"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// errNotImplemented marks the API skeleton; replaced by the implementation.
var errNotImplemented = errors.New("artifact: not implemented yet")

// Artifact is a kit image: an image index or a single image manifest.
type Artifact struct {
	index v1.ImageIndex
	image v1.Image
	ref   string
}

// Option configures Open.
type Option func(*options)

type options struct{}

// Open reads the kit image at ref: a registry reference
// (registry/repo:tag or @sha256:…), "oci:DIR[:tag]" or
// "oci-archive:FILE".
func Open(ctx context.Context, ref string, opts ...Option) (*Artifact, error) {
	return nil, errNotImplemented
}

// FromIndex wraps an in-memory image index.
func FromIndex(idx v1.ImageIndex) *Artifact { return &Artifact{index: idx} }

// FromImage wraps an in-memory single-platform image.
func FromImage(img v1.Image) *Artifact { return &Artifact{image: img} }

// Severity of a check finding.
type Severity string

// Finding severities, as kit-tck reports them.
const (
	SeverityFail Severity = "fail"
	SeverityWarn Severity = "warn"
	SeveritySkip Severity = "skip"
)

// Finding is one check result that is not a pass.
type Finding struct {
	// Check is the check id, e.g. "overlay-home-ownership".
	Check string `json:"check"`
	// Severity is fail, warn or skip.
	Severity Severity `json:"severity"`
	// Platform is the platform manifest judged ("linux/amd64"), or "" for
	// the index.
	Platform string `json:"platform,omitempty"`
	// Message says what is wrong, how it happened and how to fix it.
	Message string `json:"message"`
	// Spec is the specification reference, e.g. "SPEC-v3 §10/overlay-home-ownership".
	Spec string `json:"spec,omitempty"`
}

// Report is the outcome of Check.
type Report struct {
	Findings []Finding `json:"findings"`
}

// Failed reports whether any finding is a failure.
func (r *Report) Failed() bool {
	for _, f := range r.Findings {
		if f.Severity == SeverityFail {
			return true
		}
	}
	return false
}

// CheckOption configures Check.
type CheckOption func(*checkOptions)

type checkOptions struct{}

// Check judges the artifact: every platform manifest, and the index.
func (a *Artifact) Check(ctx context.Context, opts ...CheckOption) (*Report, error) {
	return nil, errNotImplemented
}

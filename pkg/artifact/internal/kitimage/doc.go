// Package kitimage is the kit image as pkg/artifact reads it and its
// conformance checks judge it: an artifact's manifests read once
// (Structure, Manifest), the filesystem its layers compose to (FS, Node),
// read within one memory Budget, and the staged sources under StagedRoot.
// It is internal to pkg/artifact so that both artifact (Open, Inspect)
// and its check package share one reading of an image without making
// that reading part of the public API.
package kitimage

import (
	"errors"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Sentinels pkg/artifact exports under the same names.
var (
	// ErrDigestMismatch reports content that does not match its digest
	// or size.
	ErrDigestMismatch = errors.New("content does not match its digest")
	// ErrMalformed reports a manifest or index that does not parse.
	ErrMalformed = errors.New("malformed")
)

// Read bounds of manifests and configs (pkg/artifact applies the same
// ones to what it reads itself).
const (
	MaxManifestBytes = 8 << 20
	MaxConfigBytes   = 8 << 20
)

// Package databases read for derived provides (SPEC-v3 §7.6), as absolute
// paths in a workload's root filesystem.
const (
	DpkgStatusPath   = "/var/lib/dpkg/status"
	ApkInstalledPath = "/lib/apk/db/installed"
)

// The attestation marker (BuildKit's provenance and SBOM manifests), as
// pkg/artifact exports it.
const (
	AnnotationReferenceType  = "vnd.docker.reference.type"
	ReferenceTypeAttestation = "attestation-manifest"
)

// ErrTooLarge is spec.ErrTooLarge, the one sentinel of every bounded read.
var errTooLarge = spec.ErrTooLarge

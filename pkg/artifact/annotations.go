package artifact

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Kit annotation keys (SPEC-v3 §7.2). Each is set on every platform manifest
// and, when there is one, promoted to the image index.
const (
	// AnnotationDescriptor holds the compact JSON of the decoded, expanded
	// published descriptor.
	AnnotationDescriptor = "vnd.docker.sandbox.kit.descriptor"
	// AnnotationSchemaVersion holds the descriptor's schemaVersion ("3").
	AnnotationSchemaVersion = "vnd.docker.sandbox.kit.schema-version"
	// AnnotationCapabilities holds the distinct capability types, group
	// members included, sorted and joined with ","; absent when there are
	// none.
	AnnotationCapabilities = "vnd.docker.sandbox.kit.capabilities"
	// AnnotationBuiltBy holds the compact JSON of a BuiltBy stamp. It may
	// be absent.
	AnnotationBuiltBy = "vnd.docker.sandbox.kit.built-by"
)

// OCI annotation keys derived from the descriptor (SPEC-v3 §7.3), and the
// ones a kit never carries.
const (
	AnnotationTitle       = "org.opencontainers.image.title"
	AnnotationDescription = "org.opencontainers.image.description"
	AnnotationAuthors     = "org.opencontainers.image.authors"
	AnnotationSource      = "org.opencontainers.image.source"
	AnnotationLicenses    = "org.opencontainers.image.licenses"
	AnnotationVersion     = "org.opencontainers.image.version"
	// AnnotationCreated is set only from SOURCE_DATE_EPOCH, never the wall
	// clock, and must be RFC 3339.
	AnnotationCreated = "org.opencontainers.image.created"
	// AnnotationRevision, AnnotationBaseName and AnnotationBaseDigest are
	// never set on a kit: provenance records them, not the descriptor.
	AnnotationRevision   = "org.opencontainers.image.revision"
	AnnotationBaseName   = "org.opencontainers.image.base.name"
	AnnotationBaseDigest = "org.opencontainers.image.base.digest"
	// AnnotationRefName is the tag of a manifest in an OCI layout's
	// index.json; Open selects oci:DIR:tag by it.
	AnnotationRefName = "org.opencontainers.image.ref.name"
)

// Attestation manifests (BuildKit provenance, SBOM) hang in the index beside
// the platform manifests; their descriptors carry these annotations and the
// platform unknown/unknown. They are never kit manifests.
const (
	AnnotationReferenceType   = "vnd.docker.reference.type"
	AnnotationReferenceDigest = "vnd.docker.reference.digest"
	ReferenceTypeAttestation  = "attestation-manifest"
)

// derivedOCIKeys are the org.opencontainers.image.* keys a descriptor
// determines, in the order SPEC-v3 §7.3 lists them.
var derivedOCIKeys = []string{
	AnnotationTitle, AnnotationDescription, AnnotationAuthors,
	AnnotationSource, AnnotationLicenses, AnnotationVersion,
}

// forbiddenOCIKeys are never emitted on a kit.
var forbiddenOCIKeys = []string{AnnotationRevision, AnnotationBaseName, AnnotationBaseDigest}

// promotedKeys are the kit keys compared between an index and its
// manifests (kit-tck index-annotations).
var promotedKeys = []string{
	AnnotationDescriptor, AnnotationSchemaVersion, AnnotationCapabilities, AnnotationBuiltBy,
}

// BuiltBy identifies the tool that built a kit image, as the built-by
// annotation records it.
type BuiltBy struct {
	// Name is the builder's name, e.g. "kitsmith". Required.
	Name string `json:"name"`
	// Version is the builder's version, or "dev" for an unreleased build.
	// Required.
	Version string `json:"version"`
	// Revision is the builder's full source commit; omitted when empty.
	Revision string `json:"revision,omitempty"`
}

// ErrMalformedBuiltBy reports a built-by annotation that does not decode or
// lacks a name or version.
var ErrMalformedBuiltBy = errors.New("malformed built-by annotation")

// ParseBuiltBy decodes the built-by annotation value. It fails with an error
// wrapping ErrMalformedBuiltBy when the value is not JSON or lacks a name
// or version.
func ParseBuiltBy(value string) (*BuiltBy, error) {
	var b BuiltBy
	if err := json.Unmarshal([]byte(value), &b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedBuiltBy, err)
	}
	switch {
	case b.Name == "":
		return &b, fmt.Errorf("%w: it names no builder", ErrMalformedBuiltBy)
	case b.Version == "":
		return &b, fmt.Errorf("%w: it names no version (an unreleased build says \"dev\")", ErrMalformedBuiltBy)
	}
	return &b, nil
}

// Annotations returns exactly the manifest annotations SPEC-v3 §7.2–7.3
// define for the published descriptor d: the descriptor as compact JSON,
// the schema version, the capability types (omitted when d declares none),
// built-by (omitted when builtBy is nil), the OCI keys derived from d's
// fields (each omitted when its source is empty) and
// org.opencontainers.image.created, only when created is not "" (it must
// then be an RFC 3339 timestamp, such as time.Unix(epoch,
// 0).UTC().Format(time.RFC3339) for SOURCE_DATE_EPOCH). The same map is
// promoted to the image index whenever one is exported. d must be the
// published descriptor (build-phase args expanded, contentFile rewritten);
// Annotations does not validate it.
func Annotations(d *spec.Descriptor, builtBy *BuiltBy, created string) (map[string]string, error) {
	if d == nil {
		return nil, errors.New("computing kit annotations: no descriptor")
	}
	desc, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("computing kit annotations: encoding the descriptor: %w", err)
	}
	out := map[string]string{
		AnnotationDescriptor:    string(desc),
		AnnotationSchemaVersion: d.SchemaVersion,
	}
	if caps := strings.Join(d.CapabilityTypes(), ","); caps != "" {
		out[AnnotationCapabilities] = caps
	}
	if builtBy != nil {
		if builtBy.Name == "" || builtBy.Version == "" {
			return nil, fmt.Errorf("computing kit annotations: built-by needs a name and a version, got %+v", *builtBy)
		}
		b, err := json.Marshal(builtBy)
		if err != nil {
			return nil, fmt.Errorf("computing kit annotations: encoding built-by: %w", err)
		}
		out[AnnotationBuiltBy] = string(b)
	}
	for k, v := range OCIAnnotations(d) {
		out[k] = v
	}
	if created != "" {
		if !ValidCreated(created) {
			return nil, fmt.Errorf("computing kit annotations: created %q is not an RFC 3339 timestamp", created)
		}
		out[AnnotationCreated] = created
	}
	return out, nil
}

// OCIAnnotations returns the org.opencontainers.image.* keys derived from
// d (SPEC-v3 §7.3): title, description, authors, source, licenses (joined
// with "," and no space) and version. A key whose source is empty is
// absent. created is never derived from a descriptor.
func OCIAnnotations(d *spec.Descriptor) map[string]string {
	out := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			out[k] = v
		}
	}
	set(AnnotationTitle, d.DisplayName)
	set(AnnotationDescription, d.Description)
	set(AnnotationAuthors, d.Author)
	set(AnnotationSource, d.SourceURL)
	set(AnnotationLicenses, strings.Join(d.Licenses, ","))
	set(AnnotationVersion, DescriptorVersion(d))
	return out
}

// DescriptorVersion is the version a kit is published as: its version:
// field if set; otherwise the one version every versioned provides entry
// outside deb/ and apk/ states, compared as text; "" when they disagree or
// none is versioned. Entries that do not parse are passed over.
func DescriptorVersion(d *spec.Descriptor) string {
	if d.Version != "" {
		return d.Version
	}
	found := ""
	for _, s := range d.Provides {
		p, err := spec.ParseProvide(s)
		if err != nil || p.Version == "" || spec.IsDerivedName(p.Name) {
			continue
		}
		switch {
		case found == "":
			found = p.Version
		case found != p.Version:
			return ""
		}
	}
	return found
}

// rfc3339RE is the shape the specification's conformance kit accepts for
// org.opencontainers.image.created; ValidCreated adds a calendar check.
var rfc3339RE = regexp.MustCompile(`^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`)

// ValidCreated reports whether s is an RFC 3339 timestamp naming a real
// calendar date (a leap second is allowed).
func ValidCreated(s string) bool {
	m := rfc3339RE.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	// Check the date against the calendar; time.Parse refuses second 60,
	// so the time of day is judged by the pattern alone.
	_, err := time.Parse("2006-01-02", m[1]+"-"+m[2]+"-"+m[3])
	return err == nil
}

// IsAttestation reports whether the index entry d is an attestation
// manifest (BuildKit's provenance or SBOM) rather than a platform image:
// its descriptor carries vnd.docker.reference.type "attestation-manifest"
// (AnnotationReferenceType, ReferenceTypeAttestation), the marker BuildKit
// writes and containerd, buildx and sbx read. It is the one rule build,
// check, inspect and sign --recursive apply. The platform unknown/unknown
// BuildKit gives attestations is not enough on its own: an entry with that
// platform and no marker is not an attestation, and Check reports it.
func IsAttestation(d v1.Descriptor) bool {
	return kitimage.IsAttestation(d)
}

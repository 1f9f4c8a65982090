package sign

import (
	"fmt"

	"github.com/sigstore/sigstore-go/pkg/bundle"
)

// Media types and annotation keys of a Sigstore bundle stored as an OCI
// referrer, as cosign v3 writes them.
const (
	// BundleMediaType is the media type of a Sigstore bundle v0.3: the
	// referrer's artifactType and its single layer's mediaType.
	BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// InTotoPayloadType is the DSSE payload type of an in-toto Statement.
	InTotoPayloadType = "application/vnd.in-toto+json"
	// CosignSignPredicateType is the predicate type of an image signature
	// as `cosign sign` makes it, with an empty predicate.
	CosignSignPredicateType = "https://sigstore.dev/cosign/sign/v1"
	// AnnotationBundleContent names what the bundle holds
	// ("dsse-envelope").
	AnnotationBundleContent = "dev.sigstore.bundle.content"
	// AnnotationBundlePredicateType is the predicate type of the bundle's
	// statement.
	AnnotationBundlePredicateType = "dev.sigstore.bundle.predicateType"
	// AnnotationCreated is the OCI creation time annotation.
	AnnotationCreated = "org.opencontainers.image.created"
)

// maxBundleSize bounds a bundle read from a store or a file: a keyless
// bundle with a log entry is about 5 KB.
const maxBundleSize = 4 << 20

// Bundle is a Sigstore bundle v0.3 holding one signed in-toto statement.
type Bundle struct {
	b             *bundle.Bundle
	predicateType string
}

// ParseBundle decodes a bundle's JSON, such as the layer of a referrer or
// the file `kitsmith sign --bundle` writes.
func ParseBundle(data []byte) (*Bundle, error) {
	if len(data) > maxBundleSize {
		return nil, fmt.Errorf("parsing bundle: %d bytes is more than the %d allowed", len(data), maxBundleSize)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("parsing bundle: %w", err)
	}
	out := &Bundle{b: &b}
	if st, err := out.statement(); err == nil {
		out.predicateType = st.PredicateType
	}
	return out, nil
}

// MarshalJSON encodes the bundle as the protobuf JSON of a Sigstore bundle.
func (b *Bundle) MarshalJSON() ([]byte, error) { return b.b.MarshalJSON() }

// PredicateType returns the predicate type of the bundle's statement, or ""
// when it holds none.
func (b *Bundle) PredicateType() string { return b.predicateType }

// Sigstore returns the sigstore-go bundle, for callers that verify or
// inspect it themselves.
func (b *Bundle) Sigstore() *bundle.Bundle { return b.b }

// Claims returns what the bundle says of its signer, unverified: the
// certificate's identity (SAN) and OIDC issuer, both "" for a key-based
// signature, and the index of its first transparency-log entry, -1 when it
// has none. Verify is what checks them.
func (b *Bundle) Claims() (identity, issuer string, logIndex int64) {
	logIndex = -1
	if vc, err := b.b.VerificationContent(); err == nil {
		if cert := vc.Certificate(); cert != nil {
			identity, issuer = claimedIdentity(cert)
		}
	}
	if entries, err := b.b.TlogEntries(); err == nil && len(entries) > 0 {
		logIndex = entries[0].LogIndex()
	}
	return identity, issuer, logIndex
}

// statement returns the in-toto statement the bundle's DSSE envelope holds.
func (b *Bundle) statement() (*statement, error) {
	env, err := b.b.Envelope()
	if err != nil {
		return nil, fmt.Errorf("the bundle holds a message signature, not a DSSE envelope with an in-toto statement (cosign verify needs one): %w", err)
	}
	raw := env.RawEnvelope()
	if raw.PayloadType != InTotoPayloadType {
		return nil, fmt.Errorf("its DSSE payload type is %q, not %q", raw.PayloadType, InTotoPayloadType)
	}
	payload, err := raw.DecodeB64Payload()
	if err != nil {
		return nil, fmt.Errorf("decoding the DSSE payload: %w", err)
	}
	return parseStatement(payload)
}

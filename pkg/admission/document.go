package admission

import (
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// FormatVersion is the version of Document's JSON shape (its
// formatVersion), the document kitsmith verify --format json prints.
const FormatVersion = 1

// Document is a Result as kitsmith verify --format json prints it, with
// or without --policy: the reference, the verdict, the signatures found
// and, with a ceiling, the ceiling's verdict.
type Document struct {
	// FormatVersion is FormatVersion.
	FormatVersion int    `json:"formatVersion"`
	Reference     string `json:"reference"`
	// Verified is the verdict, as verify's exit status says it: a
	// signature satisfies the policy and the kit stays within its
	// ceiling (if any).
	Verified   bool             `json:"verified"`
	Subject    v1.Descriptor    `json:"subject"`
	Signatures []sign.Signature `json:"signatures"`
	// Referrers counts the referrers listed, examined, skipped and left
	// unread.
	Referrers sign.ReferrerCounts `json:"referrers"`
	// Ceiling is the permission ceiling's verdict on the verified digest;
	// absent without a ceiling or without an accepted signature.
	Ceiling *CeilingDocument `json:"ceiling,omitempty"`
}

// CeilingDocument is the ceiling's verdict in a Document: its violations,
// and whether there are none.
type CeilingDocument struct {
	OK bool `json:"ok"`
	*review.CeilingResult
}

// Document returns the result as verify's JSON document for the kit ref
// names. The result must hold a signature verdict (Verify's results do).
func (r *Result) Document(ref string) Document {
	res := r.Signatures
	doc := Document{
		FormatVersion: FormatVersion, Reference: ref,
		Verified: len(res.Accepted()) > 0 && (r.Ceiling == nil || r.Ceiling.OK()),
		Subject:  res.Subject, Signatures: res.Signatures, Referrers: res.Referrers,
	}
	if r.Ceiling != nil {
		doc.Ceiling = &CeilingDocument{OK: r.Ceiling.OK(), CeilingResult: r.Ceiling}
	}
	return doc
}

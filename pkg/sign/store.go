package sign

import (
	"context"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// ReferrerStore is where a kit's signatures live: the registry repository
// or OCI layout that holds the kit. It is the consumer-side view pkg/sign
// needs; pkg/artifact implements it for registries (the OCI 1.1 referrers
// API, with the referrers tag schema where a registry has none) and for
// OCI layouts.
type ReferrerStore interface {
	// Referrers lists the manifests whose subject is the given descriptor.
	// The list is not filtered by artifact type: a caller checks each
	// manifest's artifactType and layers itself, because registries report
	// the field inconsistently. An empty list and nil error mean no
	// referrers. A store whose listing stops at a bound of its own returns
	// the referrers it listed together with an error that has a
	// Truncated() bool method reporting true (pkg/artifact's
	// *ReferrersTruncatedError): Verify examines those and reports the
	// listing as truncated; any other error fails Verify.
	Referrers(ctx context.Context, subject v1.Descriptor) ([]v1.Descriptor, error)
	// Referrer reads one referrer manifest, named by its descriptor, with
	// its blobs available through the returned image. Reads are bounded;
	// an error is that referrer's rejection, not Verify's failure.
	Referrer(ctx context.Context, d v1.Descriptor) (v1.Image, error)
	// PushReferrer stores m, whose manifest's subject is subject, by digest
	// and without a tag, and makes it discoverable through Referrers. It
	// returns m's descriptor.
	PushReferrer(ctx context.Context, subject v1.Descriptor, m v1.Image) (v1.Descriptor, error)
}

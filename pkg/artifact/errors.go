package artifact

import "errors"

// Errors Open, Inspect and Check wrap; test for them with errors.Is.
var (
	// ErrNotFound reports a missing tag, manifest, repository or blob.
	ErrNotFound = errors.New("not found")
	// ErrNotLayout reports an oci: or oci-archive: path that holds no OCI
	// image layout.
	ErrNotLayout = errors.New("not an OCI image layout")
	// ErrUnsafeArchive reports an oci-archive: entry that would land
	// outside the layout (an absolute or ../ path), a link, a device or a
	// duplicate.
	ErrUnsafeArchive = errors.New("unsafe archive")
	// ErrTooLarge reports a manifest, config, file or archive over
	// kitsmith's read bounds.
	ErrTooLarge = errors.New("over the read limit")
	// ErrDigestMismatch reports content that does not match its digest
	// or size.
	ErrDigestMismatch = errors.New("content does not match its digest")
	// ErrMalformed reports a manifest or index that does not parse.
	ErrMalformed = errors.New("malformed")
	// ErrUnsupportedMediaType reports a manifest that is neither an image
	// index nor an image manifest (a Docker schema 1 manifest, an
	// artifact manifest).
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	// ErrUnauthorized reports a registry that refused the credentials (or
	// their absence).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrUnreachable reports a registry that could not be reached: an
	// unknown host, nothing listening, a TLS failure, a plain-HTTP registry
	// reached over HTTPS.
	ErrUnreachable = errors.New("registry unreachable")
	// ErrNoPlatform reports a platform the artifact carries no manifest for.
	ErrNoPlatform = errors.New("no manifest for the platform")
)

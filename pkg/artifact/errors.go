package artifact

import (
	"errors"
	"fmt"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Errors Open, Write, Push, Tag, Head, a Target, Inspect and Check wrap;
// test for them with errors.Is.
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
	// kitsmith's read bounds. It is spec.ErrTooLarge, one sentinel for
	// every bounded read.
	ErrTooLarge = spec.ErrTooLarge
	// ErrDigestMismatch reports content that does not match its digest
	// or size.
	ErrDigestMismatch = kitimage.ErrDigestMismatch
	// ErrMalformed reports a manifest or index that does not parse.
	ErrMalformed = kitimage.ErrMalformed
	// ErrUnsupportedMediaType reports a manifest that is neither an image
	// index nor an image manifest (a Docker schema 1 manifest, an
	// artifact manifest).
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	// ErrUnauthorized reports a registry that refused the credentials (or
	// their absence): HTTP 401 or an UNAUTHORIZED error code.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrDenied reports a registry that knows who is asking and refuses the
	// operation: HTTP 403 or a DENIED error code (pushing to a repository
	// the credentials may only read).
	ErrDenied = errors.New("denied")
	// ErrUnreachable reports a registry that could not be reached: an
	// unknown host, nothing listening, a TLS failure, a plain-HTTP registry
	// reached over HTTPS.
	ErrUnreachable = errors.New("registry unreachable")
	// ErrTagMoved reports a conditional tag write (a registry target's
	// TagIf) that the registry refused with 412: the tag no longer points
	// where the caller saw it.
	ErrTagMoved = errors.New("the tag moved since it was read")
	// ErrNoPlatform reports a platform the artifact carries no manifest for.
	ErrNoPlatform = errors.New("no manifest for the platform")
)

// DestinationError reports a reference that cannot be read or written as
// given: one that does not parse, a destination that holds something
// that is not a previous output (a non-empty directory that is not an
// OCI layout, a device, FIFO, socket or symbolic link where an archive
// goes), or nothing to write. It is a usage error, not an I/O failure.
type DestinationError struct {
	// Ref is the reference as given.
	Ref string
	// Reason completes the sentence "REF ...".
	Reason string
	// Err is the underlying error, if any.
	Err error
}

func (e *DestinationError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%q %s: %v", e.Ref, e.Reason, e.Err)
	}
	return fmt.Sprintf("%q %s", e.Ref, e.Reason)
}

// Unwrap returns the underlying error.
func (e *DestinationError) Unwrap() error { return e.Err }

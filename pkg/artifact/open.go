package artifact

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
)

func openArchive(ref, file, tag string) (*Artifact, error) {
	st, err := os.Stat(file)
	switch {
	case err != nil:
		return nil, fmt.Errorf("opening %s: %w", ref, err)
	case st.IsDir():
		return nil, fmt.Errorf("opening %s: %w: %s is a directory; read a layout directory with %s%s", ref, ErrNotLayout, file, LayoutPrefix, file)
	}
	s, err := indexArchive(file)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref, err)
	}
	return openLayout(ref, s, tag, OriginArchive)
}

// openLayout selects the kit in a layout's index.json.
func openLayout(ref string, s blobStore, tag string, origin Origin) (*Artifact, error) {
	if d, ok := s.(dirStore); ok {
		st, err := os.Stat(d.dir)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", ref, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("opening %s: %w: %s is a file; read an archive with %s%s", ref, ErrNotLayout, d.dir, ArchivePrefix, d.dir)
		}
	}
	if err := layoutMarker(s); err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref, err)
	}
	raw, err := s.readFile("index.json", maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w: reading index.json: %w", ref, ErrNotLayout, err)
	}
	root, err := newStoreIndex(s, types.OCIImageIndex, raw)
	if err != nil {
		return nil, fmt.Errorf("opening %s: index.json: %w", ref, err)
	}
	a := &Artifact{ref: ref, origin: origin}
	d, whole, err := selectEntry(root.manifest, tag)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref, err)
	}
	switch {
	case whole:
		a.index = root
	case d.MediaType.IsIndex():
		a.index, err = root.ImageIndex(d.Digest)
	case d.MediaType.IsImage():
		a.image, err = root.Image(d.Digest)
	default:
		err = fmt.Errorf("%w: index.json entry %s is %s, neither an image index nor an image manifest", ErrUnsupportedMediaType, d.Digest, kitimage.MediaTypeOrNone(d.MediaType))
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref, err)
	}
	return a, nil
}

// selectEntry picks the index.json entry a layout reference names. whole
// reports that index.json itself is the kit's index: several platform
// manifests and no tags, as go-containerregistry's layout.Write leaves it.
func selectEntry(im *v1.IndexManifest, tag string) (d v1.Descriptor, whole bool, err error) {
	var (
		tags    []string
		entries []v1.Descriptor
	)
	for _, m := range im.Manifests {
		if isReferrerEntry(m) {
			continue
		}
		entries = append(entries, m)
		rn := m.Annotations[AnnotationRefName]
		if rn != "" {
			tags = append(tags, rn)
		}
		if tag != "" && sameTag(rn, tag) {
			return m, false, nil
		}
	}
	switch {
	case tag != "":
		return d, false, fmt.Errorf("%w: no index.json entry is tagged %q (tags: %s)", ErrNotFound, tag, kitimage.ListOrNone(tags))
	case len(entries) == 0:
		return d, false, fmt.Errorf("%w: index.json lists no manifests", ErrNotFound)
	case len(entries) == 1:
		return entries[0], false, nil
	case len(tags) == 0 && len(entries) == len(im.Manifests):
		return d, true, nil
	}
	return d, false, fmt.Errorf("index.json lists %d entries; name one with :TAG (tags: %s)", len(entries), kitimage.ListOrNone(tags))
}

func openRegistry(ctx context.Context, ref string, o *options) (*Artifact, error) {
	r, err := o.registryRef(ref)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref, err)
	}
	desc, err := remote.Get(r, o.remoteOptions(ctx)...)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref, classifyRegistryError(r, err))
	}
	if desc.Size > maxManifestBytes {
		return nil, fmt.Errorf("opening %s: %w: manifest is %d bytes", ref, ErrTooLarge, desc.Size)
	}
	a := &Artifact{ref: ref, origin: OriginRegistry, registry: o}
	switch {
	case desc.MediaType.IsIndex():
		a.index, err = desc.ImageIndex()
	case desc.MediaType.IsImage():
		a.image, err = desc.Image()
	case desc.MediaType.IsSchema1():
		err = fmt.Errorf("%w: %s is a Docker schema 1 manifest (%s), which no kit builder writes; rebuild and push it with kitsmith build",
			ErrUnsupportedMediaType, r, desc.MediaType)
	default:
		err = fmt.Errorf("%w: %s is %s, neither an image index nor an image manifest", ErrUnsupportedMediaType, r, kitimage.MediaTypeOrNone(desc.MediaType))
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref, err)
	}
	return a, nil
}

// classifyRegistryError wraps a registry error in the sentinel that says
// what went wrong, keeping the original for its detail.
func classifyRegistryError(r name.Reference, err error) error {
	if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrUnreachable) || errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %s did not answer in time: %w", ErrUnreachable, r.Context().RegistryStr(), err)
	}
	var te *transport.Error
	if errors.As(err, &te) {
		for _, d := range te.Errors {
			switch d.Code {
			case transport.ManifestUnknownErrorCode:
				return fmt.Errorf("%w: %s has no manifest %s: %w", ErrNotFound, r.Context(), r.Identifier(), err)
			case transport.NameUnknownErrorCode:
				return fmt.Errorf("%w: no repository %s: %w", ErrNotFound, r.Context(), err)
			case transport.UnauthorizedErrorCode:
				return fmt.Errorf("%w: %s refused access: %w", ErrUnauthorized, r.Context().Registry, err)
			case transport.DeniedErrorCode:
				return fmt.Errorf("%w: %s refused access to %s: %w", ErrDenied, r.Context().Registry, r.Context(), err)
			}
		}
		switch te.StatusCode {
		case http.StatusNotFound:
			return fmt.Errorf("%w: %s has no manifest %s: %w", ErrNotFound, r.Context(), r.Identifier(), err)
		case http.StatusUnauthorized:
			return fmt.Errorf("%w: %s refused access: %w", ErrUnauthorized, r.Context().Registry, err)
		case http.StatusForbidden:
			return fmt.Errorf("%w: %s refused access to %s: %w", ErrDenied, r.Context().Registry, r.Context(), err)
		}
		return err
	}
	var (
		dnsErr  *net.DNSError
		opErr   *net.OpError
		certErr *tls.CertificateVerificationError
		uaErr   x509.UnknownAuthorityError
		hostErr x509.HostnameError
		urlErr  *url.Error
	)
	switch {
	case errors.As(err, &dnsErr):
		return fmt.Errorf("%w: no host %s: %w", ErrUnreachable, dnsErr.Name, err)
	case errors.As(err, &certErr), errors.As(err, &uaErr), errors.As(err, &hostErr):
		return fmt.Errorf("%w: %s presented a certificate that does not verify: %w", ErrUnreachable, r.Context().Registry, err)
	case errors.As(err, &opErr):
		return fmt.Errorf("%w: nothing answers at %s: %w", ErrUnreachable, r.Context().RegistryStr(), err)
	case errors.As(err, &urlErr):
		return fmt.Errorf("%w: %s: %w", ErrUnreachable, r.Context().RegistryStr(), err)
	}
	return err
}

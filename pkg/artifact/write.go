package artifact

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Write writes the artifact to dest, a reference in the grammar Ref
// describes, and returns the descriptor of its top-level manifest.
//
//   - oci:DIR[:TAG] writes an OCI image layout. A missing or empty DIR is
//     written beside it and renamed into place. Into an existing layout,
//     the artifact's blobs are added and its index.json entry (the one
//     tagged TAG, or the untagged one) is added or replaced; every other
//     entry and file is kept. A non-empty directory that is not a layout
//     is refused.
//   - oci-archive:FILE[:TAG] writes a tar of a layout holding the
//     artifact alone, through a temporary file renamed over FILE. FILE
//     must be a regular file or missing.
//   - REGISTRY/REPO[:TAG|@DIGEST] pushes every blob and manifest by
//     digest (Push), then points TAG at it (Tag); a reference with
//     neither tag nor digest means the tag "latest", as everywhere in the
//     registry grammar. A DIGEST must be the artifact's, and sets no tag.
//
// Files are written mode 0644 and directories 0755, less the umask. The
// index.json entry carries no artifactType: a kit is a plain image. A
// destination that cannot be written as asked is a *DestinationError.
func Write(ctx context.Context, a *Artifact, dest string, opts ...Option) (v1.Descriptor, error) {
	o, err := makeOptions(opts)
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("writing %s: %w", dest, err)
	}
	r, err := ParseReference(dest)
	if err != nil {
		return v1.Descriptor{}, err
	}
	d, err := a.descriptor()
	if err != nil {
		return v1.Descriptor{}, &DestinationError{Ref: dest, Reason: "has nothing to write", Err: err}
	}
	ctx, cancel := o.operation(ctx)
	defer cancel()
	defer o.done()
	if r.Kind == OriginRegistry {
		if _, err := push(ctx, a, d, r.Name, o); err != nil {
			return v1.Descriptor{}, err
		}
		if ref, _ := o.registryRef(r.Name); ref != nil {
			if t, ok := ref.(name.Tag); ok {
				// The manifest is at hand: tag it without reading it back.
				var m remote.Taggable = a.image
				if a.index != nil {
					m = a.index
				}
				if err := remote.Tag(t, m, o.remoteOptions(ctx)...); err != nil {
					return v1.Descriptor{}, fmt.Errorf("tagging %s: %w", t, classifyRegistryError(t, err))
				}
			}
		}
		return d, nil
	}
	if err := checkParents(dest, r.Path); err != nil {
		return v1.Descriptor{}, err
	}
	blobs, err := a.blobs()
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("writing %s: %w", dest, err)
	}
	if r.Kind == OriginLayout {
		err = writeLayout(ctx, dest, r.Path, r.Tag, blobs, d)
	} else {
		err = writeArchive(ctx, dest, r.Path, r.Tag, blobs, d, o.modTime)
	}
	if err != nil {
		return v1.Descriptor{}, err
	}
	return d, nil
}

// Push writes every blob and manifest of the artifact to the repository
// ref names, by digest, and sets no tag: publishing pushes everything
// first and tags last (Tag). A tag in ref is ignored; a digest in ref must
// be the artifact's. It returns the descriptor of the top-level manifest.
// Errors wrap ErrUnauthorized, ErrDenied, ErrUnreachable or ErrNotFound
// when they apply.
func Push(ctx context.Context, a *Artifact, ref string, opts ...Option) (v1.Descriptor, error) {
	o, err := makeOptions(opts)
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("pushing to %s: %w", ref, err)
	}
	d, err := a.descriptor()
	if err != nil {
		return v1.Descriptor{}, &DestinationError{Ref: ref, Reason: "has nothing to write", Err: err}
	}
	ctx, cancel := o.operation(ctx)
	defer cancel()
	defer o.done()
	return push(ctx, a, d, ref, o)
}

func push(ctx context.Context, a *Artifact, d v1.Descriptor, ref string, o *options) (v1.Descriptor, error) {
	r, err := o.registryRef(ref)
	if err != nil {
		return v1.Descriptor{}, err
	}
	if dg, ok := r.(name.Digest); ok && dg.DigestStr() != d.Digest.String() {
		return v1.Descriptor{}, &DestinationError{Ref: ref, Reason: fmt.Sprintf("pins digest %s, but the artifact is %s", dg.DigestStr(), d.Digest)}
	}
	pinned := r.Context().Digest(d.Digest.String())
	if a.index != nil {
		err = remote.WriteIndex(pinned, a.index, o.remoteOptions(ctx)...)
	} else {
		err = remote.Write(pinned, a.image, o.remoteOptions(ctx)...)
	}
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("pushing to %s: %w", ref, classifyRegistryError(pinned, err))
	}
	return d, nil
}

// Tag points the tag ref names at the manifest d, which must already be
// in ref's repository (Push it first). Errors wrap ErrNotFound when the
// manifest is not there, and ErrUnauthorized, ErrDenied or ErrUnreachable
// when they apply.
func Tag(ctx context.Context, ref string, d v1.Descriptor, opts ...Option) error {
	o, err := makeOptions(opts)
	if err != nil {
		return fmt.Errorf("tagging %s: %w", ref, err)
	}
	r, err := o.registryRef(ref)
	if err != nil {
		return err
	}
	t, ok := r.(name.Tag)
	if !ok {
		return &DestinationError{Ref: ref, Reason: "names a digest, not a tag"}
	}
	ctx, cancel := o.operation(ctx)
	defer cancel()
	defer o.done()
	return tag(ctx, t, d, o)
}

func tag(ctx context.Context, t name.Tag, d v1.Descriptor, o *options) error {
	pinned := t.Context().Digest(d.Digest.String())
	m, err := remote.Get(pinned, o.remoteOptions(ctx)...)
	if err != nil {
		return fmt.Errorf("tagging %s: reading %s: %w", t, d.Digest, classifyRegistryError(pinned, err))
	}
	ropts := o.remoteOptions(ctx)
	if c := o.tagPrecondition; c != nil {
		ropts = append(ropts, remote.WithTransport(&conditionalPut{inner: o.transport, path: "/manifests/" + t.TagStr(), prev: c.prev}))
	}
	if err := remote.Tag(t, m, ropts...); err != nil {
		var te *transport.Error
		if errors.As(err, &te) && te.StatusCode == http.StatusPreconditionFailed {
			return fmt.Errorf("tagging %s: %w: the registry refused the conditional write: %w", t, ErrTagMoved, err)
		}
		return fmt.Errorf("tagging %s: %w", t, classifyRegistryError(t, err))
	}
	return nil
}

// conditionalPut adds a tag precondition to the manifest PUT of one tag.
type conditionalPut struct {
	inner http.RoundTripper
	path  string
	prev  *v1.Hash
}

func (c *conditionalPut) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && strings.HasSuffix(req.URL.Path, c.path) {
		req = req.Clone(req.Context())
		if c.prev != nil {
			req.Header.Set("If-Match", `"`+c.prev.String()+`"`)
		} else {
			req.Header.Set("If-None-Match", "*")
		}
	}
	return c.inner.RoundTrip(req)
}

// Head returns the descriptor of the manifest ref names now: what a
// registry tag points to (without reading the manifest), or a layout or
// archive entry. Errors wrap ErrNotFound when there is none.
func Head(ctx context.Context, ref string, opts ...Option) (v1.Descriptor, error) {
	o, err := makeOptions(opts)
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("reading %s: %w", ref, err)
	}
	p, err := ParseReference(ref)
	if err != nil {
		return v1.Descriptor{}, err
	}
	if p.Kind != OriginRegistry {
		a, err := Open(ctx, ref, opts...)
		if err != nil {
			return v1.Descriptor{}, err
		}
		return a.descriptor()
	}
	r, err := o.registryRef(ref)
	if err != nil {
		return v1.Descriptor{}, err
	}
	ctx, cancel := o.operation(ctx)
	defer cancel()
	defer o.done()
	d, err := remote.Head(r, o.remoteOptions(ctx)...)
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("reading %s: %w", ref, classifyRegistryError(r, err))
	}
	return v1.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size}, nil
}

// CheckDestination reports whether Write could write dest without
// destroying what it does not own, without writing anything: dest must
// parse, no existing parent of its path may be other than a directory
// (missing ones are created), a layout must be missing, empty or a
// layout, and an archive must be missing or a regular file. A refusal is
// a *DestinationError. A registry destination is only parsed; whether it
// accepts a push is known when Push tries.
func CheckDestination(dest string) error {
	r, err := ParseReference(dest)
	if err != nil {
		return err
	}
	if r.Kind != OriginRegistry {
		if err := checkParents(dest, r.Path); err != nil {
			return err
		}
	}
	switch r.Kind {
	case OriginLayout:
		_, err = checkLayoutDest(dest, r.Path)
	case OriginArchive:
		err = checkArchiveDest(dest, r.Path)
	}
	return err
}

// checkParents refuses a path under an existing parent that is not a
// directory.
func checkParents(ref, p string) error {
	for parent := filepath.Dir(p); ; parent = filepath.Dir(parent) {
		fi, err := os.Stat(parent)
		switch {
		case err == nil && !fi.IsDir():
			return &DestinationError{Ref: ref, Reason: fmt.Sprintf("is under %s, which is %s, not a directory", parent, modeName(fi.Mode()))}
		case err == nil:
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return fmt.Errorf("checking %s: %w", ref, err)
		case filepath.Dir(parent) == parent:
			return nil
		}
	}
}

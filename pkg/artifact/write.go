package artifact

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
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
		return writeRegistry(ctx, a, dest, o)
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

// writeRegistry pushes a to the registry reference dest and tags it with
// the manifest at hand, without reading it back.
func writeRegistry(ctx context.Context, a *Artifact, dest string, o *options) (v1.Descriptor, error) {
	t, err := (&Client{o: o}).Target(ctx, dest)
	if err != nil {
		return v1.Descriptor{}, err
	}
	rt := t.(*registryTarget)
	d, err := rt.Push(ctx, a)
	if err != nil {
		return v1.Descriptor{}, err
	}
	if _, ok := rt.ref.(name.Tag); ok {
		if err := rt.Tag(ctx, d); err != nil { // the manifest at hand, not read back
			return v1.Descriptor{}, err
		}
	}
	return d, nil
}

// Push writes every blob and manifest of the artifact to the repository
// or layout ref names, by digest, and sets no tag: publishing pushes
// everything first and tags last (Tag). A tag in ref is ignored; a digest
// in ref must be the artifact's. It returns the descriptor of the
// top-level manifest. It is Target.Push on NewTarget(ref), with a
// transport of its own released when it returns. Errors wrap
// ErrUnauthorized, ErrDenied, ErrUnreachable or ErrNotFound when they
// apply.
func Push(ctx context.Context, a *Artifact, ref string, opts ...Option) (v1.Descriptor, error) {
	var d v1.Descriptor
	err := withTarget(ctx, ref, "pushing to", opts, func(t Target) (err error) {
		d, err = t.Push(ctx, a)
		return err
	})
	return d, err
}

// Tag points the tag ref names at the manifest d, which must already be
// in ref's repository or layout (Push it first): Target.Tag on
// NewTarget(ref). Errors wrap ErrNotFound when the manifest is not there,
// and ErrUnauthorized, ErrDenied or ErrUnreachable when they apply.
func Tag(ctx context.Context, ref string, d v1.Descriptor, opts ...Option) error {
	return withTarget(ctx, ref, "tagging", opts, func(t Target) error { return t.Tag(ctx, d) })
}

// Head returns the descriptor of the manifest ref names now: what a
// registry tag points to (without reading the manifest), or a layout or
// archive entry. Errors wrap ErrNotFound when there is none.
func Head(ctx context.Context, ref string, opts ...Option) (v1.Descriptor, error) {
	p, err := ParseReference(ref)
	if err != nil {
		return v1.Descriptor{}, err
	}
	if p.Kind == OriginArchive {
		a, err := Open(ctx, ref, opts...)
		if err != nil {
			return v1.Descriptor{}, err
		}
		return a.descriptor()
	}
	var d v1.Descriptor
	err = withTarget(ctx, ref, "reading", opts, func(t Target) (err error) {
		d, err = t.Head(ctx)
		return err
	})
	return d, err
}

// withTarget runs fn on the target ref names, with a client of its own
// whose idle connections are released when fn returns.
func withTarget(ctx context.Context, ref, doing string, opts []Option, fn func(Target) error) error {
	c, err := NewClient(opts...)
	if err != nil {
		return fmt.Errorf("%s %s: %w", doing, ref, err)
	}
	defer c.Close()
	t, err := c.Target(ctx, ref)
	if err != nil {
		return err
	}
	return fn(t)
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

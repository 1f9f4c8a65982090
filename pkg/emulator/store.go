package emulator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/containerd/containerd/v2/core/content"
	"github.com/containerd/errdefs"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// layoutStore serves the blobs of an OCI layout read-only, as the content
// store BuildKit reads an OCI layout source through (SolveOpt.OCIStores).
// Only what a read needs is implemented; every write is refused.
type layoutStore struct{ dir string }

var _ content.Store = layoutStore{}

func (s layoutStore) path(d digest.Digest) (string, error) {
	if err := d.Validate(); err != nil {
		return "", fmt.Errorf("%w: %v", errdefs.ErrInvalidArgument, err)
	}
	return filepath.Join(s.dir, "blobs", d.Algorithm().String(), d.Encoded()), nil
}

func (s layoutStore) Info(_ context.Context, d digest.Digest) (content.Info, error) {
	p, err := s.path(d)
	if err != nil {
		return content.Info{}, err
	}
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return content.Info{}, fmt.Errorf("blob %s: %w", d, errdefs.ErrNotFound)
	}
	if err != nil {
		return content.Info{}, err
	}
	return content.Info{Digest: d, Size: fi.Size(), CreatedAt: fi.ModTime(), UpdatedAt: fi.ModTime()}, nil
}

func (s layoutStore) ReaderAt(_ context.Context, desc ocispec.Descriptor) (content.ReaderAt, error) {
	p, err := s.path(desc.Digest)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s: %w", desc.Digest, errdefs.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return sizedFile{f, fi.Size()}, nil
}

type sizedFile struct {
	*os.File
	size int64
}

func (f sizedFile) Size() int64 { return f.size }

var errReadOnly = fmt.Errorf("the composed image is read-only: %w", errdefs.ErrNotImplemented)

func (layoutStore) Update(context.Context, content.Info, ...string) (content.Info, error) {
	return content.Info{}, errReadOnly
}

func (layoutStore) Walk(context.Context, content.WalkFunc, ...string) error { return errReadOnly }
func (layoutStore) Delete(context.Context, digest.Digest) error             { return errReadOnly }
func (layoutStore) Status(context.Context, string) (content.Status, error) {
	return content.Status{}, errReadOnly
}
func (layoutStore) ListStatuses(context.Context, ...string) ([]content.Status, error) {
	return nil, nil
}
func (layoutStore) Abort(context.Context, string) error { return errReadOnly }
func (layoutStore) Writer(context.Context, ...content.WriterOpt) (content.Writer, error) {
	return nil, errReadOnly
}

package artifact

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// checkArchiveDest refuses an archive destination that is neither a
// regular file (a previous archive, replaced) nor missing: a directory, a
// device, a FIFO, a socket or a symbolic link is not overwritten.
func checkArchiveDest(ref, file string) error {
	fi, err := os.Lstat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("writing %s: %w", ref, err)
	case fi.IsDir():
		return &DestinationError{Ref: ref, Reason: fmt.Sprintf("names %s, which is a directory; an archive is a file (write a layout with %s%s)", file, LayoutPrefix, file)}
	case !fi.Mode().IsRegular():
		return &DestinationError{Ref: ref, Reason: fmt.Sprintf("names %s, which is %s; an archive replaces only a regular file", file, modeName(fi.Mode()))}
	}
	return nil
}

// writeArchive writes a tar of an OCI layout holding blobs, with one
// index.json entry, to a temporary file beside file, and renames it into
// place. Entries are in a fixed order with every timestamp mtime, so the
// same artifact makes the same archive.
func writeArchive(ctx context.Context, ref, file, tag string, blobs []blob, entry v1.Descriptor, mtime time.Time) error {
	if err := checkArchiveDest(ref, file); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), dirMode); err != nil {
		return fmt.Errorf("writing %s: %w", ref, err)
	}
	if tag != "" {
		entry.Annotations = map[string]string{AnnotationRefName: tag}
	}
	index, err := json.Marshal(v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex, Manifests: []v1.Descriptor{entry}})
	if err != nil {
		return err
	}
	err = writeAtomic(file, func(w io.Writer) error { return tarLayout(ctx, tar.NewWriter(w), blobs, index, mtime) })
	if err != nil {
		return fmt.Errorf("writing %s: %w", ref, err)
	}
	return nil
}

func tarLayout(ctx context.Context, tw *tar.Writer, blobs []blob, index []byte, mtime time.Time) error {
	small := func(name string, b []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: fileMode, Size: int64(len(b)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	sorted := slices.Clone(blobs)
	slices.SortFunc(sorted, func(a, b blob) int {
		return strings.Compare(a.desc.Digest.String(), b.desc.Digest.String())
	})
	dirs := map[string]bool{}
	for _, b := range sorted {
		p := blobPath(b.desc.Digest)
		for _, d := range []string{"blobs", path.Dir(p)} {
			if dirs[d] {
				continue
			}
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Name: d + "/", Typeflag: tar.TypeDir, Mode: dirMode, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
				return err
			}
		}
		if err := tw.WriteHeader(&tar.Header{Name: p, Typeflag: tar.TypeReg, Mode: fileMode, Size: b.desc.Size, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		if err := copyBlob(ctx, tw, b); err != nil {
			return err
		}
	}
	// In path order, as a sorted walk of the layout would give.
	if err := small("index.json", index); err != nil {
		return err
	}
	if err := small("oci-layout", []byte(layoutMarkerJSON)); err != nil {
		return err
	}
	return tw.Close()
}

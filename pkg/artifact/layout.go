package artifact

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Modes of what a local output writes, before the umask: a layout built by
// one user can be read by another.
const (
	fileMode = 0o644
	dirMode  = 0o755
)

const layoutMarkerJSON = `{"imageLayoutVersion": "1.0.0"}`

// tempName is a fresh name beside dest for a temporary file or directory.
func tempName(dest string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".kitsmith-"+hex.EncodeToString(b[:]))
}

// createFile creates a new file at p, mode fileMode less the umask.
func createFile(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
}

// writeFileAtomic writes b to p through a temporary file renamed over it.
func writeFileAtomic(p string, b []byte) error {
	return writeAtomic(p, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeAtomic writes p through write into a temporary file beside it,
// renamed over p only when everything was written and closed; the
// temporary file is removed on any failure.
func writeAtomic(p string, write func(io.Writer) error) error {
	tmp := tempName(p)
	f, err := createFile(tmp)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// layoutState says what is at a layout destination.
type layoutState int

const (
	layoutMissing layoutState = iota // nothing, or an empty directory
	layoutExisting
)

// checkLayoutDest refuses a layout destination that holds something
// other than a layout: a file, or a non-empty directory without an
// oci-layout file.
func checkLayoutDest(ref, dir string) (layoutState, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return layoutMissing, nil
	case err != nil:
		return 0, fmt.Errorf("writing %s: %w", ref, err)
	case !fi.IsDir():
		return 0, &DestinationError{Ref: ref, Reason: fmt.Sprintf("names %s, which is %s, not a directory; write an archive with %s%s", dir, modeName(fi.Mode()), ArchivePrefix, dir)}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("writing %s: %w", ref, err)
	}
	if len(entries) == 0 {
		return layoutMissing, nil
	}
	if fi, err := os.Lstat(filepath.Join(dir, "oci-layout")); err != nil || !fi.Mode().IsRegular() {
		return 0, &DestinationError{Ref: ref, Reason: fmt.Sprintf("names %s, a non-empty directory that is not an OCI layout; choose another directory or empty it", dir)}
	}
	return layoutExisting, nil
}

// writeLayout writes blobs into the layout dir (created if missing) and
// sets its index.json entry: entries with the same tag (or, without a
// tag, the untagged entries that are not referrers) are replaced, every
// other entry and file is kept. A new layout is written beside dir and
// renamed into place, so a failed write leaves nothing behind; into an
// existing layout, index.json is replaced last and atomically.
func writeLayout(ctx context.Context, ref, dir, tag string, blobs []blob, entry v1.Descriptor) error {
	state, err := checkLayoutDest(ref, dir)
	if err != nil {
		return err
	}
	target := dir
	if state == layoutMissing {
		if err := os.MkdirAll(filepath.Dir(dir), dirMode); err != nil {
			return fmt.Errorf("writing %s: %w", ref, err)
		}
		target = tempName(dir)
		if err := os.Mkdir(target, dirMode); err != nil {
			return fmt.Errorf("writing %s: %w", ref, err)
		}
		defer os.RemoveAll(target)
	}
	if err := putBlobs(ctx, target, blobs); err != nil {
		return fmt.Errorf("writing %s: %w", ref, err)
	}
	if tag != "" {
		entry.Annotations = map[string]string{AnnotationRefName: tag}
	}
	err = updateIndex(target, state == layoutExisting, func(im *v1.IndexManifest) {
		im.Manifests = slices.DeleteFunc(im.Manifests, func(d v1.Descriptor) bool {
			return !isReferrerEntry(d) && sameTag(d.Annotations[AnnotationRefName], tag)
		})
		im.Manifests = append(im.Manifests, entry)
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", ref, err)
	}
	if state == layoutMissing {
		if err := os.Rename(target, dir); err != nil {
			// An empty directory was there: replace it.
			if rmErr := os.Remove(dir); rmErr != nil {
				return fmt.Errorf("writing %s: moving the layout into place: %w", ref, err)
			}
			if err := os.Rename(target, dir); err != nil {
				return fmt.Errorf("writing %s: moving the layout into place: %w", ref, err)
			}
		}
	}
	return nil
}

// putBlobs writes blobs missing from the layout at dir, each through a
// temporary file renamed into place once its digest checked out. A blob
// already there with the right size is kept as it is: blobs are named by
// their digest, and readers verify them.
func putBlobs(ctx context.Context, dir string, blobs []blob) error {
	if err := writeFileAtomic(filepath.Join(dir, "oci-layout"), []byte(layoutMarkerJSON)); err != nil {
		return err
	}
	for _, b := range blobs {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(blobPath(b.desc.Digest)))
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == b.desc.Size {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), dirMode); err != nil {
			return err
		}
		if err := putBlob(ctx, p, b); err != nil {
			return err
		}
	}
	return nil
}

func putBlob(ctx context.Context, p string, b blob) error {
	return writeAtomic(p, func(w io.Writer) error { return copyBlob(ctx, w, b) })
}

// updateIndex rewrites the layout's index.json through edit. An existing
// index.json is read first (it must be a regular file of bounded size).
func updateIndex(dir string, existing bool, edit func(*v1.IndexManifest)) error {
	im := &v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex}
	if existing {
		raw, err := dirStore{dir: dir}.readFile("index.json", maxManifestBytes)
		if err != nil {
			return fmt.Errorf("reading index.json: %w", err)
		}
		if err := json.Unmarshal(raw, im); err != nil {
			return fmt.Errorf("%w: index.json does not parse: %w", ErrMalformed, err)
		}
	}
	edit(im)
	b, err := json.Marshal(im)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "index.json"), b)
}

// sameTag reports whether an index.json entry's ref.name is tag, as Open
// selects entries: the bare tag or a full reference ending in ":tag".
func sameTag(refName, tag string) bool {
	if tag == "" {
		return refName == ""
	}
	return refName == tag || strings.HasSuffix(refName, ":"+tag)
}

// isReferrerEntry reports an index.json entry that records a referrer (a
// signature, an attestation) rather than an image: it carries an
// artifactType that is not an image config type. A kit's own entry
// carries none, and go-containerregistry's index writer gives image
// entries their config's media type.
func isReferrerEntry(d v1.Descriptor) bool {
	switch types.MediaType(d.ArtifactType) {
	case "", types.OCIConfigJSON, types.DockerConfigJSON:
		return false
	}
	return true
}

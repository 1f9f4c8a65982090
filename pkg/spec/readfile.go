package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
)

// ErrOutsideKit reports a path that leaves the kit directory (absolute,
// or climbing out with ..).
var ErrOutsideKit = errors.New("outside the kit directory")

// ErrFileTooLarge reports a kit file over kitsmith's size limit for the
// files it reads besides the descriptor (8 MiB).
var ErrFileTooLarge = errors.New("over kitsmith's size limit")

// kitFiles is where ReadFile reads a loaded kit's files.
type kitFiles struct {
	// open returns the file system the kit was loaded from and a function
	// that releases it; nil for a kit made by Parse.
	open func() (fs.FS, func() error, error)
	// dir is the kit directory inside that file system.
	dir     string
	display func(string) string
}

// rootFiles serves ReadFile for a kit LoadPath loaded: each read opens an
// os.Root at the kit directory again, since LoadPath closes its own.
func rootFiles(dir string) func() (fs.FS, func() error, error) {
	return func() (fs.FS, func() error, error) {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return nil, nil, err
		}
		return root.FS(), root.Close, nil
	}
}

// ReadFile returns the content of the kit file rel, a slash-separated path
// relative to the kit directory (a script the recipe copies, say). It reads
// through the file system the kit was loaded from (for LoadPath an os.Root
// at the kit directory, so no symbolic link reaches outside it) and under
// the size limit of recipes. It refuses a path that leaves the kit
// directory (ErrOutsideKit), a file that is not regular (ErrNotRegular,
// without opening it, so a FIFO cannot block) and a file over the limit
// (ErrFileTooLarge). A kit made by Parse has no directory: every read fails
// with fs.ErrNotExist.
//
// A file read is added to SourceFiles under FilePath(rel), so that
// positions in it can be rendered. ReadFile is not safe for concurrent use
// with itself or SourceFiles.
func (k *Kit) ReadFile(rel string) ([]byte, error) {
	name, ok := cleanRel(rel)
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: ErrOutsideKit}
	}
	if k.files.open == nil {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: fs.ErrNotExist}
	}
	fsys, release, err := k.files.open()
	if err != nil {
		return nil, fmt.Errorf("reading kit file %s: %w", rel, err)
	}
	defer release()
	full := path.Join(k.files.dir, name)
	data, tooBig, err := readLimited(fsys, full, maxFileBytes)
	switch {
	case err != nil:
		return nil, fmt.Errorf("reading kit file %s: %w", rel, err)
	case tooBig >= 0:
		return nil, &fs.PathError{Op: "read", Path: rel, Err: fmt.Errorf("%w: %d bytes, over %d", ErrFileTooLarge, tooBig, maxFileBytes)}
	}
	k.addSource(k.FilePath(rel), data)
	return data, nil
}

// FilePath returns the display path of the kit file rel (relative to the
// kit directory), as positions in it name it; rel itself when it leaves
// the kit directory or the kit was made by Parse.
func (k *Kit) FilePath(rel string) string {
	name, ok := cleanRel(rel)
	if !ok || k.files.display == nil {
		return rel
	}
	return k.files.display(path.Join(k.files.dir, name))
}

// ReadRegular reads the file name of fsys the way kitsmith reads every kit
// file: a regular file only (ErrNotRegular otherwise, judged by its
// metadata before it is opened, so a FIFO cannot block and a device is
// never read) and at most limit bytes (ErrFileTooLarge, without reading the
// file whole, even one whose size its metadata understates). fsys should
// confine names to the kit, as an os.Root's file system does. Errors are
// *fs.PathError values naming name.
func ReadRegular(fsys fs.FS, name string, limit int) ([]byte, error) {
	data, tooBig, err := readLimited(fsys, name, limit)
	switch {
	case err != nil:
		return nil, err
	case tooBig >= 0:
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: %d bytes, over %d", ErrFileTooLarge, tooBig, limit)}
	}
	return data, nil
}

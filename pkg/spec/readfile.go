package spec

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// ErrOutsideKit reports a path that leaves the kit directory (absolute,
// or climbing out with ..).
var ErrOutsideKit = errors.New("outside the kit directory")

// ErrTooLarge reports content over one of kitsmith's read bounds: a kit
// file besides the descriptor over 8 MiB here, a manifest, config, layer
// file or archive in package artifact (whose ErrTooLarge it is).
var ErrTooLarge = errors.New("over the read limit")

// ErrFileTooLarge is the old name of ErrTooLarge.
//
// Deprecated: use ErrTooLarge.
var ErrFileTooLarge = ErrTooLarge

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
// (ErrTooLarge). A kit made by Parse has no directory: every read fails
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
		return nil, &fs.PathError{Op: "read", Path: rel, Err: fmt.Errorf("%w: %d bytes, over %d", ErrTooLarge, tooBig, maxFileBytes)}
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

// readLimited reads at most limit bytes of name. When the file is larger,
// it returns its size as tooBig (without reading it whole); otherwise
// tooBig is -1.
func readLimited(fsys fs.FS, name string, limit int) (data []byte, tooBig int, err error) {
	if err := checkRegular(fsys, name); err != nil {
		return nil, -1, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, -1, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		if !fi.Mode().IsRegular() { // replaced since checkRegular looked
			return nil, -1, &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
		}
		if fi.Size() > int64(limit) {
			return nil, int(fi.Size()), nil
		}
	}
	data, err = io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, -1, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(data) > limit {
		return nil, len(data), nil
	}
	return data, -1, nil
}

// ErrNotRegular reports a file that is not a regular file (a FIFO, device,
// socket, directory or link): kitsmith refuses a kit file or configuration
// before opening it, since opening a FIFO blocks until something writes to
// it, and package artifact a file in an image or a layout that is none.
var ErrNotRegular = errors.New("not a regular file")

// checkRegular refuses a name that is not a regular file, by its metadata,
// without opening it.
func checkRegular(fsys fs.FS, name string) error {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return err
	}
	switch {
	case fi.IsDir():
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: %w", ErrNotRegular, errDirectory)}
	case !fi.Mode().IsRegular():
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, typeName(fi.Mode()))}
	}
	return nil
}

// errDirectory is a directory where a file was named: a mistake in the
// kit, not an I/O failure.
var errDirectory = errors.New("a directory")

// typeName names a file mode's type for messages.
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// FileError reports a kit file that exists but cannot be read (not a
// regular file, no permission, an I/O error): Load fails with it, since the
// kit cannot be judged without it. Missing files and files outside the kit
// directory are problems of the kit instead, reported by Validate.
type FileError struct {
	// What names the file's role, e.g. "contentFile" or "dockerfile".
	What string
	// Path is the file's display path.
	Path string
	// Err is the cause.
	Err error
}

// Error says which file could not be read and why.
func (e *FileError) Error() string {
	return fmt.Sprintf("reading %s %s: %v", e.What, e.Path, errors.Unwrap(e.Err))
}

// Unwrap returns the cause.
func (e *FileError) Unwrap() error { return e.Err }

// ioFailure reports whether a read error is one of the file system (the
// file exists, inside the kit, but cannot be read) rather than of the kit.
func ioFailure(err error) bool {
	var pe *fs.PathError
	return err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errDirectory) &&
		!(errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes"))
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

package migrate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Read bounds: every file Migrate reads is at most maxFileBytes, and all of
// them together at most maxTotalBytes.
const (
	maxFileBytes  = 8 << 20
	maxTotalBytes = 64 << 20
	maxLinkHops   = 40
)

// ErrKitTooLarge reports a v2 kit whose files add up to more than Migrate
// reads in all (64 MiB).
var ErrKitTooLarge = errors.New("the kit's files add up to more than kitsmith migrate reads (64 MiB)")

// LinkError reports a symbolic link in the v2 kit that resolves outside
// the kit directory: SPEC-v2 §5.8 requires every link to resolve inside
// the kit, and Migrate reads nothing outside it.
type LinkError struct {
	// Link is the link's display path.
	Link string
	// Target is what the link names, as written.
	Target string
}

// Error names the link and its target.
func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link to %s, outside the kit: SPEC-v2 §5.8 requires links to resolve inside the kit; replace it with the file it names", e.Link, e.Target)
}

// Unwrap returns spec.ErrOutsideKit.
func (e *LinkError) Unwrap() error { return spec.ErrOutsideKit }

// kitFS reads the v2 kit's files: only inside the kit directory (links
// are followed only while they stay in it), only regular files, each and
// all of them bounded, and not after ctx is done.
type kitFS struct {
	ctx     context.Context
	fsys    fs.FS
	dir     string // the kit directory in fsys
	display string // the kit directory as reported
	total   int
}

// displayPath is how rel, relative to the kit, is reported.
func (k *kitFS) displayPath(rel string) string { return path.Join(k.display, rel) }

// resolve returns the kit-relative path rel names once every symbolic link
// on the way is followed, and whether its last element was a link. A link
// that leaves the kit is a *LinkError; a missing element ends the walk
// (the caller's read then fails with fs.ErrNotExist).
func (k *kitFS) resolve(rel string) (string, bool, error) {
	clean := path.Clean(rel)
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", false, &fs.PathError{Op: "read", Path: k.displayPath(rel), Err: spec.ErrOutsideKit}
	}
	todo := strings.Split(clean, "/")
	cur, hops, wasLink := "", 0, false
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		wasLink = false
		switch c {
		case ".", "":
			continue
		case "..":
			if cur == "" {
				return "", false, &fs.PathError{Op: "read", Path: k.displayPath(rel), Err: spec.ErrOutsideKit}
			}
			cur = path.Dir(cur)
			if cur == "." {
				cur = ""
			}
			continue
		}
		next := path.Join(cur, c)
		fi, err := fs.Lstat(k.fsys, path.Join(k.dir, next))
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			if err != nil {
				return path.Join(append([]string{cur}, todo...)...), false, nil
			}
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", false, &fs.PathError{Op: "read", Path: k.displayPath(next), Err: errors.New("too many levels of symbolic links")}
		}
		target, err := fs.ReadLink(k.fsys, path.Join(k.dir, next))
		if err != nil {
			return "", false, fmt.Errorf("reading the link %s: %w", k.displayPath(next), err)
		}
		if path.IsAbs(target) {
			return "", false, &LinkError{Link: k.displayPath(next), Target: target}
		}
		// The target is relative to the link's directory: climbing out of
		// the kit from there is caught by the ".." case, named after the link.
		joined := path.Join(path.Dir(next), target)
		if joined == ".." || strings.HasPrefix(joined, "../") {
			return "", false, &LinkError{Link: k.displayPath(next), Target: target}
		}
		todo = append(strings.Split(target, "/"), todo...)
		cur = path.Dir(next)
		if cur == "." {
			cur = ""
		}
		wasLink = true
	}
	return cur, wasLink, nil
}

// read returns the content of the kit file rel: links followed inside the
// kit only, a regular file only (a FIFO or device is refused without being
// opened), at most maxFileBytes, and within the kit's total budget.
func (k *kitFS) read(rel string) ([]byte, error) {
	if err := k.ctx.Err(); err != nil {
		return nil, err
	}
	real, _, err := k.resolve(rel)
	if err != nil {
		return nil, err
	}
	data, err := spec.ReadRegular(k.fsys, path.Join(k.dir, real), maxFileBytes)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, &fs.PathError{Op: "read", Path: k.displayPath(rel), Err: pe.Err}
		}
		return nil, fmt.Errorf("reading %s: %w", k.displayPath(rel), err)
	}
	if k.total += len(data); k.total > maxTotalBytes {
		return nil, fmt.Errorf("reading %s: %w", k.displayPath(rel), ErrKitTooLarge)
	}
	return data, nil
}

// readOptional is read for a file the kit may lack: a missing file is
// (nil, nil).
func (k *kitFS) readOptional(rel string) ([]byte, error) {
	b, err := k.read(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// lstat describes the kit entry rel itself, a link not followed.
func (k *kitFS) lstat(rel string) (fs.FileInfo, error) {
	return fs.Lstat(k.fsys, path.Join(k.dir, rel))
}

// maxEntries bounds how many entries a walk of the kit visits.
const maxEntries = 100_000

// kitEntry is one file a walk of the kit visits.
type kitEntry struct {
	// name is the path relative to the kit, under the walked path as
	// named (a walked link to a directory is not renamed to its target).
	name string
	mode fs.FileMode // permission bits
	data []byte      // a regular file's content
	link string      // a symbolic link's target, as written; "" for a file
	// target is the kit-relative path a link resolves to.
	target string
}

// walk visits every file under the kit path rel, rel itself when it is a
// file: regular files with their content, symbolic links (followed only
// to check they stay in the kit) with their target. Directories are
// descended; a FIFO, device or socket is an error naming it, and so is a
// link that leaves the kit.
func (k *kitFS) walk(rel string, fn func(kitEntry) error) error {
	real, _, err := k.resolve(rel)
	if err != nil {
		return err
	}
	base := path.Join(k.dir, real)
	if _, err := fs.Stat(k.fsys, base); errors.Is(err, fs.ErrNotExist) {
		return nil // a link to nothing: its links are reported by whoever walks them
	}
	n := 0
	return fs.WalkDir(k.fsys, base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading %s: %w", k.displayPath(rel), err)
		}
		if err := k.ctx.Err(); err != nil {
			return err
		}
		if n++; n > maxEntries {
			return fmt.Errorf("reading %s: more than %d entries", k.displayPath(rel), maxEntries)
		}
		name := rel
		if p != base {
			name = path.Join(rel, strings.TrimPrefix(p, base+"/"))
		}
		switch t := d.Type(); {
		case t.IsDir():
			return nil
		case t&fs.ModeSymlink != 0:
			target, err := fs.ReadLink(k.fsys, p)
			if err != nil {
				return fmt.Errorf("reading the link %s: %w", k.displayPath(name), err)
			}
			to, _, err := k.resolve(name)
			if err != nil {
				return err
			}
			return fn(kitEntry{name: name, link: target, target: to, mode: 0o777})
		}
		data, err := k.read(name) // refuses a FIFO, device or socket unopened
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if info, err := d.Info(); err == nil {
			mode = info.Mode().Perm()
		}
		return fn(kitEntry{name: name, mode: mode, data: data})
	})
}

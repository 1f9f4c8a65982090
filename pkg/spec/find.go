package spec

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Find walks the directory root of the operating system for kits and
// returns their paths, as LoadPath takes them, in walk order: each
// directory that holds one kit, and each descriptor file of a directory
// that holds several (ErrAmbiguousKit names no single kit, so a search
// over a repository judges every kit in it rather than stopping there).
// Hidden directories, node_modules and vendor are skipped (root itself
// never is). The walk stops with ctx's error when ctx is done, and with
// the error of a directory it cannot read.
func Find(ctx context.Context, root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
			return filepath.SkipDir
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		// From the parent, so that Locate's messages name the directory.
		base := filepath.Base(abs)
		_, err = Locate(os.DirFS(filepath.Dir(abs)), base, base)
		var le *LocateError
		switch {
		case err == nil:
			out = append(out, p)
		case errors.As(err, &le) && errors.Is(err, ErrAmbiguousKit):
			for _, c := range le.Candidates {
				out = append(out, filepath.Join(p, path.Base(c)))
			}
		}
		return nil
	})
	return out, err
}

// Enclosing returns the kit the file or directory p belongs to, as a path
// LoadPath takes: p itself when it is a descriptor file, else the
// descriptor of the nearest directory, from p's own upwards, that holds a
// kit. The search goes no higher than the directory stop (a working
// directory, say): it ends after stop, or after p's directory when p is
// not under stop. p need not exist: a deleted file belongs to the kit of
// its nearest existing directory. It reports false when no directory
// searched holds a kit.
func Enclosing(p, stop string) (string, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return enclosing(existingParent(p), true, stop)
	}
	return enclosing(p, fi.IsDir(), stop)
}

func enclosing(p string, isDir bool, stop string) (string, bool) {
	if !isDir && isDescriptorFile(p) {
		return p, true
	}
	dir := p
	if !isDir {
		dir = filepath.Dir(p)
	}
	stop, err := filepath.Abs(stop)
	if err != nil {
		return "", false
	}
	for {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", false
		}
		if name, err := Locate(os.DirFS(abs), ".", filepath.Base(abs)); err == nil {
			return filepath.Join(dir, name), true
		}
		if rel, err := filepath.Rel(stop, abs); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", false // at or outside stop
		}
		dir = filepath.Dir(dir)
	}
}

// existingParent returns the nearest directory of p that exists.
func existingParent(p string) string {
	dir := filepath.Dir(p)
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// isDescriptorFile reports whether p is the descriptor its directory's
// kit is located by.
func isDescriptorFile(p string) bool {
	abs, err := filepath.Abs(filepath.Dir(p))
	if err != nil {
		return false
	}
	found, err := Locate(os.DirFS(abs), ".", filepath.Base(abs))
	return err == nil && found == filepath.Base(p)
}

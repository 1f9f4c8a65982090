package spec

import (
	"bytes"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// overlaid returns fsys with the WithOverlay files in place of theirs.
func (o loadOptions) overlaid(fsys fs.FS) fs.FS {
	files := make(map[string][]byte, len(o.overlay))
	for display, b := range o.overlay {
		name := filepath.ToSlash(display)
		if o.displayDir != "" {
			rel, err := filepath.Rel(o.displayDir, display)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			name = filepath.ToSlash(rel)
		}
		files[path.Clean(name)] = b
	}
	return overlayFS{base: fsys, files: files}
}

// overlayFS reads files from base, except those in files.
type overlayFS struct {
	base  fs.FS
	files map[string][]byte
}

func (o overlayFS) Open(name string) (fs.File, error) {
	b, ok := o.files[name]
	if !ok {
		return o.base.Open(name)
	}
	fi, err := fs.Stat(o.base, name) // the file must exist, and keeps its mode
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return o.base.Open(name)
	}
	return &memFile{r: bytes.NewReader(b), info: memInfo{name: path.Base(name), size: int64(len(b)), mode: fi.Mode(), mod: fi.ModTime()}}, nil
}

type memFile struct {
	r    *bytes.Reader
	info memInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return i.mode }
func (i memInfo) ModTime() time.Time { return i.mod }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

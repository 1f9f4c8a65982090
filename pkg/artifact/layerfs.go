package artifact

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// Layer read bounds: how many entries all of an image's layers may hold,
// and how many file bytes a check keeps in memory at once.
const (
	maxLayerEntries   = 1 << 20
	maxCapturedTotal  = 64 << 20
	maxStagedFile     = 1 << 20
	maxAccountFile    = 1 << 20
	maxPackageDBFile  = 32 << 20
	maxSymlinkHops    = 40
	opaqueWhiteout    = ".wh..wh..opq"
	whiteoutPrefix    = ".wh."
	typeImpliedDir    = 'D' // a directory no layer wrote an entry for
	typeDir           = tar.TypeDir
	typeReg           = tar.TypeReg
	typeSymlink       = tar.TypeSymlink
	typeHardlink      = tar.TypeLink
	maxDanglingReport = 20
)

// fsNode is one path of the composed filesystem of an image's layers.
type fsNode struct {
	parent   *fsNode
	name     string
	children map[string]*fsNode
	// layer is the index of the layer that wrote the entry (or implied
	// the directory).
	layer int
	typ   byte
	mode  int64
	uid   int
	gid   int
	size  int64
	// link is a symlink's target as written, or a hard link's target as
	// an absolute path.
	link string
	// content is the file's bytes when a check asked for them and they fit.
	content  []byte
	captured bool
	tooLarge bool
}

func (n *fsNode) isDir() bool { return n.typ == typeDir || n.typ == typeImpliedDir }

// explicit reports whether a layer wrote an entry for the path, rather than
// the path being implied by entries below it.
func (n *fsNode) explicit() bool { return n.typ != typeImpliedDir }

func (n *fsNode) path() string {
	if n.parent == nil {
		return "/"
	}
	var parts []string
	for c := n; c.parent != nil; c = c.parent {
		parts = append(parts, c.name)
	}
	slices.Reverse(parts)
	return "/" + strings.Join(parts, "/")
}

// layerFS is the filesystem an image's layers compose to, applied in order
// with OCI whiteouts. It keeps every entry's metadata and, for the few
// paths a check reads, bounded contents.
type layerFS struct {
	root    *fsNode
	entries int
	// budget is what the names, link targets and contents kept may take;
	// one budget is shared by every layerFS of a Check or Inspect.
	budget *memBudget
	// want returns how many bytes of a regular file to keep (0: none).
	want func(p string) int64
}

// newLayerFS starts an empty filesystem charging b (a fresh budget when
// nil).
func newLayerFS(want func(string) int64, b *memBudget) *layerFS {
	if b == nil {
		b = newMemBudget()
	}
	return &layerFS{root: &fsNode{typ: typeImpliedDir, children: map[string]*fsNode{}}, want: want, budget: b}
}

// Memory bounds of one Check or Inspect: what it keeps of every layer of
// every platform, together.
const (
	// maxCheckMemory bounds the names, link targets and file contents kept.
	maxCheckMemory = 80 << 20
	// entryOverhead is what one kept entry costs besides its name and link.
	entryOverhead = 200
	// maxPathBytes is Linux's PATH_MAX: no unpacker creates an entry whose
	// name or symbolic link target is longer.
	maxPathBytes = 4096
)

// memBudget is the memory one Check or Inspect may spend on what it keeps
// of the layers, and how much file content it has captured. It is used
// by one goroutine at a time.
type memBudget struct {
	used, limit          int64
	captured, captureCap int64
}

func newMemBudget() *memBudget {
	return &memBudget{limit: maxCheckMemory, captureCap: maxCapturedTotal}
}

// charge spends n bytes, failing with ErrTooLarge past the limit.
func (b *memBudget) charge(n int64) error {
	b.used += n
	if b.used > b.limit {
		return fmt.Errorf("%w: the layers' names, link targets and the file contents a check reads take more than the %d MiB one check may hold", ErrTooLarge, b.limit>>20)
	}
	return nil
}

// layerPath cleans an entry name to an absolute path; names that climb
// above the root are clamped to it, as an unpacker would.
func layerPath(name string) string { return path.Clean("/" + name) }

// apply adds one layer's tar stream on top of what is there.
func (f *layerFS) apply(ctx context.Context, r io.Reader, layer int) error {
	tr := tar.NewReader(ctxReader{ctx, r})
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if f.entries++; f.entries > maxLayerEntries {
			return fmt.Errorf("%w: the layers hold more than %d entries", ErrTooLarge, maxLayerEntries)
		}
		if len(hdr.Name) > maxPathBytes || len(hdr.Linkname) > maxPathBytes {
			return fmt.Errorf("%w: entry %.64q… has a name or link target of %d bytes; a path is at most %d bytes (PATH_MAX), so no unpacker can create it",
				ErrMalformed, hdr.Name, max(len(hdr.Name), len(hdr.Linkname)), maxPathBytes)
		}
		if err := f.budget.charge(entryOverhead + int64(len(hdr.Name)+len(hdr.Linkname))); err != nil {
			return err
		}
		p := layerPath(hdr.Name)
		if p == "/" {
			continue
		}
		dir, base := path.Dir(p), path.Base(p)
		switch {
		case base == opaqueWhiteout:
			d := f.ensureDir(dir, layer)
			for k, c := range d.children {
				if c.layer < layer {
					delete(d.children, k)
				}
			}
			continue
		case strings.HasPrefix(base, whiteoutPrefix):
			if d := f.lookup(dir, false); d != nil && d.isDir() {
				if c := d.children[strings.TrimPrefix(base, whiteoutPrefix)]; c != nil && c.layer < layer {
					delete(d.children, c.name)
				}
			}
			continue
		}
		n := f.put(f.ensureDir(dir, layer), base, hdr, layer)
		if n.typ == typeReg {
			if err := f.capture(n, p, tr, hdr.Size); err != nil {
				return err
			}
		}
	}
}

// put records an entry in parent; a directory entry over a directory keeps
// the children, anything else replaces what was there.
func (f *layerFS) put(parent *fsNode, base string, hdr *tar.Header, layer int) *fsNode {
	typ := hdr.Typeflag
	if typ == '\x00' { // tar.TypeRegA, which old archives still write
		typ = typeReg
	}
	n := parent.children[base]
	if n == nil || !(n.isDir() && typ == typeDir) {
		n = &fsNode{parent: parent, name: base}
		parent.children[base] = n
	}
	n.layer, n.typ, n.mode, n.uid, n.gid, n.size = layer, typ, hdr.Mode, hdr.Uid, hdr.Gid, hdr.Size
	n.link, n.content, n.captured, n.tooLarge = "", nil, false, false
	switch typ {
	case typeDir:
		if n.children == nil {
			n.children = map[string]*fsNode{}
		}
	case typeSymlink:
		n.link = hdr.Linkname
	case typeHardlink:
		n.link = layerPath(hdr.Linkname)
	}
	return n
}

func (f *layerFS) capture(n *fsNode, p string, r io.Reader, size int64) error {
	limit := f.want(p)
	if limit <= 0 {
		return nil
	}
	if size > limit || f.budget.captured+size > f.budget.captureCap {
		n.tooLarge = true
		return nil
	}
	if err := f.budget.charge(size); err != nil {
		return err
	}
	b, err := io.ReadAll(io.LimitReader(r, limit))
	if err != nil {
		return err
	}
	n.content, n.captured = b, true
	f.budget.captured += int64(len(b))
	return nil
}

// ensureDir returns the directory at p, implying any missing one and
// replacing a non-directory in the way, as applying a layer does.
func (f *layerFS) ensureDir(p string, layer int) *fsNode {
	cur := f.root
	for _, part := range splitPath(p) {
		c := cur.children[part]
		if c == nil || !c.isDir() {
			c = &fsNode{parent: cur, name: part, typ: typeImpliedDir, layer: layer, children: map[string]*fsNode{}}
			cur.children[part] = c
		}
		cur = c
	}
	return cur
}

func splitPath(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// lookup resolves p in the composed filesystem, following symbolic links
// on the way (and at the end when follow is set) and hard links at the end
// when follow is set. It returns nil when nothing is there or a link loops.
func (f *layerFS) lookup(p string, follow bool) *fsNode {
	hops := 0
	cur := f.root
	parts := splitPath(p)
	for i := 0; i < len(parts); i++ {
		part := parts[i]
		if part == ".." {
			if cur.parent != nil {
				cur = cur.parent
			}
			continue
		}
		if !cur.isDir() {
			return nil
		}
		c := cur.children[part]
		if c == nil {
			return nil
		}
		last := i == len(parts)-1
		if (c.typ == typeSymlink || c.typ == typeHardlink && last) && (!last || follow) {
			if hops++; hops > maxSymlinkHops {
				return nil
			}
			target := c.link
			if strings.HasPrefix(target, "/") {
				cur = f.root
			}
			parts = append(splitPath(target), parts[i+1:]...)
			i = -1
			continue
		}
		cur = c
	}
	return cur
}

// walk calls fn for every node under n, in path order.
func walk(n *fsNode, fn func(*fsNode)) {
	names := make([]string, 0, len(n.children))
	for k := range n.children {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		c := n.children[k]
		fn(c)
		if c.isDir() {
			walk(c, fn)
		}
	}
}

// Symlink is a symbolic link a layer ships, with its target as written.
type Symlink struct {
	Path   string `json:"path"`
	Target string `json:"target"`
}

// danglingLinks lists the symbolic links whose targets do not resolve
// within the filesystem.
func (f *layerFS) danglingLinks() []Symlink {
	var out []Symlink
	walk(f.root, func(n *fsNode) {
		if n.typ == typeSymlink && f.lookup(n.path(), true) == nil {
			out = append(out, Symlink{Path: n.path(), Target: n.link})
		}
	})
	return out
}

// ctxReader stops a layer read when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

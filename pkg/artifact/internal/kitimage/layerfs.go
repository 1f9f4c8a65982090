package kitimage

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
	TypeImpliedDir    = 'D' // a directory no layer wrote an entry for
	TypeDir           = tar.TypeDir
	TypeReg           = tar.TypeReg
	TypeSymlink       = tar.TypeSymlink
	TypeHardlink      = tar.TypeLink
	MaxDanglingReport = 20
)

// Node is one path of the composed filesystem of an image's layers.
type Node struct {
	Parent   *Node
	Name     string
	Children map[string]*Node
	// Layer is the index of the layer that wrote the entry (or implied
	// the directory).
	Layer int
	Type  byte
	Mode  int64
	UID   int
	GID   int
	Size  int64
	// Link is a symlink's target as written, or a hard link's target as
	// an absolute path.
	Link string
	// Content is the file's bytes when a check asked for them and they fit.
	Content  []byte
	Captured bool
	TooLarge bool
}

func (n *Node) IsDir() bool { return n.Type == TypeDir || n.Type == TypeImpliedDir }

// Explicit reports whether a layer wrote an entry for the path, rather than
// the path being implied by entries below it.
func (n *Node) Explicit() bool { return n.Type != TypeImpliedDir }

func (n *Node) Path() string {
	if n.Parent == nil {
		return "/"
	}
	var parts []string
	for c := n; c.Parent != nil; c = c.Parent {
		parts = append(parts, c.Name)
	}
	slices.Reverse(parts)
	return "/" + strings.Join(parts, "/")
}

// FS is the filesystem an image's layers compose to, applied in order
// with OCI whiteouts. It keeps every entry's metadata and, for the few
// paths a check reads, bounded contents.
type FS struct {
	Root    *Node
	entries int
	// budget is what the names, link targets and contents kept may take;
	// one budget is shared by every layerFS of a Check or Inspect.
	budget *Budget
	// want returns how many bytes of a regular file to keep (0: none).
	want func(p string) int64
}

// NewFS starts an empty filesystem charging b (a fresh budget when
// nil).
func NewFS(want func(string) int64, b *Budget) *FS {
	if b == nil {
		b = NewBudget()
	}
	return &FS{Root: &Node{Type: TypeImpliedDir, Children: map[string]*Node{}}, want: want, budget: b}
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

// Budget is the memory one Check or Inspect may spend on what it keeps
// of the layers, and how much file content it has captured. It is used
// by one goroutine at a time.
type Budget struct {
	used, limit          int64
	captured, captureCap int64
}

func NewBudget() *Budget {
	return &Budget{limit: maxCheckMemory, captureCap: maxCapturedTotal}
}

// charge spends n bytes, failing with ErrTooLarge past the limit.
func (b *Budget) charge(n int64) error {
	b.used += n
	if b.used > b.limit {
		return fmt.Errorf("%w: the layers' names, link targets and the file contents a check reads take more than the %d MiB one check may hold", errTooLarge, b.limit>>20)
	}
	return nil
}

// layerPath cleans an entry name to an absolute path; names that climb
// above the root are clamped to it, as an unpacker would.
func layerPath(name string) string { return path.Clean("/" + name) }

// Apply adds one layer's tar stream on top of what is there.
func (f *FS) Apply(ctx context.Context, r io.Reader, layer int) error {
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
			return fmt.Errorf("%w: the layers hold more than %d entries", errTooLarge, maxLayerEntries)
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
			for k, c := range d.Children {
				if c.Layer < layer {
					delete(d.Children, k)
				}
			}
			continue
		case strings.HasPrefix(base, whiteoutPrefix):
			if d := f.Lookup(dir, false); d != nil && d.IsDir() {
				if c := d.Children[strings.TrimPrefix(base, whiteoutPrefix)]; c != nil && c.Layer < layer {
					delete(d.Children, c.Name)
				}
			}
			continue
		}
		n := f.put(f.ensureDir(dir, layer), base, hdr, layer)
		if n.Type == TypeReg {
			if err := f.capture(n, p, tr, hdr.Size); err != nil {
				return err
			}
		}
	}
}

// put records an entry in parent; a directory entry over a directory keeps
// the children, anything else replaces what was there.
func (f *FS) put(parent *Node, base string, hdr *tar.Header, layer int) *Node {
	typ := hdr.Typeflag
	if typ == '\x00' { // tar.TypeRegA, which old archives still write
		typ = TypeReg
	}
	n := parent.Children[base]
	if n == nil || !(n.IsDir() && typ == TypeDir) {
		n = &Node{Parent: parent, Name: base}
		parent.Children[base] = n
	}
	n.Layer, n.Type, n.Mode, n.UID, n.GID, n.Size = layer, typ, hdr.Mode, hdr.Uid, hdr.Gid, hdr.Size
	n.Link, n.Content, n.Captured, n.TooLarge = "", nil, false, false
	switch typ {
	case TypeDir:
		if n.Children == nil {
			n.Children = map[string]*Node{}
		}
	case TypeSymlink:
		n.Link = hdr.Linkname
	case TypeHardlink:
		n.Link = layerPath(hdr.Linkname)
	}
	return n
}

func (f *FS) capture(n *Node, p string, r io.Reader, size int64) error {
	limit := f.want(p)
	if limit <= 0 {
		return nil
	}
	if size > limit || f.budget.captured+size > f.budget.captureCap {
		n.TooLarge = true
		return nil
	}
	if err := f.budget.charge(size); err != nil {
		return err
	}
	b, err := io.ReadAll(io.LimitReader(r, limit))
	if err != nil {
		return err
	}
	n.Content, n.Captured = b, true
	f.budget.captured += int64(len(b))
	return nil
}

// ensureDir returns the directory at p, implying any missing one and
// replacing a non-directory in the way, as applying a layer does.
func (f *FS) ensureDir(p string, layer int) *Node {
	cur := f.Root
	for _, part := range splitPath(p) {
		c := cur.Children[part]
		if c == nil || !c.IsDir() {
			c = &Node{Parent: cur, Name: part, Type: TypeImpliedDir, Layer: layer, Children: map[string]*Node{}}
			cur.Children[part] = c
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

// Lookup resolves p in the composed filesystem, following symbolic links
// on the way (and at the end when follow is set) and hard links at the end
// when follow is set. It returns nil when nothing is there or a link loops.
func (f *FS) Lookup(p string, follow bool) *Node {
	hops := 0
	cur := f.Root
	parts := splitPath(p)
	for i := 0; i < len(parts); i++ {
		part := parts[i]
		if part == ".." {
			if cur.Parent != nil {
				cur = cur.Parent
			}
			continue
		}
		if !cur.IsDir() {
			return nil
		}
		c := cur.Children[part]
		if c == nil {
			return nil
		}
		last := i == len(parts)-1
		if (c.Type == TypeSymlink || c.Type == TypeHardlink && last) && (!last || follow) {
			if hops++; hops > maxSymlinkHops {
				return nil
			}
			target := c.Link
			if strings.HasPrefix(target, "/") {
				cur = f.Root
			}
			parts = append(splitPath(target), parts[i+1:]...)
			i = -1
			continue
		}
		cur = c
	}
	return cur
}

// Walk calls fn for every node under n, in path order.
func Walk(n *Node, fn func(*Node)) {
	names := make([]string, 0, len(n.Children))
	for k := range n.Children {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		c := n.Children[k]
		fn(c)
		if c.IsDir() {
			Walk(c, fn)
		}
	}
}

// Symlink is a symbolic link a layer ships, with its target as written.
type Symlink struct {
	Path   string `json:"path"`
	Target string `json:"target"`
}

// DanglingLinks lists the symbolic links whose targets do not resolve
// within the filesystem.
func (f *FS) DanglingLinks() []Symlink {
	var out []Symlink
	Walk(f.Root, func(n *Node) {
		if n.Type == TypeSymlink && f.Lookup(n.Path(), true) == nil {
			out = append(out, Symlink{Path: n.Path(), Target: n.Link})
		}
	})
	return out
}

// NewCtxReader returns a reader of r that stops when ctx ends.
func NewCtxReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

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

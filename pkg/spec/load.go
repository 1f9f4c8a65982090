package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// maxFileBytes bounds every kit file read besides the descriptor
// (recipes, context bodies, comment-descriptor Dockerfiles).
const maxFileBytes = 8 << 20

// LoadOption configures Load and LoadPath.
type LoadOption func(*loadOptions)

type loadOptions struct {
	displayDir string
	dirName    string
	overlay    map[string][]byte
}

// WithOverlay makes the files named in files (by display path, as
// Kit.Path and positions name them) read as the bytes given instead of
// their content on disk: an editor's unsaved buffer, or a fix not yet
// written. A file must exist on disk to be overlaid.
func WithOverlay(files map[string][]byte) LoadOption {
	return func(o *loadOptions) { o.overlay = files }
}

// WithDisplayDir sets the directory that display paths (Kit.Path, error
// positions) are shown relative to. By default paths are shown as they are
// inside the file system.
func WithDisplayDir(dir string) LoadOption {
	return func(o *loadOptions) { o.displayDir = dir }
}

// WithDirName sets the kit directory's own name, used to find
// <dirname>.yaml when the directory is given as "." (its name is then
// unknown to the file system).
func WithDirName(name string) LoadOption {
	return func(o *loadOptions) { o.dirName = name }
}

// LoadPath loads the kit at the operating-system path p, a kit directory or
// a descriptor file. Files are read through an os.Root opened at the kit
// directory, so no path or symbolic link can reach outside it. Display
// paths are relative to p as given.
func LoadPath(p string, opts ...LoadOption) (*Kit, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("loading kit: %w", err)
	}
	dir, name := p, "."
	if !fi.IsDir() {
		dir, name = filepath.Dir(p), filepath.Base(p)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("loading kit: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("loading kit: %w", err)
	}
	defer root.Close()
	all := append([]LoadOption{WithDisplayDir(dir), WithDirName(filepath.Base(abs))}, opts...)
	k, err := Load(root.FS(), name, all...)
	if err != nil {
		return nil, err
	}
	k.files.open = rootFiles(abs)
	return k, nil
}

// Load loads a kit from fsys. name is a kit directory or a descriptor file
// (a YAML descriptor, or a Dockerfile carrying a "# kit:" block). A
// directory is searched as Locate describes.
//
// Load reads everything the kit needs (descriptor, recipe, context bodies)
// and keeps fsys only for Kit.ReadFile. It fails only when the kit cannot be
// found or read; problems in the kit's content, YAML syntax errors
// included, are reported by Validate, with positions.
//
// fsys should refuse paths that escape it (as os.Root's file system does):
// Load rejects ".." and absolute paths itself but cannot see where a
// symbolic link points.
func Load(fsys fs.FS, name string, opts ...LoadOption) (*Kit, error) {
	var o loadOptions
	for _, opt := range opts {
		opt(&o)
	}
	name = path.Clean(name)
	if len(o.overlay) > 0 {
		fsys = o.overlaid(fsys)
	}
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("loading kit %s: %w", o.display(name), err)
	}
	dir, file := name, ""
	if fi.IsDir() {
		dirName := path.Base(name)
		if name == "." {
			dirName = o.dirName
		}
		if file, err = Locate(fsys, name, dirName); err != nil {
			var le *LocateError
			if errors.As(err, &le) {
				// show the paths as the caller named them
				le.Dir = o.display(le.Dir)
				for i, c := range le.Candidates {
					le.Candidates[i] = o.display(c)
				}
				return nil, le
			}
			return nil, fmt.Errorf("loading kit %s: %w", o.display(name), err)
		}
	} else {
		dir, file = path.Dir(name), name
	}
	l := loader{fsys: fsys, dir: dir, o: o}
	return l.load(file)
}

func (o loadOptions) display(name string) string {
	if o.displayDir == "" {
		return name
	}
	return filepath.Join(o.displayDir, filepath.FromSlash(name))
}

// Parse decodes a YAML descriptor held in memory. name is used for
// positions and for the stem. A companion recipe cannot be found this way;
// an inline build: recipe is kept.
func Parse(name string, src []byte) (*Kit, error) {
	k := &Kit{Path: name, Dir: filepath.Dir(name), Stem: stemOf(name), Form: FormCompanion}
	if len(src) > MaxDescriptorBytes {
		k.problems.add(false, sizeError(k.Path, len(src)))
		return k, nil
	}
	k.Source = src
	k.addSource(name, src)
	decode(k, src, nil)
	if d := k.Descriptor; d != nil && d.Build != "" {
		k.Form = FormInline
		k.Recipe = inlineRecipe(k)
	} else if d != nil && (d.Kind == KindSet || len(d.Kits) > 0) {
		k.Form = FormSet
	}
	return k, nil
}

type loader struct {
	fsys fs.FS
	dir  string
	o    loadOptions
}

func (l *loader) load(file string) (*Kit, error) {
	k := &Kit{Path: l.o.display(file), Dir: l.o.display(l.dir), Stem: stemOf(file), Files: map[string][]byte{}}
	fsys := l.fsys
	k.files = kitFiles{open: func() (fs.FS, func() error, error) { return fsys, func() error { return nil }, nil },
		dir: l.dir, display: l.o.display}
	if l.o.displayDir == "" && l.dir == "." {
		k.Dir = "."
	}
	if isYAMLName(file) {
		src, tooBig, err := readLimited(l.fsys, file, MaxDescriptorBytes)
		if err != nil {
			return nil, fmt.Errorf("loading kit: %w", err)
		}
		if tooBig >= 0 {
			k.problems.add(false, sizeError(k.Path, tooBig))
			return k, nil
		}
		k.Source = src
		k.addSource(k.Path, src)
		k.Form = FormCompanion
		if slices.Contains(v2SpecFiles, path.Base(file)) && isV2Descriptor(src) {
			k.problems.add(false, v2KitError(k, src))
			return k, nil
		}
		decode(k, src, nil)
		if err := l.recipe(k, file); err != nil {
			return nil, err
		}
	} else {
		src, tooBig, err := readLimited(l.fsys, file, maxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("loading kit: %w", err)
		}
		if tooBig >= 0 {
			k.problems.add(false, &Error{Range: Range{Start: Pos{File: k.Path}}, Code: "file-too-large",
				Msg: fmt.Sprintf("%s is %d bytes, over kitsmith's %d byte limit for a Dockerfile", k.Path, tooBig, maxFileBytes)})
			return k, nil
		}
		block, lines, ok := ExtractComment(src)
		if !ok {
			return nil, fmt.Errorf("loading kit %s: %w: the file is not YAML and carries no %q comment block", k.Path, ErrNoKit, CommentMarker)
		}
		k.Form = FormComment
		k.Source = block
		k.addSource(k.Path, src)
		if len(block) > MaxDescriptorBytes {
			k.problems.add(false, sizeError(k.Path, len(block)))
			return k, nil
		}
		decode(k, block, lines)
		k.Recipe = &Recipe{Path: k.Path, Name: path.Base(file), Text: ContentRecipe(src)}
	}
	if err := l.contextFiles(k); err != nil {
		return nil, err
	}
	return k, nil
}

func sizeError(file string, n int) *Error {
	return &Error{Range: Range{Start: Pos{File: file, Line: 1, Col: 1}}, Code: "size-budget",
		Msg: fmt.Sprintf("descriptor is %d bytes, over the %d byte budget; move bulk into layers", n, MaxDescriptorBytes)}
}

// decode parses src into k: the document with positions, the JSON data
// model, and the typed descriptor. Problems are recorded in k.
func decode(k *Kit, src []byte, lines []LineOrigin) {
	var lm []lineMap
	for _, o := range lines {
		lm = append(lm, lineMap{line: o.Line, colOff: o.Offset})
	}
	if len(src) > WarnDescriptorBytes {
		k.problems.add(true, &Error{Range: Range{Start: Pos{File: k.Path, Line: 1, Col: 1}}, Code: "size-budget",
			Msg: fmt.Sprintf("descriptor is %d bytes, over the %d byte soft budget; move bulk (context bodies, scripts) into layers", len(src), WarnDescriptorBytes)})
	}
	doc, perr := parseDocument(k.Path, src, lm)
	if perr != nil {
		k.problems.add(false, perr)
		return
	}
	k.doc = doc
	v, errs := doc.value()
	k.problems.Errors = append(k.problems.Errors, errs...)
	if len(errs) > 0 {
		return
	}
	k.schemaErrs = checkSchema(doc, v)
	k.value = v
	k.Descriptor = decodeDescriptor(v)
}

// decodeDescriptor fills a Descriptor from the JSON data model, leaving
// fields of the wrong type zero (the schema reports them).
func decodeDescriptor(v any) *Descriptor { return descriptorFrom(v) }

// recipe finds the companion recipe of a YAML descriptor. A recipe that
// exists but cannot be read fails with a *FileError.
func (l *loader) recipe(k *Kit, file string) error {
	d := k.Descriptor
	if d == nil {
		return nil
	}
	companion := path.Join(path.Dir(file), k.Stem+".dockerfile")
	// A companion that exists but cannot be read (a symbolic link
	// escaping the kit directory) is still a companion: reading it
	// reports why.
	_, statErr := fs.Stat(l.fsys, companion)
	hasCompanion := statErr == nil || !errors.Is(statErr, fs.ErrNotExist)
	switch {
	case d.Kind == KindSet || len(d.Kits) > 0:
		k.Form = FormSet
		if hasCompanion {
			k.problems.add(false, newErrorf(k.KeyPosOf("kits"), "kits", "set-declares-no-recipe", "SPEC-v3 §3.4/set-declares-no-recipe",
				"a set's content is its kits: list, but the companion recipe %s also exists; remove or rename it", path.Base(companion)))
		}
	case d.Build != "":
		k.Form = FormInline
		k.Recipe = inlineRecipe(k)
		if hasCompanion && d.Dockerfile == "" {
			k.problems.add(false, newErrorf(k.KeyPosOf("build"), "build", "one-recipe", "",
				"build: is declared and the companion recipe %s also exists; a kit's content recipe lives in exactly one place", path.Base(companion)))
		}
	case d.Dockerfile != "":
		name, ok := cleanRel(d.Dockerfile)
		if !ok {
			return nil // Validate reports dockerfile-inside-context
		}
		name = path.Join(path.Dir(file), name)
		text, tooBig, err := readLimited(l.fsys, name, maxFileBytes)
		switch {
		case ioFailure(err):
			return &FileError{What: "dockerfile:", Path: l.o.display(name), Err: err}
		case err != nil:
			k.unreadRecipe = true
			k.problems.add(false, newErrorf(k.PosOf("dockerfile"), "dockerfile", fileCode(err), fileRef(err),
				"dockerfile: names %q, which %s", d.Dockerfile, describeFileErr(err)))
		case tooBig >= 0:
			k.problems.add(false, newErrorf(k.PosOf("dockerfile"), "dockerfile", "file-too-large", "",
				"dockerfile: %q is %d bytes, over kitsmith's %d byte limit", d.Dockerfile, tooBig, maxFileBytes))
		default:
			k.Recipe = &Recipe{Path: l.o.display(name), Name: name, Text: text}
			k.addSource(k.Recipe.Path, text)
		}
	case hasCompanion:
		text, tooBig, err := readLimited(l.fsys, companion, maxFileBytes)
		switch {
		case ioFailure(err):
			return &FileError{What: "companion recipe", Path: l.o.display(companion), Err: err}
		case err != nil:
			k.unreadRecipe = true
			k.problems.add(false, newErrorf(Range{Start: Pos{File: l.o.display(companion)}}, "", fileCode(err), fileRef(err),
				"companion recipe %s %s", path.Base(companion), describeFileErr(err)))
		case tooBig >= 0:
			k.problems.add(false, newErrorf(Range{Start: Pos{File: l.o.display(companion)}}, "", "file-too-large", "",
				"companion recipe %s is %d bytes, over kitsmith's %d byte limit", path.Base(companion), tooBig, maxFileBytes))
		default:
			k.Recipe = &Recipe{Path: l.o.display(companion), Name: companion, Text: text}
			k.addSource(k.Recipe.Path, text)
		}
	default:
		k.nearMissRecipe = nearMissCompanion(l.fsys, companion)
	}
	return nil
}

func inlineRecipe(k *Kit) *Recipe {
	r := &Recipe{Path: k.Path, Text: []byte(k.Descriptor.Build), Inline: true}
	if k.doc == nil {
		return r
	}
	_, n, ok := k.doc.find([]string{"build"})
	if !ok || n == nil {
		return r
	}
	r.lines = scalarLines(k.doc, n)
	return r
}

// cleanRel cleans a path relative to the kit directory and reports whether
// it stays inside it.
func cleanRel(p string) (string, bool) {
	if p == "" || strings.ContainsRune(p, 0) || path.IsAbs(p) || strings.HasPrefix(p, "\\") {
		return "", false
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") || c == "." {
		return "", false
	}
	return c, true
}

func fileCode(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "file-missing"
	}
	return "file-escapes"
}

func fileRef(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return "SPEC-v3 §4/dockerfile-inside-context"
}

func describeFileErr(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist in the kit directory; add the file or fix the path"
	case errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes"):
		return "resolves outside the kit directory (a symbolic link points out of it); copy the file into the kit directory"
	case errors.As(err, &pe):
		return "cannot be read: " + pe.Err.Error()
	}
	return "cannot be read: " + err.Error()
}

// contextFiles reads the agent-context contentFile bodies the descriptor
// names. A body that exists but cannot be read fails with a *FileError.
func (l *loader) contextFiles(k *Kit) error {
	d := k.Descriptor
	if d == nil {
		return nil
	}
	for _, e := range d.Entries() {
		if e.Type != TypeAgentContext || e.Config == nil {
			continue
		}
		cf, ok := e.Config["contentFile"].(string)
		if !ok || cf == "" || hasRef(cf) {
			continue
		}
		f := field(e.Field(), "config", "contentFile")
		name, ok := cleanRel(cf)
		if !ok {
			continue // Validate reports the path itself
		}
		full := path.Join(l.dir, name)
		body, tooBig, err := readLimited(l.fsys, full, maxFileBytes)
		switch {
		case ioFailure(err):
			return &FileError{What: "contentFile", Path: l.o.display(full), Err: err}
		case err != nil:
			k.problems.add(false, newErrorf(k.PosOf(f), f, fileCode(err), "",
				"contentFile %q %s", cf, describeFileErr(err)))
		case tooBig >= 0:
			k.problems.add(false, newErrorf(k.PosOf(f), f, "file-too-large", "",
				"contentFile %q is %d bytes, over kitsmith's %d byte limit", cf, tooBig, maxFileBytes))
		default:
			k.Files[name] = body
		}
	}
	return nil
}

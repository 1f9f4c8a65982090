package spec

import (
	"path"

	"gopkg.in/yaml.v3"
)

// Form is how a kit source is authored (SPEC-v3 §3).
type Form int

// Authoring forms.
const (
	// FormCompanion is a YAML descriptor, with its recipe (if any) in a
	// companion file: <stem>.dockerfile or the file named by dockerfile:.
	// Without a recipe the kit is declaration-only.
	FormCompanion Form = iota + 1
	// FormInline is a YAML descriptor whose recipe is its build: field.
	FormInline
	// FormComment is a Dockerfile carrying its descriptor in a "# kit:"
	// comment block.
	FormComment
	// FormSet is a YAML descriptor whose content is a kits: list.
	FormSet
)

// String returns the form's name: companion, inline, comment or set.
func (f Form) String() string {
	switch f {
	case FormCompanion:
		return "companion"
	case FormInline:
		return "inline"
	case FormComment:
		return "comment"
	case FormSet:
		return "set"
	}
	return "unknown"
}

// Kit is a loaded kit source: its descriptor, decoded with source positions,
// and the files the descriptor names.
type Kit struct {
	// Path is the display path of the file holding the descriptor: the
	// YAML file, or the Dockerfile of a comment descriptor.
	Path string
	// Dir is the display path of the kit directory (the build context).
	Dir string
	// Stem is the kit's name in staged paths: the descriptor's base name
	// without its extension.
	Stem string
	// Form is the authoring form.
	Form Form
	// Source is the descriptor YAML: the file, or the dedented comment
	// block of a comment descriptor.
	Source []byte
	// Descriptor is the decoded descriptor, or nil when Source is not a
	// YAML mapping. Values of the wrong type are left zero; Validate
	// reports them.
	Descriptor *Descriptor
	// Recipe is the content recipe, or nil for declaration-only kits and
	// sets.
	Recipe *Recipe
	// Files holds the bodies of the kit files the descriptor names
	// (agent-context contentFile), keyed by their cleaned path relative to
	// the kit directory.
	Files map[string][]byte

	doc      *document
	value    any // the descriptor in the JSON data model
	problems Report
	// schemaErrs are the JSON Schema violations of the document.
	schemaErrs Errors
	sources    map[string][]byte
	// unreadRecipe records a recipe that exists but could not be read.
	unreadRecipe bool
	// nearMissRecipe is a file beside a companion-form descriptor without
	// a recipe whose name is the companion's but for case (pi.Dockerfile
	// beside pi.yaml); "" when there is none.
	nearMissRecipe string
	// files is where ReadFile reads.
	files kitFiles
}

// SourceFiles returns the text of the kit's source files (descriptor,
// recipe, and the files ReadFile read) by the display path that positions
// use, for rendering excerpts.
func (k *Kit) SourceFiles() map[string][]byte {
	out := make(map[string][]byte, len(k.sources))
	for p, b := range k.sources {
		out[p] = b
	}
	return out
}

func (k *Kit) addSource(p string, b []byte) {
	if k.sources == nil {
		k.sources = map[string][]byte{}
	}
	k.sources[p] = b
}

// Recipe is a kit's content recipe: the Dockerfile text handed to the
// Dockerfile frontend, and where it came from.
type Recipe struct {
	// Path is the display path of the file the recipe text is in (the
	// descriptor itself for an inline recipe).
	Path string
	// Name is the recipe's path relative to the kit directory, or "" for
	// an inline recipe.
	Name string
	// Text is the Dockerfile handed to the frontend.
	Text []byte
	// Inline reports a build: recipe.
	Inline bool
	// lines maps lines of Text to lines of Path; nil means identity.
	lines []LineOrigin
}

// Pos maps a 1-based line and column of r.Text to a position in r.Path.
func (r *Recipe) Pos(line, col int) Pos {
	if r.lines != nil && line >= 1 && line <= len(r.lines) {
		o := r.lines[line-1]
		return Pos{File: r.Path, Line: o.Line, Col: col + o.Offset}
	}
	return Pos{File: r.Path, Line: line, Col: col}
}

// Problems returns what loading found wrong with the kit's files (YAML
// syntax, a missing named recipe, a path escaping the kit directory).
// Validate includes them.
func (k *Kit) Problems() *Report { return &k.problems }

// PosOf returns the source range of the value at the dotted field path
// (e.g. "capabilities[2].config.apiKey"), or of the nearest enclosing value
// that exists.
func (k *Kit) PosOf(field string) Range {
	if k.doc == nil {
		return Range{Start: Pos{File: k.Path}}
	}
	toks := parseField(field)
	key, val, _ := k.doc.find(toks)
	if val == nil {
		val = key
	}
	return k.doc.rangeOf(val)
}

// ValuePos returns a function that maps a 1-based line and column inside
// the string value at field (a hook command, a file's content) to its
// position in the source file: line by line for literal block scalars
// (|), on the first line for plain and quoted scalars, and to the value's
// start otherwise.
func (k *Kit) ValuePos(field string) func(line, col int) Pos {
	start := k.PosOf(field).Start
	if k.doc == nil {
		return func(int, int) Pos { return start }
	}
	_, n, ok := k.doc.find(parseField(field))
	if !ok || n == nil || n.Kind != yaml.ScalarNode {
		return func(int, int) Pos { return start }
	}
	lines := scalarLines(k.doc, n)
	return func(line, col int) Pos {
		if line < 1 || line > len(lines) || line > 1 && lines[line-1].Line == start.Line {
			return start
		}
		o := lines[line-1]
		return Pos{File: start.File, Line: o.Line, Col: col + o.Offset}
	}
}

// KeyPosOf is like PosOf but points at the key of a mapping entry rather
// than its value, when there is one.
func (k *Kit) KeyPosOf(field string) Range {
	if k.doc == nil {
		return Range{Start: Pos{File: k.Path}}
	}
	key, val, ok := k.doc.find(parseField(field))
	if ok && key != nil {
		return k.doc.rangeOf(key)
	}
	return k.doc.rangeOf(val)
}

func stemOf(name string) string {
	base := path.Base(name)
	if ext := path.Ext(base); ext != "" && ext != base {
		return base[:len(base)-len(ext)]
	}
	return base
}

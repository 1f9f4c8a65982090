package lint

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// TextEdit replaces the bytes [Offset, EndOffset) of File with NewText.
// Range gives the same span as 1-based lines and byte columns (End
// exclusive), for reports and editors. An insertion has Offset ==
// EndOffset.
type TextEdit struct {
	// File is the display path of the file, as finding positions name it.
	File string
	// Range is the replaced span as lines and byte columns.
	Range spec.Range
	// Offset and EndOffset are the replaced span as byte offsets.
	Offset, EndOffset int
	// NewText replaces the span; "" deletes it.
	NewText string
}

// Fix is a machine-applicable change that resolves a finding: one or more
// edits, applied together or not at all.
type Fix struct {
	// Title says what the fix does, as an imperative sentence fragment
	// ("add REGION to the hook's env: list").
	Title string
	// Safe reports a fix that keeps the kit's meaning or strictly narrows
	// it, and never widens its permission surface: lint --fix applies
	// only safe fixes unless told otherwise. A fix that grants authority
	// or changes behaviour is unsafe.
	Safe bool
	// Edits are the text edits, sorted by file and offset, never
	// overlapping.
	Edits []TextEdit
}

// Files returns the files the fix edits, sorted.
func (f Fix) Files() []string {
	var out []string
	for _, e := range f.Edits {
		if !slices.Contains(out, e.File) {
			out = append(out, e.File)
		}
	}
	sort.Strings(out)
	return out
}

// ErrOverlap is returned by ApplyEdits for edits whose spans overlap.
var ErrOverlap = errors.New("edits overlap")

// ApplyEdits applies edits of one file to its text src and returns the new
// text. Edits are applied by offset; they must not overlap (ErrOverlap)
// and must lie within src. Two insertions at one offset are applied in the
// order given.
func ApplyEdits(src []byte, edits []TextEdit) ([]byte, error) {
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b TextEdit) int { return a.Offset - b.Offset })
	var out bytes.Buffer
	at := 0
	for _, e := range sorted {
		if e.Offset < at || e.EndOffset < e.Offset || e.EndOffset > len(src) {
			if e.EndOffset > len(src) || e.EndOffset < e.Offset {
				return nil, fmt.Errorf("edit %d-%d outside the %d bytes of %s", e.Offset, e.EndOffset, len(src), e.File)
			}
			return nil, fmt.Errorf("%s: %w at byte %d", e.File, ErrOverlap, e.Offset)
		}
		out.Write(src[at:e.Offset])
		out.WriteString(e.NewText)
		at = e.EndOffset
	}
	out.Write(src[at:])
	return out.Bytes(), nil
}

// FixSelection chooses which fixes lint --fix applies.
type FixSelection int

// Fix selections.
const (
	// SafeFixes applies only fixes marked Safe.
	SafeFixes FixSelection = iota + 1
	// AllFixes applies unsafe fixes too.
	AllFixes
)

// Planned is one fix chosen for a file, with the finding it resolves.
type Planned struct {
	// Finding is the finding the fix resolves.
	Finding *Finding
	// Fix is the fix chosen.
	Fix Fix
}

// PlanFixes chooses, from the findings of r, the first applicable fix of
// each finding that sel allows, and groups their edits by file. A fix
// whose edits overlap those of a fix chosen before it, or that repeats
// one, is left for the next pass. The edits of every file are sorted by
// offset and never overlap.
func PlanFixes(r *Result, sel FixSelection) (edits map[string][]TextEdit, chosen []Planned) {
	edits = map[string][]TextEdit{}
	for _, f := range r.Findings {
		for _, fx := range f.Fixes {
			if !fx.Safe && sel != AllFixes {
				continue
			}
			if !fits(edits, fx.Edits) {
				continue
			}
			for _, e := range fx.Edits {
				edits[e.File] = append(edits[e.File], e)
			}
			chosen = append(chosen, Planned{Finding: f, Fix: fx})
			break
		}
	}
	for file := range edits {
		slices.SortStableFunc(edits[file], func(a, b TextEdit) int { return a.Offset - b.Offset })
	}
	return edits, chosen
}

// fits reports whether es can join the planned edits: no overlap, and no
// insertion at an offset that already has one (two fixes adding to one
// list would write it twice).
func fits(planned map[string][]TextEdit, es []TextEdit) bool {
	for _, e := range es {
		for _, p := range planned[e.File] {
			if e.Offset < p.EndOffset && p.Offset < e.EndOffset || e.Offset == p.Offset || e.EndOffset == p.EndOffset && e.Offset == e.EndOffset {
				return false
			}
		}
	}
	return true
}

// editAt returns the edit replacing [off, end) of file, whose text is
// src, with text; ok is false when the span is not inside src.
func editAt(file string, src []byte, off, end int, text string) (TextEdit, bool) {
	if off < 0 || end < off || end > len(src) {
		return TextEdit{}, false
	}
	return TextEdit{File: file, Offset: off, EndOffset: end, NewText: text,
		Range: spec.Range{Start: posAt(file, src, off), End: posAt(file, src, end)}}, true
}

// posAt returns the line and byte column of offset off in src.
func posAt(file string, src []byte, off int) spec.Pos {
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return spec.Pos{File: file, Line: line, Col: col}
}

// offsetAt returns the byte offset of a 1-based line and byte column of
// src, or -1 when src has no such place.
func offsetAt(src []byte, line, col int) int {
	if line < 1 || col < 1 {
		return -1
	}
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	end := bytes.IndexByte(src[off:], '\n')
	if end < 0 {
		end = len(src) - off
	}
	if col-1 > end {
		return -1
	}
	return off + col - 1
}

// rangeEdit returns an edit replacing the text of r, a range on one line
// of a kit source file, with text, when r's text is want (want "" accepts
// any).
func (in *Input) rangeEdit(r spec.Range, want, text string) (TextEdit, bool) {
	src := in.source(r.Start.File)
	if src == nil || !r.End.IsValid() || r.End.Line != r.Start.Line {
		return TextEdit{}, false
	}
	off, end := offsetAt(src, r.Start.Line, r.Start.Col), offsetAt(src, r.End.Line, r.End.Col)
	if off < 0 || end < off || want != "" && string(src[off:end]) != want {
		return TextEdit{}, false
	}
	return editAt(r.Start.File, src, off, end, text)
}

// deleteLine returns an edit deleting the whole line line of file (its
// newline included).
func (in *Input) deleteLine(file string, line int) (TextEdit, bool) {
	src := in.source(file)
	off := offsetAt(src, line, 1)
	if off < 0 {
		return TextEdit{}, false
	}
	end := off + bytes.IndexByte(src[off:], '\n') + 1
	if end <= off {
		end = len(src)
	}
	return editAt(file, src, off, end, "")
}

// fix builds a fix from edits, none of which may be missing (ok false
// drops the fix). A fix marked safe that edits the descriptor is checked
// against the permission surface: if applying it widens the surface, it
// is unsafe whatever the rule said.
func (in *Input) fix(title string, safe bool, edits ...TextEdit) []Fix {
	if len(edits) == 0 {
		return nil
	}
	slices.SortStableFunc(edits, func(a, b TextEdit) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Offset - b.Offset
	})
	for i := 1; i < len(edits); i++ {
		if edits[i].File == edits[i-1].File && edits[i].Offset < edits[i-1].EndOffset {
			return nil
		}
	}
	f := Fix{Title: title, Safe: safe, Edits: edits}
	if safe && in.widens(f) {
		f.Safe = false
		f.Title += " (unsafe: it widens the permission surface)"
	}
	return []Fix{f}
}

// widens reports whether applying f to the kit's descriptor would widen
// its permission surface (spec.SurfaceOf). Edits to other files do not
// change the surface.
func (in *Input) widens(f Fix) bool {
	k := in.Kit
	var own []TextEdit
	for _, e := range f.Edits {
		if e.File == k.Path {
			own = append(own, e)
		}
	}
	if len(own) == 0 || k.Descriptor == nil {
		return false
	}
	src := in.source(k.Path)
	if src == nil {
		return true
	}
	after, err := ApplyEdits(src, own)
	if err != nil {
		return true
	}
	d := DescriptorOf(k.Form, k.Path, after)
	if d == nil {
		return false // a fix that breaks the YAML grants nothing; the property tests refuse it
	}
	return len(spec.SurfaceOf(k.Descriptor).Widenings(spec.SurfaceOf(d))) > 0
}

// DescriptorOf decodes the descriptor held by src, the text of a kit's
// descriptor file (a Dockerfile for the comment form), or returns nil when
// it holds none that decodes.
func DescriptorOf(form spec.Form, name string, src []byte) *spec.Descriptor {
	if form == spec.FormComment {
		y, _, ok := spec.ExtractComment(src)
		if !ok {
			return nil
		}
		src = y
	}
	k, err := spec.Parse(name, src)
	if err != nil || k == nil {
		return nil
	}
	return k.Descriptor
}

// runeCol converts a 1-based column counted in characters (as yaml.v3
// counts) on line to a byte column.
func runeCol(line []byte, col int) int {
	b := 0
	for i := 1; i < col && b < len(line); i++ {
		_, n := utf8.DecodeRune(line[b:])
		b += n
	}
	return b + 1
}

package lint

import (
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// scalarPos returns a function mapping a line and column inside the string
// value at field to its position in the source file. Literal block
// scalars (|) map line by line; quoted and plain scalars map columns on
// their first line; folded scalars map everything to their start.
func (in *Input) scalarPos(field string) func(line, col int) spec.Pos {
	k := in.Kit
	start := k.PosOf(field).Start
	lines := in.lines(start.File)
	at := func(n int) string {
		if n >= 1 && n <= len(lines) {
			return strings.TrimRight(lines[n-1], "\r")
		}
		return ""
	}
	first := at(start.Line)
	var ch byte
	if start.Col >= 1 && start.Col <= len(first) {
		ch = first[start.Col-1]
	}
	fallback := func(line, col int) spec.Pos { return start }
	switch ch {
	case '|':
		prefix := 0 // bytes of comment prefix on each line (comment descriptors)
		if k.Form == spec.FormComment {
			prefix = -1
		}
		indent := -1
		return func(line, col int) spec.Pos {
			n := start.Line + line
			text := at(n)
			p := prefix
			if p < 0 {
				p = commentPrefix(text)
			}
			if indent < 0 {
				indent = blockIndent(lines, start.Line, k.Form == spec.FormComment)
			}
			return spec.Pos{File: start.File, Line: n, Col: p + indent + col}
		}
	case '"', '\'':
		return func(line, col int) spec.Pos {
			if line != 1 {
				return start
			}
			return spec.Pos{File: start.File, Line: start.Line, Col: start.Col + col}
		}
	case '>':
		return fallback
	}
	return func(line, col int) spec.Pos {
		if line != 1 {
			return start
		}
		return spec.Pos{File: start.File, Line: start.Line, Col: start.Col - 1 + col}
	}
}

// blockIndent returns the indentation of the first non-blank line after
// the block scalar indicator on line ind.
func blockIndent(lines []string, ind int, comment bool) int {
	for n := ind + 1; n <= len(lines); n++ {
		text := strings.TrimRight(lines[n-1], "\r")
		if comment {
			text = text[min(commentPrefix(text), len(text)):]
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		return len(text) - len(strings.TrimLeft(text, " "))
	}
	return 0
}

// commentPrefix is the number of bytes before a comment descriptor line's
// YAML text: "#", an optional space, and the two-space nesting.
func commentPrefix(text string) int {
	if !strings.HasPrefix(text, "#") {
		return 0
	}
	n := 1
	if strings.HasPrefix(text[1:], " ") {
		n = 2
	}
	if strings.HasPrefix(text[n:], "  ") {
		n += 2
	}
	return n
}

// rangeAt is a range of which only the start is known.
func rangeAt(p spec.Pos) spec.Range { return spec.Range{Start: p} }

// rangeWidth is the range of width bytes starting at p, on one line.
func rangeWidth(p spec.Pos, width int) spec.Range {
	if !p.IsValid() || width <= 0 {
		return spec.Range{Start: p}
	}
	return spec.Range{Start: p, End: spec.Pos{File: p.File, Line: p.Line, Col: p.Col + width}}
}

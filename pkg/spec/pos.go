package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// bytes. The zero Pos means "no position".
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"column,omitempty"`
}

// IsValid reports whether p names a line.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String formats p as file:line:col, dropping the parts that are unknown.
func (p Pos) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(p.Line))
		if p.Col > 0 {
			fmt.Fprintf(&b, ":%d", p.Col)
		}
	}
	return b.String()
}

// Before reports whether p sorts before q: by file, then line, then column.
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Range is the source extent of a node. End is exclusive and may be the zero
// Pos when only the start is known.
type Range struct {
	Start Pos `json:"start"`
	End   Pos `json:"end,omitzero"`
}

// String formats the start of r.
func (r Range) String() string { return r.Start.String() }

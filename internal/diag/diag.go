// Package diag renders compiler-style diagnostics: a source line with a
// caret under the offending column.
package diag

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/kitsmith/kitsmith/internal/textsafe"
)

// Sources holds file contents by the display path used in positions.
type Sources map[string][]byte

// Line returns line n (1-based) of file, without its line terminator.
func (s Sources) Line(file string, n int) (string, bool) {
	src, ok := s[file]
	if !ok || n < 1 {
		return "", false
	}
	for i := 1; ; i++ {
		line, rest, found := bytes.Cut(src, []byte("\n"))
		if i == n {
			return strings.TrimRight(string(line), "\r"), true
		}
		if !found {
			return "", false
		}
		src = rest
	}
}

// Excerpt writes the source line indented by four spaces and, below it, a
// caret under byte column col (1-based), underlining width bytes when width
// is more than one. Tabs before the column are kept so the caret lines up.
// Control characters and invalid UTF-8 are shown escaped (textsafe), with
// the caret under the escaped text. Nothing is written when the line is
// empty or col is out of range.
func Excerpt(w io.Writer, line string, col, width int) {
	if strings.TrimSpace(line) == "" || col < 1 || col > len(line)+1 {
		return
	}
	if esc := textsafe.String(line); esc != line {
		end := min(col-1+max(width, 1), len(line))
		pre, mid := textsafe.String(line[:col-1]), textsafe.String(line[col-1:end])
		line, col, width = esc, len(pre)+1, len(mid)
	}
	const maxLine = 200
	if len(line) > maxLine {
		if col > maxLine {
			return
		}
		line = line[:maxLine] + "…"
	}
	var pad strings.Builder
	for _, r := range line[:col-1] {
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	marks := 1
	if width > 1 {
		end := min(col-1+width, len(line))
		marks = max(utf8.RuneCountInString(line[col-1:end]), 1)
	}
	fmt.Fprintf(w, "    %s\n    %s%s\n", line, pad.String(), "^"+strings.Repeat("~", marks-1))
}

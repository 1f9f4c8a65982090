package lsp

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// lineStart returns the byte offset of 1-based line in src, or -1.
func lineStart(src []byte, line int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off
}

// lspPosition converts a 1-based line and byte column of src to an LSP
// position (0-based line, UTF-16 code units).
func lspPosition(src []byte, p spec.Pos) protocol.Position {
	if p.Line < 1 {
		return protocol.Position{}
	}
	start := lineStart(src, p.Line)
	if start < 0 {
		return protocol.Position{Line: protocol.UInteger(p.Line - 1)}
	}
	end := bytes.IndexByte(src[start:], '\n')
	if end < 0 {
		end = len(src) - start
	}
	line := src[start : start+end]
	col := min(max(p.Col-1, 0), len(line))
	return protocol.Position{Line: protocol.UInteger(p.Line - 1), Character: protocol.UInteger(utf16Len(line[:col]))}
}

func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		n += utf16.RuneLen(r)
		if utf16.RuneLen(r) < 0 {
			n++
		}
		b = b[size:]
	}
	return n
}

// lspRange converts a finding range; an unknown end becomes the end of
// the start's word (or line).
func lspRange(src []byte, r spec.Range) protocol.Range {
	start := lspPosition(src, r.Start)
	if r.End.IsValid() {
		return protocol.Range{Start: start, End: lspPosition(src, r.End)}
	}
	end := r.Start
	if off := byteOffset(src, start); off >= 0 {
		i := off
		for i < len(src) && src[i] != '\n' && src[i] != ' ' {
			i++
		}
		if i == off { // at a blank: to the end of the line
			for i < len(src) && src[i] != '\n' {
				i++
			}
		}
		end.Col += i - off
	}
	return protocol.Range{Start: start, End: lspPosition(src, end)}
}

// byteOffset converts an LSP position to a byte offset of src, clamped to
// its line; -1 when the line does not exist.
func byteOffset(src []byte, p protocol.Position) int {
	start := lineStart(src, int(p.Line)+1)
	if start < 0 {
		return -1
	}
	units := int(p.Character)
	i := start
	for i < len(src) && src[i] != '\n' && units > 0 {
		r, size := utf8.DecodeRune(src[i:])
		units -= max(utf16.RuneLen(r), 1)
		i += size
	}
	return i
}

// offsetPosition converts a byte offset of src to an LSP position.
func offsetPosition(src []byte, off int) protocol.Position {
	off = min(max(off, 0), len(src))
	line := bytes.Count(src[:off], []byte("\n"))
	ls := bytes.LastIndexByte(src[:off], '\n') + 1
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(utf16Len(src[ls:off]))}
}

// applyChange applies one incremental change to text.
func applyChange(text []byte, c protocol.TextDocumentContentChangeEvent) []byte {
	if c.Range == nil {
		return []byte(c.Text)
	}
	start, end := byteOffset(text, c.Range.Start), byteOffset(text, c.Range.End)
	if start < 0 {
		start = len(text)
	}
	if end < 0 {
		end = len(text)
	}
	if end < start {
		start, end = end, start
	}
	out := make([]byte, 0, len(text)-(end-start)+len(c.Text))
	out = append(out, text[:start]...)
	out = append(out, c.Text...)
	return append(out, text[end:]...)
}

// Package textsafe escapes the characters that would let text from a kit,
// an image or a registry control the terminal it is printed on: C0 and C1
// control characters (ESC starts the sequences that move the cursor, clear
// the screen or retitle the window), DEL, bidirectional-override marks
// (which reorder what is shown), and bytes that are not UTF-8.
//
// Text output escapes them; JSON output keeps strings exact, since
// encoding/json escapes control characters itself.
package textsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// unsafe reports a rune that must not reach a terminal as it is. Tab and
// line feed are judged by the caller.
func unsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
		return true // bidirectional marks, embeddings, overrides and isolates
	}
	return false
}

// escape appends s to b with every unsafe rune escaped (\x1b, \u202e) and
// every invalid byte as \xNN; keep says which of tab and line feed stay.
func escape(b *strings.Builder, s string, keep func(rune) bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case keep(r):
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
}

func needsEscape(s string, keep func(rune) bool) bool {
	for _, r := range s {
		if r == utf8.RuneError || unsafe(r) && !keep(r) {
			return true
		}
	}
	return false
}

func keepLayout(r rune) bool { return r == '\t' || r == '\n' || !unsafe(r) && r != utf8.RuneError }
func keepNone(r rune) bool   { return !unsafe(r) && r != utf8.RuneError }

// String escapes s for a terminal, keeping tabs and line feeds (text made
// of several lines). It returns s itself when nothing needs escaping.
func String(s string) string {
	if !needsEscape(s, keepLayout) {
		return s
	}
	var b strings.Builder
	escape(&b, s, keepLayout)
	return b.String()
}

// Inline escapes s for one field on one line: tabs and line feeds are
// escaped too, so a value cannot start a line of its own that passes for
// kitsmith's output.
func Inline(s string) string {
	if !needsEscape(s, keepNone) {
		return s
	}
	var b strings.Builder
	escape(&b, s, keepNone)
	return b.String()
}

// Writer escapes what is written through it as String does. A UTF-8
// sequence split across writes is held back until it is complete; Close
// (or Flush) writes what is held.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer that writes escaped text to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports len(p) on success.
func (w *Writer) Write(p []byte) (int, error) {
	buf := append(w.pending, p...)
	w.pending = nil
	// Hold back an incomplete sequence at the end.
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	w.pending = append(w.pending, buf[cut:]...)
	if _, err := io.WriteString(w.w, String(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held-back incomplete sequence, escaped.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	s := String(string(w.pending))
	w.pending = nil
	_, err := io.WriteString(w.w, s)
	return err
}

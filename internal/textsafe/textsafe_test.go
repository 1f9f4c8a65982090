package textsafe

import (
	"bytes"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		in, str, inline string
	}{
		{in: "plain café ✓", str: "plain café ✓", inline: "plain café ✓"},
		{in: "a\x1b[2Jb", str: `a\x1b[2Jb`, inline: `a\x1b[2Jb`},
		{in: "two\nlines\tand tab", str: "two\nlines\tand tab", inline: `two\nlines\tand tab`},
		{in: "cr\rbell\adel\x7f", str: `cr\rbell\x07del\x7f`, inline: `cr\rbell\x07del\x7f`},
		{in: "c1\u009b31m", str: `c1\u009b31m`, inline: `c1\u009b31m`},
		{in: "evil\u202eexe.txt", str: `evil\u202eexe.txt`, inline: `evil\u202eexe.txt`},
		{in: "bad\xffutf8", str: `bad\xffutf8`, inline: `bad\xffutf8`},
		{in: "\x1b]0;title\x07", str: `\x1b]0;title\x07`, inline: `\x1b]0;title\x07`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := String(tc.in); got != tc.str {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.str)
			}
			if got := Inline(tc.in); got != tc.inline {
				t.Errorf("Inline(%q) = %q, want %q", tc.in, got, tc.inline)
			}
			var b bytes.Buffer
			w := NewWriter(&b)
			for i := range len(tc.in) { // one byte at a time: sequences split across writes
				if _, err := w.Write([]byte{tc.in[i]}); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.str {
				t.Errorf("Writer wrote %q, want %q", b.String(), tc.str)
			}
		})
	}
}

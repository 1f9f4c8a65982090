package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// SPEC-v3 §3.3: the comment block is extracted byte-faithfully.
func TestExtractComment(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		want  string
		lines []LineOrigin
		ok    bool
	}{
		{name: "no marker", src: "FROM scratch\n# kit: x\n"},
		{name: "marker only yields an empty block", src: "# kit:\nFROM scratch\n", want: "", ok: true},
		{name: "block, bare # line, deeper indent, stops at prose",
			src:   "# syntax=docker/dockerfile:1\n# kit:  \t\r\n#   kind: mixin\n#\n#   args:\n#     a: {}\n# prose\n#   not: part\n",
			want:  "kind: mixin\n\nargs:\n  a: {}\n",
			lines: []LineOrigin{{3, 4}, {4, 1}, {5, 4}, {6, 4}}, ok: true},
		{name: "two spaces after # end the block", src: "# kit:\n#  kind: mixin\n", want: "", ok: true},
		{name: "tab after # ends the block", src: "# kit:\n#\tkind: mixin\n", want: "", ok: true},
		{name: "one space ends the block", src: "# kit:\n# kind: mixin\n", want: "", ok: true},
		{name: "CRLF", src: "# kit:\r\n#   kind: mixin\r\n#   x: 1\r\nFROM scratch\r\n",
			want: "kind: mixin\nx: 1\n", lines: []LineOrigin{{2, 4}, {3, 4}}, ok: true},
		{name: "first marker wins, anywhere", src: "FROM a\n# kit:\n#   kind: mixin\nRUN x\n# kit:\n#   kind: workload\n",
			want: "kind: mixin\n", lines: []LineOrigin{{3, 4}}, ok: true},
		{name: "indented marker is not a marker", src: "  # kit:\n#   kind: mixin\n"},
	}
	for _, tc := range tests {
		t.Run("SPEC-v3 §3.3 "+tc.name, func(t *testing.T) {
			got, lines, ok := ExtractComment([]byte(tc.src))
			if diff := cmp.Diff([]any{tc.want, tc.lines, tc.ok}, []any{string(got), lines, ok}); diff != "" {
				t.Errorf("ExtractComment (-want +got):\n%s", diff)
			}
		})
	}
}

// SPEC-v3 §3.3: the content recipe of a comment-descriptor file.
func TestContentRecipe(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{name: "the leading kit directive is neutralized",
			src:  "# syntax=docker/sandbox-kit:3\n# kit:\n#   kind: mixin\nFROM scratch\n",
			want: "# (syntax directive consumed by the kit frontend)\n# kit:\n#   kind: mixin\nFROM scratch\n"},
		{name: "a second syntax line names the content's frontend",
			src:  "# syntax=docker/sandbox-kit:3\n# kit:\n#   kind: mixin\n\n# syntax=docker/dockerfile:1.7\nFROM scratch\n",
			want: "# syntax=docker/dockerfile:1.7\nFROM scratch\n"},
		{name: "a syntax line after the first instruction does not count",
			src:  "# kit:\n#   kind: mixin\nFROM scratch\n# syntax=docker/dockerfile:1\n",
			want: "# kit:\n#   kind: mixin\nFROM scratch\n# syntax=docker/dockerfile:1\n"},
		{name: "a single line", src: "# syntax=x", want: "# (syntax directive consumed by the kit frontend)"},
	}
	for _, tc := range tests {
		t.Run("SPEC-v3 §3.3 "+tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, string(ContentRecipe([]byte(tc.src)))); diff != "" {
				t.Errorf("ContentRecipe (-want +got):\n%s", diff)
			}
		})
	}
}

package lint_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// CheckRecipe refuses what BuildKit refuses, at the line it names, and
// passes what it builds.
func TestCheckRecipe(t *testing.T) {
	tests := []struct {
		name, text string
		want       *spec.RecipeParseError
	}{
		{"a printf string spanning a raw newline", "FROM scratch\nRUN printf \"a\nexport FOO=1\n\" > /etc/x\n",
			&spec.RecipeParseError{Line: 3, Msg: "unknown instruction: export (did you mean expose?)"}},
		{"COPY without a destination", "FROM scratch\nCOPY --from=\n",
			&spec.RecipeParseError{Line: 2, Msg: "COPY requires at least two arguments, a source and a destination"}},
		{"FROM without an image", "FROM\n", &spec.RecipeParseError{Line: 1, Msg: "FROM requires an image"}},
		{"continued lines and here-documents", "FROM scratch\nRUN printf 'a\\n' > /x && \\\n    printf 'b\\n' >> /x\nCOPY <<EOF /y\nhello\nEOF\n", nil},
		{"lower-case instructions", "from scratch\ncopy a b\n", nil},
		{"another frontend's syntax", "# syntax=example.org/other-frontend:1\nFROM scratch\nBUILD things\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, lint.CheckRecipe([]byte(tt.text))); diff != "" {
				t.Errorf("CheckRecipe (-want +got):\n%s", diff)
			}
		})
	}
}

package spec

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// RecipeParseError is where and why BuildKit's Dockerfile parser refuses
// a recipe's text.
type RecipeParseError struct {
	// Line is the 1-based line of the recipe text the parser names.
	Line int
	// Msg is the parser's reason, without its "dockerfile parse error on
	// line N" prefix.
	Msg string
}

// ParseRecipe parses recipe text with BuildKit's own Dockerfile parser and
// its instruction parser, as the build's Dockerfile frontend does, and
// reports the first error; nil when the text parses. A recipe whose
// # syntax= line names a frontend other than a Dockerfile one is only
// split into instructions: its instructions are that frontend's business.
func ParseRecipe(text []byte) *RecipeParseError {
	res, err := parser.Parse(bytes.NewReader(text))
	if err != nil {
		return recipeError(err, 1)
	}
	if foreignSyntax(text) {
		return nil
	}
	for _, n := range res.AST.Children {
		if _, err := instructions.ParseInstruction(n); err != nil {
			return recipeError(err, n.StartLine)
		}
	}
	return nil
}

// foreignSyntax reports a # syntax= directive naming a frontend that is
// not a Dockerfile frontend.
func foreignSyntax(text []byte) bool {
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#") {
			return false
		}
		k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "#")), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "syntax") {
			return !strings.Contains(strings.ToLower(v), "dockerfile")
		}
	}
	return false
}

// recipeError reads the line of a parser error, line when it names none.
func recipeError(err error, line int) *RecipeParseError {
	var le *parser.LocationError
	if errors.As(err, &le) && len(le.Locations) > 0 && len(le.Locations[0]) > 0 && le.Locations[0][0].Start.Line > 0 {
		line = le.Locations[0][0].Start.Line
	}
	var ui *instructions.UnknownInstructionError
	if errors.As(err, &ui) && ui.Line > 0 {
		line = ui.Line
	}
	msg := err.Error()
	if i := strings.Index(msg, "dockerfile parse error on line "); i >= 0 {
		if _, rest, ok := strings.Cut(msg[i:], ": "); ok {
			msg = rest
		}
	}
	return &RecipeParseError{Line: line, Msg: msg}
}

// checkRecipeParses reports a recipe BuildKit cannot parse, at the line
// the parser names: the build would fail there at once.
func (v *validator) checkRecipeParses(r *Recipe) {
	pe := ParseRecipe(r.Text)
	if pe == nil {
		return
	}
	f := ""
	if r.Inline {
		f = "build"
	}
	hint := ""
	if strings.HasPrefix(pe.Msg, "unknown instruction") {
		hint = "; a shell string that spans a raw newline, or a missing \\ at the end of the line before, ends an instruction early and makes the next line an instruction of its own"
	}
	v.semantic.add(false, &Error{Range: Range{Start: r.Pos(pe.Line, 1)}, Field: f, Code: "recipe-parses",
		Msg: fmt.Sprintf("BuildKit cannot parse the content recipe, so the build fails at this line: %s%s", pe.Msg, hint)})
}

package spec

import (
	"fmt"
	"strings"
)

// RecipeParseError is where and why a Dockerfile parser refuses a recipe's
// text.
type RecipeParseError struct {
	// Line is the 1-based line of the recipe text the parser names.
	Line int
	// Msg is the parser's reason.
	Msg string
}

// RecipeCheck parses recipe text as the build's Dockerfile frontend would
// and reports the first error, or nil. The specification package links no
// build system, so the caller supplies it (kitsmith's lint.CheckRecipe
// uses BuildKit's own parser).
type RecipeCheck func(text []byte) *RecipeParseError

// WithRecipeCheck has Validate report a content recipe that check refuses,
// at the line it names, as a recipe-parses error. Without it the recipe's
// syntax is not checked.
func WithRecipeCheck(check RecipeCheck) Option { return func(o *options) { o.recipeCheck = check } }

// checkRecipeParses reports a recipe the recipe check refuses, at the line
// it names: the build would fail there at once.
func (v *validator) checkRecipeParses(r *Recipe) {
	if v.recipeCheck == nil {
		return
	}
	pe := v.recipeCheck(r.Text)
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

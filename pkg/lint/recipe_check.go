package lint

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/command"
	"github.com/moby/buildkit/frontend/dockerfile/parser"

	"github.com/kitsmith/kitsmith/internal/suggest"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

var _ spec.RecipeCheck = CheckRecipe

// CheckRecipe parses recipe text with BuildKit's Dockerfile parser and
// reports the first error as a spec.RecipeParseError at its line: a parse
// error, an instruction BuildKit does not know (a line a raw newline in a
// shell string turned into one), or a FROM, COPY or ADD without the
// arguments BuildKit requires. A recipe whose # syntax= line names a
// frontend other than a Dockerfile one is only parsed. Pass it to
// spec.WithRecipeCheck; Run does.
func CheckRecipe(text []byte) *spec.RecipeParseError {
	res, err := parser.Parse(bytes.NewReader(text))
	if err != nil {
		line := 1
		var le *parser.LocationError
		if errors.As(err, &le) && len(le.Locations) > 0 && len(le.Locations[0]) > 0 && le.Locations[0][0].Start.Line > 0 {
			line = le.Locations[0][0].Start.Line
		}
		msg := err.Error()
		if i := strings.Index(msg, "dockerfile parse error on line "); i >= 0 {
			if _, rest, ok := strings.Cut(msg[i:], ": "); ok {
				msg = rest
			}
		}
		return &spec.RecipeParseError{Line: line, Msg: msg}
	}
	if foreignSyntax(text) {
		return nil
	}
	for _, n := range res.AST.Children {
		kw := strings.ToLower(n.Value)
		if _, ok := command.Commands[kw]; !ok {
			hint := ""
			if best := suggest.Closest(kw, slices.Sorted(maps.Keys(command.Commands)), 3); best != "" {
				hint = " (did you mean " + best + "?)"
			}
			return &spec.RecipeParseError{Line: n.StartLine, Msg: fmt.Sprintf("unknown instruction: %s%s", n.Value, hint)}
		}
		args := 0
		for a := n.Next; a != nil; a = a.Next {
			args++
		}
		switch {
		case (kw == "copy" || kw == "add") && args < 2 && len(n.Heredocs) == 0:
			return &spec.RecipeParseError{Line: n.StartLine, Msg: fmt.Sprintf("%s requires at least two arguments, a source and a destination", strings.ToUpper(kw))}
		case kw == "from" && args == 0:
			return &spec.RecipeParseError{Line: n.StartLine, Msg: "FROM requires an image"}
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

package migrate

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// CommentMarker starts the comment Migrate puts in the generated
// descriptor (or recipe) where a person has to look.
const CommentMarker = "kitsmith:migrate"

// Note is one thing a migration could not do by itself, or did in a way a
// person should know about.
type Note struct {
	// Pos is where the v2 kit says it (its spec.yaml, Dockerfile or a file
	// under files/). Zero when the note is about something the kit lacks.
	Pos spec.Pos `json:"pos,omitzero"`
	// Field is the v2 dotted path, e.g. "credentials[0].oauth.skipIfEnv";
	// empty when the note is about a file or the whole kit.
	Field string `json:"field,omitempty"`
	// Code is a stable kebab-case identifier, e.g. "oauth-skip-if-env".
	Code string `json:"code"`
	// Message says what happened and what to do.
	Message string `json:"message"`
	// Action is true when a person must act before the kit is done;
	// false for a suggestion or a record of a mechanical change.
	Action bool `json:"action"`
}

// String renders the note as "file:line:col: action|note [code] field: message",
// with "-" for a note that has no position.
func (n Note) String() string {
	level := "note"
	if n.Action {
		level = "action"
	}
	where := n.Pos.String()
	if where == "" {
		where = "-"
	}
	if n.Field != "" {
		return fmt.Sprintf("%s: %s [%s] %s: %s", where, level, n.Code, n.Field, n.Message)
	}
	return fmt.Sprintf("%s: %s [%s] %s", where, level, n.Code, n.Message)
}

func sortNotes(ns []Note) {
	sort.SliceStable(ns, func(i, j int) bool {
		a, b := ns[i].Pos, ns[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return ns[i].Code < ns[j].Code
	})
}

// WriteReport writes the human-readable report of r: the files generated,
// every note, the validation errors and warnings, the lint findings, and
// the verdict.
func (r *Result) WriteReport(w io.Writer) error {
	var b strings.Builder
	b.WriteString("files:\n")
	for _, f := range r.Files {
		fmt.Fprintf(&b, "  %s\n", f.Name)
	}
	for _, c := range r.Carried {
		fmt.Fprintf(&b, "  %s (carried from the v2 kit)\n", c)
	}
	fmt.Fprintf(&b, "notes: %d (%d need action)\n", len(r.Notes), r.actions())
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	if r.Validation != nil {
		fmt.Fprintf(&b, "validate: %d errors, %d warnings\n", len(r.Validation.Errors), len(r.Validation.Warnings))
		for _, e := range r.Validation.Errors {
			fmt.Fprintf(&b, "  error %s\n", e)
		}
		for _, e := range r.Validation.Warnings {
			fmt.Fprintf(&b, "  warning %s\n", e)
		}
	}
	if r.Lint != nil {
		fmt.Fprintf(&b, "lint: %d errors, %d warnings, %d info\n", r.Lint.Count(lint.SeverityError),
			r.Lint.Count(lint.SeverityWarning), r.Lint.Count(lint.SeverityInfo))
		for _, f := range r.Lint.Findings {
			fmt.Fprintf(&b, "  %s: %s [%s] %s\n", f.Range.Start, f.Severity, f.RuleID, f.Message)
		}
	}
	if r.NeedsHuman() {
		b.WriteString("result: needs a human\n")
	} else {
		b.WriteString("result: done\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Result) actions() int {
	n := 0
	for _, x := range r.Notes {
		if x.Action {
			n++
		}
	}
	return n
}

package format

import (
	"fmt"
	"io"
	"strings"

	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/lint"
)

// MarkdownLimit is how many findings a Markdown summary lists before it
// says how many more there are.
const MarkdownLimit = 50

// Markdown writes the job summary of a lint run (GitHub's
// GITHUB_STEP_SUMMARY): a heading, the tally, and a table of the findings
// (severity, location, rule linked to its documentation, message), at most
// MarkdownLimit rows; then how many findings suppressions silenced.
type Markdown struct{}

// Format implements Formatter.
func (Markdown) Format(w io.Writer, r *lint.Result) error {
	var b strings.Builder
	b.WriteString("### kitsmith lint\n\n")
	b.WriteString(Summary(r) + "\n")
	if len(r.Findings) > 0 {
		b.WriteString("\n| Severity | Location | Rule | Message |\n|---|---|---|---|\n")
		for i, f := range r.Findings {
			if i == MarkdownLimit {
				fmt.Fprintf(&b, "\n…and %d more (the step log and the SARIF report list every finding).\n", len(r.Findings)-MarkdownLimit)
				break
			}
			loc := f.Range.Start.String()
			if loc == "" {
				loc = f.Kit
			}
			fmt.Fprintf(&b, "| %s | `%s` | [%s](%s) | %s |\n", f.Severity, cell(loc), f.RuleID, lint.HelpURI(f.RuleID), cell(f.Message))
		}
	}
	if n := len(r.Suppressed); n > 0 {
		fmt.Fprintf(&b, "\n%d finding%s silenced by kitsmith:ignore comments.\n", n, plural(n))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell makes text safe in one Markdown table cell.
func cell(s string) string {
	s = textsafe.String(s)
	return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
}

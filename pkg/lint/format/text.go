package format

import (
	"fmt"
	"io"

	"github.com/kitsmith/kitsmith/internal/diag"
	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/lint"
)

// Text writes compiler-style lines, "file:line:col: severity: message
// [rule-id]", each followed by the source line and a caret, then a summary.
// Secrets in source lines are masked (lint.Redact).
type Text struct {
	// Sources provides the source lines of excerpts; nil omits them.
	Sources Sources
	// Color marks up each finding's line with SGR escape sequences: the
	// position bold, the severity red (error), yellow (warning) or cyan
	// (info), the rule ID dim. False writes plain text.
	Color bool
}

// SGR sequences of the coloured text report.
const (
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[1;31m"
	sgrYellow = "\x1b[1;33m"
	sgrCyan   = "\x1b[1;36m"
	sgrReset  = "\x1b[0m"
)

// paint wraps s in an SGR sequence when colour is on.
func (t *Text) paint(sgr, s string) string {
	if !t.Color {
		return s
	}
	return sgr + s + sgrReset
}

func severityColor(s lint.Severity) string {
	switch s {
	case lint.SeverityError:
		return sgrRed
	case lint.SeverityWarning:
		return sgrYellow
	}
	return sgrCyan
}

// Format implements Formatter. Control characters in messages, fixes and
// source lines are escaped (a kit's text must not drive the terminal).
func (t *Text) Format(out io.Writer, r *lint.Result) error {
	w := textsafe.NewWriter(out)
	defer w.Flush()
	secrets := secretSpans(r)
	for _, f := range r.Findings {
		pos := f.Range.Start.String()
		if pos == "" {
			pos = f.Kit
		}
		// The escape sequences go around escaped text, past the escaping writer.
		if err := w.Flush(); err != nil {
			return err
		}
		if _, err := fmt.Fprintf(out, "%s: %s: %s %s\n", t.paint(sgrBold, textsafe.String(pos)), t.paint(severityColor(f.Severity), f.Severity.String()),
			textsafe.String(f.Message), t.paint(sgrDim, "["+textsafe.String(f.RuleID)+"]")); err != nil {
			return err
		}
		if t.Sources != nil {
			if line, ok := t.Sources.Line(f.Range.Start.File, f.Range.Start.Line); ok {
				width := 0
				if f.Range.End.Line == f.Range.Start.Line {
					width = f.Range.End.Col - f.Range.Start.Col
				}
				line = lint.Redact(line, secrets[lineKey{f.Range.Start.File, f.Range.Start.Line}]...)
				diag.Excerpt(w, line, f.Range.Start.Col, width)
			}
		}
		if f.Fix != "" {
			fmt.Fprintf(w, "    fix: %s\n", f.Fix)
		}
		if len(f.Fixes) > 0 {
			how := "kitsmith lint --fix"
			if !f.Fixes[0].Safe {
				how = "unsafe: kitsmith lint --fix --unsafe-fixes"
			}
			fmt.Fprintf(w, "    autofix: %s (%s)\n", f.Fixes[0].Title, how)
		}
	}
	_, err := fmt.Fprintf(w, "%s\n", Summary(r))
	return err
}

// lineKey names one source line.
type lineKey struct {
	file string
	line int
}

// secretSpans collects, by source line, the column spans literal-secret
// findings point at, which excerpts mask.
func secretSpans(r *lint.Result) map[lineKey][][2]int {
	out := map[lineKey][][2]int{}
	for _, f := range r.Findings {
		if f.RuleID != "literal-secret" {
			continue
		}
		end := f.Range.End.Col
		if f.Range.End.Line != f.Range.Start.Line {
			end = f.Range.Start.Col
		}
		k := lineKey{f.Range.Start.File, f.Range.Start.Line}
		out[k] = append(out[k], [2]int{f.Range.Start.Col, end})
	}
	return out
}

// Summary is the one-line tally of a result.
func Summary(r *lint.Result) string {
	e, wn, i := r.Count(lint.SeverityError), r.Count(lint.SeverityWarning), r.Count(lint.SeverityInfo)
	return fmt.Sprintf("%d kit%s linted: %d error%s, %d warning%s, %d info", len(r.Kits), plural(len(r.Kits)), e, plural(e), wn, plural(wn), i)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

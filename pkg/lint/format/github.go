package format

import (
	"fmt"
	"io"
	"strings"

	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/lint"
)

// GitHub writes GitHub Actions workflow commands, one per finding
// ("::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message"),
// which GitHub shows as annotations on the pull request diff. Errors are
// ::error, warnings ::warning and info ::notice; the fix follows the
// message on a new line.
type GitHub struct{}

// Format implements Formatter.
func (GitHub) Format(w io.Writer, r *lint.Result) error {
	for _, f := range r.Findings {
		level := "error"
		switch f.Severity {
		case lint.SeverityWarning:
			level = "warning"
		case lint.SeverityInfo:
			level = "notice"
		}
		p, end := f.Range.Start, f.Range.End
		msg := f.Message
		if f.Fix != "" {
			msg += "\n" + f.Fix
		}
		props := fmt.Sprintf("file=%s,line=%d,col=%d", escapeProperty(p.File), p.Line, p.Col)
		if end.Line == p.Line && end.Col > p.Col+1 {
			// Annotation columns are inclusive; Range.End is exclusive.
			props += fmt.Sprintf(",endLine=%d,endColumn=%d", end.Line, end.Col-1)
		}
		if _, err := fmt.Fprintf(w, "::%s %s,title=%s::%s\n", level, props, escapeProperty("kitsmith "+f.RuleID), escapeData(msg)); err != nil {
			return err
		}
	}
	return nil
}

// escapeData and escapeProperty follow the workflow command escaping
// rules; other control characters are escaped (textsafe), since a CI log
// renders terminal sequences.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(textsafe.String(s))
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(textsafe.String(s))
}

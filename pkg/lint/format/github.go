package format

import (
	"fmt"
	"io"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/lint"
)

// GitHub writes GitHub Actions workflow commands (::error file=…) that
// annotate the pull request diff.
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
		p := f.Range.Start
		msg := f.Message
		if f.Fix != "" {
			msg += "\n" + f.Fix
		}
		if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level,
			escapeProperty(p.File), p.Line, p.Col, escapeProperty("kitsmith "+f.RuleID), escapeData(msg)); err != nil {
			return err
		}
	}
	return nil
}

// escapeData and escapeProperty follow the workflow command escaping
// rules.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

package format

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report"
	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/kitsmith/kitsmith/pkg/lint"
)

// SARIF writes a SARIF 2.1.0 log with one run, the rules' metadata (id,
// summary, help text and URI, default level) and a result per finding.
type SARIF struct {
	ToolVersion string
	BaseDir     string
}

// Format implements Formatter.
func (s *SARIF) Format(w io.Writer, r *lint.Result) error {
	rep := report.NewV210Report()
	run := sarif.NewRunWithInformationURI("kitsmith", "https://github.com/kitsmith/kitsmith")
	if s.ToolVersion != "" {
		run.Tool.Driver.WithVersion(s.ToolVersion)
	}
	index := map[string]int{}
	addRule := func(id, summary, help, uri string, sev lint.Severity) {
		if _, ok := index[id]; ok {
			return
		}
		index[id] = len(index)
		rule := run.AddRule(id).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(summary)).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(summary)).
			WithHelp(sarif.NewMultiformatMessageString().WithText(help).WithMarkdown(help)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(level(sev)))
		if uri != "" {
			rule.WithHelpURI(uri)
		}
	}
	for _, rule := range r.Rules {
		addRule(rule.ID, rule.Summary, rule.Rationale+"\n\nFix: "+rule.Fix, rule.HelpURI(), rule.Severity)
	}
	for _, f := range r.Findings {
		if strings.HasPrefix(f.RuleID, "spec/") {
			addRule(f.RuleID, "The descriptor breaks the Docker Sandboxes kit specification v3.",
				"kitsmith validate reports the same error; see the message for what to change.",
				lint.DocsBase+"spec.md", lint.SeverityError)
		}
		uri := s.uri(f.Range.Start.File)
		region := sarif.NewRegion().WithStartLine(max(f.Range.Start.Line, 1)).WithStartColumn(max(f.Range.Start.Col, 1))
		msg := f.Message
		if f.Fix != "" {
			msg += " Fix: " + f.Fix
		}
		run.CreateResultForRule(f.RuleID).
			WithRuleIndex(index[f.RuleID]).
			WithLevel(level(f.Severity)).
			WithMessage(sarif.NewTextMessage(msg)).
			AddLocation(sarif.NewLocationWithPhysicalLocation(
				sarif.NewPhysicalLocation().
					WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri)).
					WithRegion(region)))
	}
	rep.AddRun(run)
	return rep.PrettyWrite(w)
}

func level(s lint.Severity) string {
	switch s {
	case lint.SeverityError:
		return "error"
	case lint.SeverityWarning:
		return "warning"
	}
	return "note"
}

// uri makes a path relative to BaseDir, with forward slashes, as code
// scanning expects repository-relative URIs.
func (s *SARIF) uri(p string) string {
	if s.BaseDir != "" {
		if abs, err := filepath.Abs(p); err == nil {
			if rel, err := filepath.Rel(s.BaseDir, abs); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
		}
	}
	return filepath.ToSlash(p)
}

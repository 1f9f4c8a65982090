package format

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report"
	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/kitsmith/kitsmith/pkg/lint"
)

// SARIF writes a SARIF 2.1.0 log, as GitHub code scanning accepts it:
// one run, the metadata of every rule that ran (id, summary, rationale and
// fix as help text and markdown, help URI, default level) and a result per
// finding with its rule index, level, message and region.
type SARIF struct {
	// ToolVersion is recorded as the driver's version; "" omits it.
	ToolVersion string
	// BaseDir makes artifact URIs relative to it ("" keeps paths as they
	// are).
	BaseDir string
}

// Format implements Formatter.
func (s *SARIF) Format(w io.Writer, r *lint.Result) error {
	rep := report.NewV210Report()
	run := sarif.NewRunWithInformationURI("kitsmith", "https://github.com/kitsmith/kitsmith")
	if s.ToolVersion != "" {
		run.Tool.Driver.WithVersion(s.ToolVersion)
	}
	index := map[string]int{}
	addRule := func(rule *lint.Rule) {
		if _, ok := index[rule.ID]; ok {
			return
		}
		index[rule.ID] = len(index)
		help, markdown := ruleHelp(rule)
		sr := run.AddRule(rule.ID).
			WithName(ruleName(rule.ID)).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(rule.Summary)).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(strings.TrimSpace(rule.Summary + " " + rule.Rationale))).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(level(rule.Severity)))
		if help != "" {
			sr.WithHelp(sarif.NewMultiformatMessageString().WithText(help).WithMarkdown(markdown))
		}
		if uri := rule.HelpURI(); uri != "" {
			sr.WithHelpURI(uri)
		}
	}
	for _, rule := range r.Rules {
		addRule(rule)
	}
	for _, f := range r.Findings {
		if lint.IsSpecRule(f.RuleID) {
			addRule(lint.SpecRule(strings.TrimPrefix(f.RuleID, lint.SpecPrefix)))
		}
		start, end := f.Range.Start, f.Range.End
		region := sarif.NewRegion().WithStartLine(max(start.Line, 1)).WithStartColumn(max(start.Col, 1))
		if end.Line == start.Line && end.Col > start.Col {
			region.WithEndLine(end.Line).WithEndColumn(end.Col)
		}
		msg := f.Message
		if f.Fix != "" {
			msg += ". Fix: " + f.Fix
		}
		run.CreateResultForRule(f.RuleID).
			WithRuleIndex(index[f.RuleID]).
			WithLevel(level(f.Severity)).
			WithMessage(sarif.NewTextMessage(msg)).
			AddLocation(sarif.NewLocationWithPhysicalLocation(
				sarif.NewPhysicalLocation().
					WithArtifactLocation(sarif.NewSimpleArtifactLocation(s.uri(start.File))).
					WithRegion(region))).
			WithFixes(s.sarifFixes(f))
	}
	rep.AddRun(run)
	return rep.PrettyWrite(w)
}

// ruleName turns a rule ID into the PascalCase name SARIF viewers show.
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '/' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
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

// ruleHelp is a rule's help text and markdown: its rationale, its fix and
// its documentation page, each only when the rule has it, so that a rule
// from elsewhere gets no empty section.
func ruleHelp(rule *lint.Rule) (text, markdown string) {
	var t, m []string
	if rule.Rationale != "" {
		t, m = append(t, rule.Rationale), append(m, rule.Rationale)
	}
	if rule.Fix != "" {
		t, m = append(t, "Fix: "+rule.Fix), append(m, "**Fix:** "+rule.Fix)
	}
	if uri := rule.HelpURI(); uri != "" {
		t, m = append(t, "Documentation: "+uri), append(m, "[Documentation]("+uri+")")
	}
	return strings.Join(t, "\n\n"), strings.Join(m, "\n\n")
}

package format

import (
	"encoding/json"
	"io"

	"github.com/kitsmith/kitsmith/pkg/lint"
)

// FormatVersion is the version of the JSON format JSON writes, under the
// key formatVersion every JSON document kitsmith writes carries. It
// changes only when a field is removed or changes meaning.
const FormatVersion = 1

// JSONFormatVersion is the old name of FormatVersion.
//
// Deprecated: use FormatVersion.
const JSONFormatVersion = FormatVersion

// JSONSchemaVersion is the older name of FormatVersion.
//
// Deprecated: use FormatVersion; the schemaVersion key it named is
// written one more release beside formatVersion.
const JSONSchemaVersion = FormatVersion

// JSON writes the lint result as one JSON document:
//
//	{"formatVersion": 1, "schemaVersion": 1 (deprecated, same value),
//	 "findings": [{"rule", "severity", "message", "file", "line", "column",
//	               "endLine", "endColumn", "fix", "kit", "helpUri",
//	               "fixes": [{"title", "safe", "edits": [{"file", "offset",
//	                          "endOffset", "line", "column", "endLine",
//	                          "endColumn", "newText"}]}]}],
//	 "summary": {"kits", "errors", "warnings", "info"}}
//
// Lines and columns are 1-based, columns count bytes, and endColumn is
// exclusive; endLine and endColumn are omitted when unknown, fix when
// empty, fixes when the finding has none. An edit replaces the bytes
// [offset, endOffset) of file (the same span as lines and byte columns)
// with newText; a safe fix is one lint --fix applies. Findings is [] when
// there are none.
type JSON struct{}

type jsonDoc struct {
	FormatVersion int `json:"formatVersion"`
	// SchemaVersion is the key's old name, kept one release.
	SchemaVersion int           `json:"schemaVersion"`
	Findings      []jsonFinding `json:"findings"`
	Summary       jsonSummary   `json:"summary"`
}

type jsonFinding struct {
	Rule      string    `json:"rule"`
	Severity  string    `json:"severity"`
	Message   string    `json:"message"`
	File      string    `json:"file"`
	Line      int       `json:"line"`
	Column    int       `json:"column"`
	EndLine   int       `json:"endLine,omitempty"`
	EndColumn int       `json:"endColumn,omitempty"`
	Fix       string    `json:"fix,omitempty"`
	Kit       string    `json:"kit"`
	HelpURI   string    `json:"helpUri,omitempty"`
	Fixes     []jsonFix `json:"fixes,omitempty"`
}

type jsonFix struct {
	Title string     `json:"title"`
	Safe  bool       `json:"safe"`
	Edits []jsonEdit `json:"edits"`
}

type jsonEdit struct {
	File      string `json:"file"`
	Offset    int    `json:"offset"`
	EndOffset int    `json:"endOffset"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	NewText   string `json:"newText"`
}

func jsonFixes(fs []lint.Fix) []jsonFix {
	var out []jsonFix
	for _, f := range fs {
		jf := jsonFix{Title: f.Title, Safe: f.Safe, Edits: []jsonEdit{}}
		for _, e := range f.Edits {
			jf.Edits = append(jf.Edits, jsonEdit{File: e.File, Offset: e.Offset, EndOffset: e.EndOffset, Line: e.Range.Start.Line,
				Column: e.Range.Start.Col, EndLine: e.Range.End.Line, EndColumn: e.Range.End.Col, NewText: e.NewText})
		}
		out = append(out, jf)
	}
	return out
}

type jsonSummary struct {
	Kits     int `json:"kits"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Info     int `json:"info"`
}

// Format implements Formatter.
func (JSON) Format(w io.Writer, r *lint.Result) error {
	doc := jsonDoc{FormatVersion: FormatVersion, SchemaVersion: FormatVersion, Findings: []jsonFinding{}, Summary: jsonSummary{
		Kits: len(r.Kits), Errors: r.Count(lint.SeverityError), Warnings: r.Count(lint.SeverityWarning), Info: r.Count(lint.SeverityInfo),
	}}
	rules := map[string]*lint.Rule{}
	for _, rule := range r.Rules {
		rules[rule.ID] = rule
	}
	for _, f := range r.Findings {
		start, end := f.Range.Start, f.Range.End
		help := lint.HelpURI(f.RuleID)
		if rule := rules[f.RuleID]; rule != nil {
			help = rule.HelpURI()
		}
		doc.Findings = append(doc.Findings, jsonFinding{
			Rule: f.RuleID, Severity: f.Severity.String(), Message: f.Message,
			File: start.File, Line: start.Line, Column: start.Col, EndLine: end.Line, EndColumn: end.Col,
			Fix: f.Fix, Kit: f.Kit, HelpURI: help, Fixes: jsonFixes(f.Fixes),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

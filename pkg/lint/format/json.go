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
//	               "endLine", "endColumn", "fix", "kit", "helpUri"}],
//	 "summary": {"kits", "errors", "warnings", "info"}}
//
// Lines and columns are 1-based, columns count bytes, and endColumn is
// exclusive; endLine and endColumn are omitted when unknown, fix when
// empty. Findings is [] when there are none.
type JSON struct{}

type jsonDoc struct {
	FormatVersion int `json:"formatVersion"`
	// SchemaVersion is the key's old name, kept one release.
	SchemaVersion int           `json:"schemaVersion"`
	Findings      []jsonFinding `json:"findings"`
	Summary       jsonSummary   `json:"summary"`
}

type jsonFinding struct {
	Rule      string `json:"rule"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine,omitempty"`
	EndColumn int    `json:"endColumn,omitempty"`
	Fix       string `json:"fix,omitempty"`
	Kit       string `json:"kit"`
	HelpURI   string `json:"helpUri"`
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
	for _, f := range r.Findings {
		start, end := f.Range.Start, f.Range.End
		doc.Findings = append(doc.Findings, jsonFinding{
			Rule: f.RuleID, Severity: f.Severity.String(), Message: f.Message,
			File: start.File, Line: start.Line, Column: start.Col, EndLine: end.Line, EndColumn: end.Col,
			Fix: f.Fix, Kit: f.Kit, HelpURI: lint.HelpURI(f.RuleID),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

package format

import (
	"encoding/json"
	"io"

	"github.com/kitsmith/kitsmith/pkg/lint"
)

// JSON writes {"formatVersion":1,"findings":[…],"summary":{…}}.
type JSON struct{}

type jsonSummary struct {
	Kits     int `json:"kits"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Info     int `json:"info"`
}

// Format implements Formatter.
func (JSON) Format(w io.Writer, r *lint.Result) error {
	findings := r.Findings
	if findings == nil {
		findings = []*lint.Finding{}
	}
	doc := struct {
		FormatVersion int             `json:"formatVersion"`
		Findings      []*lint.Finding `json:"findings"`
		Summary       jsonSummary     `json:"summary"`
	}{1, findings, jsonSummary{
		Kits: len(r.Kits), Errors: r.Count(lint.SeverityError), Warnings: r.Count(lint.SeverityWarning), Info: r.Count(lint.SeverityInfo),
	}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

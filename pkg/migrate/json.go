package migrate

import (
	"encoding/json"
	"io"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// FormatVersion is the formatVersion of the JSON report, the one version
// key every kitsmith JSON document carries.
const FormatVersion = 1

// ReportFormatVersion is the old name of FormatVersion.
//
// Deprecated: use FormatVersion.
const ReportFormatVersion = FormatVersion

// jsonReport is the designed shape of the JSON report; it is not the
// Result struct, so the two can change apart.
type jsonReport struct {
	FormatVersion int           `json:"formatVersion"`
	Kit           string        `json:"kit"`
	Files         []string      `json:"files"`
	Carried       []string      `json:"carried,omitempty"`
	Notes         []Note        `json:"notes"`
	Validation    jsonVerdict   `json:"validation"`
	Lint          []jsonFinding `json:"lint"`
	NeedsHuman    bool          `json:"needsHuman"`
}

type jsonVerdict struct {
	Valid    bool          `json:"valid"`
	Errors   []jsonFinding `json:"errors"`
	Warnings []jsonFinding `json:"warnings"`
}

type jsonFinding struct {
	Rule     string        `json:"rule"`
	Severity lint.Severity `json:"severity,omitzero"`
	Pos      spec.Pos      `json:"pos"`
	Field    string        `json:"field,omitempty"`
	Message  string        `json:"message"`
}

// WriteJSON writes r as one JSON document (formatVersion
// FormatVersion): the files, the notes, the validation verdict, the
// lint findings and whether a human is needed. Empty lists are [], never
// null.
func (r *Result) WriteJSON(w io.Writer) error {
	out := jsonReport{FormatVersion: FormatVersion, Kit: r.Stem, Files: []string{}, Carried: r.Carried,
		Notes: r.Notes, Lint: []jsonFinding{}, NeedsHuman: r.NeedsHuman(),
		Validation: jsonVerdict{Errors: []jsonFinding{}, Warnings: []jsonFinding{}}}
	if out.Notes == nil {
		out.Notes = []Note{}
	}
	for _, f := range r.Files {
		out.Files = append(out.Files, f.Name)
	}
	if v := r.Validation; v != nil {
		out.Validation.Valid = v.OK()
		out.Validation.Errors = append(out.Validation.Errors, specFindings(v.Errors)...)
		out.Validation.Warnings = append(out.Validation.Warnings, specFindings(v.Warnings)...)
	}
	if r.Lint != nil {
		for _, f := range r.Lint.Findings {
			out.Lint = append(out.Lint, jsonFinding{Rule: f.RuleID, Severity: f.Severity, Pos: f.Range.Start, Message: f.Message})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func specFindings(errs spec.Errors) []jsonFinding {
	out := make([]jsonFinding, 0, len(errs))
	for _, e := range errs {
		out = append(out, jsonFinding{Rule: e.Rule(), Pos: e.Range.Start, Field: e.Field, Message: e.Msg})
	}
	return out
}

// jsonError is the designed shape of the JSON document of a migration that
// failed (exit 2): what was being migrated and why it stopped.
type jsonError struct {
	FormatVersion int           `json:"formatVersion"`
	Kit           string        `json:"kit"`
	Error         jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// WriteJSONError writes a migration that could not run (the kit cannot be
// read, is not v2, a file is in the way) as one JSON document
// (formatVersion ReportFormatVersion): {"formatVersion", "kit", "error":
// {"message", "hint"}}, so a script reading --format json output always
// gets a document. kit is the v2 kit as named; hint may be empty.
func WriteJSONError(w io.Writer, kit, message, hint string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonError{FormatVersion: ReportFormatVersion, Kit: kit, Error: jsonErrorBody{Message: message, Hint: hint}})
}

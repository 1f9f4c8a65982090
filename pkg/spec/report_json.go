package spec

// FormatVersion is the formatVersion of ReportDocument, the JSON document
// of validation reports (kitsmith validate --format json). Version 2:
// "rule" is the rule id lint uses (spec/<code>); the specification
// reference moved to "spec".
const FormatVersion = 2

// RulePrefix starts the rule id of a specification error, as lint, SARIF
// and the lint configuration name it: "spec/" + Error.Code.
const RulePrefix = "spec/"

// ReportDocument is the JSON document of validation reports, one entry per
// kit, as kitsmith validate --format json prints it: a designed shape,
// pinned by golden files, not the internal structs.
type ReportDocument struct {
	// FormatVersion is FormatVersion.
	FormatVersion int `json:"formatVersion"`
	// Kits are the kits' reports, in the order added.
	Kits []KitReport `json:"kits"`
}

// KitReport is one kit's report in a ReportDocument.
type KitReport struct {
	// Path is the kit's display path; Stem, Kind and Form name it.
	Path string `json:"path"`
	Stem string `json:"stem"`
	Kind string `json:"kind"`
	Form string `json:"form"`
	// Valid is Report.OK.
	Valid    bool            `json:"valid"`
	Errors   []ReportedError `json:"errors"`
	Warnings []ReportedError `json:"warnings"`
}

// ReportedError is one problem of a KitReport.
type ReportedError struct {
	Message string `json:"message"`
	Field   string `json:"field"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	// Rule is RulePrefix + Code ("" without a code).
	Rule string `json:"rule"`
	Code string `json:"code"`
	// Spec is the specification's reference for the rule (Error.Ref).
	Spec string `json:"spec,omitempty"`
}

// NewReportDocument returns an empty document; Add fills it.
func NewReportDocument() *ReportDocument {
	return &ReportDocument{FormatVersion: FormatVersion, Kits: []KitReport{}}
}

// Add appends k's report rep.
func (d *ReportDocument) Add(k *Kit, rep *Report) {
	kind := ""
	if k.Descriptor != nil {
		kind = k.Descriptor.Kind
	}
	d.Kits = append(d.Kits, KitReport{
		Path: k.Path, Stem: k.Stem, Kind: kind, Form: k.Form.String(),
		Valid: rep.OK(), Errors: reportedErrors(rep.Errors), Warnings: reportedErrors(rep.Warnings),
	})
}

func reportedErrors(list Errors) []ReportedError {
	out := make([]ReportedError, 0, len(list))
	for _, e := range list {
		rule := ""
		if e.Code != "" {
			rule = RulePrefix + e.Code
		}
		out = append(out, ReportedError{
			Message: e.Msg, Field: e.Field, File: e.Range.Start.File,
			Line: e.Range.Start.Line, Column: e.Range.Start.Col, Rule: rule, Code: e.Code, Spec: e.Ref,
		})
	}
	return out
}

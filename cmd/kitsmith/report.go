package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

// writeCheckFindings prints one line per finding (artifact.Finding.String,
// the one text rendering of a finding) for check, build, and any command
// that checks.
// Skipped checks are printed only when skipped is true.
func writeCheckFindings(w io.Writer, rep *artifact.Report, skipped bool) {
	for _, f := range rep.Findings {
		if f.Severity == artifact.SeveritySkip && !skipped {
			continue
		}
		fmt.Fprintln(w, f.String())
	}
}

// writeCheckText prints every finding and a tally.
func writeCheckText(w io.Writer, rep *artifact.Report) {
	writeCheckFindings(w, rep, true)
	verdict := "conforms"
	if rep.Failed() {
		verdict = "does not conform"
	}
	nf, nw, ns := rep.Count(artifact.SeverityFail), rep.Count(artifact.SeverityWarn), rep.Count(artifact.SeveritySkip)
	fmt.Fprintf(w, "%s: %d platform%s checked (%s): %d failure%s, %d warning%s, %d skipped; %s\n",
		rep.Reference, len(rep.Platforms), plural(len(rep.Platforms)), strings.Join(rep.Platforms, ", "),
		nf, plural(nf), nw, plural(nw), ns, verdict)
}

// The JSON output of check: a designed shape, versioned.
type checkJSON struct {
	FormatVersion int                `json:"formatVersion"`
	Reference     string             `json:"reference"`
	Platforms     []string           `json:"platforms"`
	Conforms      bool               `json:"conforms"`
	Summary       checkSummaryJSON   `json:"summary"`
	Findings      []checkFindingJSON `json:"findings"`
}

type checkSummaryJSON struct {
	Fail int `json:"fail"`
	Warn int `json:"warn"`
	Skip int `json:"skip"`
}

type checkFindingJSON struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	Platform string `json:"platform"`
	Message  string `json:"message"`
	Spec     string `json:"spec"`
}

func writeCheckJSON(w io.Writer, rep *artifact.Report) error {
	doc := checkJSON{
		FormatVersion: 1, Reference: rep.Reference, Platforms: rep.Platforms, Conforms: !rep.Failed(),
		Summary: checkSummaryJSON{
			Fail: rep.Count(artifact.SeverityFail), Warn: rep.Count(artifact.SeverityWarn), Skip: rep.Count(artifact.SeveritySkip),
		},
		Findings: []checkFindingJSON{},
	}
	for _, f := range rep.Findings {
		doc.Findings = append(doc.Findings, checkFindingJSON{
			Check: f.Check, Severity: string(f.Severity), Platform: f.Platform, Message: f.Message, Spec: f.Spec,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

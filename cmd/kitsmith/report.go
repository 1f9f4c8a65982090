package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
)

// writeCheckFindings prints one line per finding (conform.Finding.String,
// the one text rendering of a finding) for check, build, and any command
// that checks.
// Skipped checks are printed only when skipped is true.
func writeCheckFindings(w io.Writer, rep *conform.Report, skipped bool) {
	for _, f := range rep.Findings {
		if f.Severity == conform.SeveritySkip && !skipped {
			continue
		}
		fmt.Fprintln(w, f.String())
	}
}

// writeCheckText prints every finding and a tally.
func writeCheckText(w io.Writer, rep *conform.Report) {
	writeCheckFindings(w, rep, true)
	verdict := "conforms"
	if rep.Failed() {
		verdict = "does not conform"
	}
	nf, nw, ns := rep.Count(conform.SeverityFail), rep.Count(conform.SeverityWarn), rep.Count(conform.SeveritySkip)
	fmt.Fprintf(w, "%s: %d platform%s checked (%s): %d failure%s, %d warning%s, %d skipped; %s\n",
		rep.Reference, len(rep.Platforms), plural(len(rep.Platforms)), strings.Join(rep.Platforms, ", "),
		nf, plural(nf), nw, plural(nw), ns, verdict)
}

// writeCheckJSON prints the report as its JSON document
// (conform.Report.MarshalJSON: formatVersion, conforms, summary, ...).
func writeCheckJSON(w io.Writer, rep *conform.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

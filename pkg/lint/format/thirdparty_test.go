package format_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/lint/format"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// TestThirdPartyRuleHelp: a rule from elsewhere is documented by its own
// DocURL, or not at all, and its help has no empty sections; kitsmith's
// own rules keep their pages.
func TestThirdPartyRuleHelp(t *testing.T) {
	bare := &lint.Rule{ID: "acme-bare", Severity: lint.SeverityWarning, Summary: "A rule with a summary only."}
	documented := &lint.Rule{ID: "acme-documented", Severity: lint.SeverityWarning, Summary: "A documented rule.",
		Rationale: "Because.", DocURL: "https://rules.example.org/acme-documented"}
	own, _ := lint.NewRegistry(lint.DefaultRules()...)
	wildcard, _ := own.Lookup("wildcard-allow")
	at := spec.Range{Start: spec.Pos{File: "k/k.yaml", Line: 1, Col: 1}}
	res := &lint.Result{Kits: []string{"k"}, Rules: []*lint.Rule{bare, documented, wildcard}}
	for _, r := range res.Rules {
		res.Findings = append(res.Findings, &lint.Finding{RuleID: r.ID, Severity: r.Severity, Range: at, Message: "found"})
	}

	var b bytes.Buffer
	f, err := format.ByName("sarif", format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Format(&b, res); err != nil {
		t.Fatal(err)
	}
	var sarif struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
						Help    *struct {
							Text     string `json:"text"`
							Markdown string `json:"markdown"`
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &sarif); err != nil {
		t.Fatal(err)
	}
	type help struct{ ID, URI, Text, Markdown string }
	var got []help
	for _, r := range sarif.Runs[0].Tool.Driver.Rules {
		h := help{ID: r.ID, URI: r.HelpURI}
		if r.Help != nil {
			h.Text, h.Markdown = r.Help.Text, r.Help.Markdown
		}
		got = append(got, h)
	}
	page := lint.DocsBase + "wildcard-allow.md"
	want := []help{
		{ID: "acme-bare"},
		{ID: "acme-documented", URI: documented.DocURL, Text: "Because.\n\nDocumentation: " + documented.DocURL,
			Markdown: "Because.\n\n[Documentation](" + documented.DocURL + ")"},
		{ID: "wildcard-allow", URI: page, Text: wildcard.Rationale + "\n\nFix: " + wildcard.Fix + "\n\nDocumentation: " + page,
			Markdown: wildcard.Rationale + "\n\n**Fix:** " + wildcard.Fix + "\n\n[Documentation](" + page + ")"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SARIF rule help (-want +got):\n%s", diff)
	}

	b.Reset()
	if err := (format.JSON{}).Format(&b, res); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings []map[string]any `json:"findings"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	uris := map[string]any{}
	for _, f := range doc.Findings {
		uris[f["rule"].(string)] = f["helpUri"]
	}
	if diff := cmp.Diff(map[string]any{"acme-bare": nil, "acme-documented": documented.DocURL, "wildcard-allow": page}, uris); diff != "" {
		t.Errorf("JSON helpUri by rule (-want +got):\n%s", diff)
	}
}

package conform_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
)

// TestReportJSON is issue 21: json.Marshal of a check's Report is the
// document kitsmith check --format json prints, for a Report and a
// *Report alike, and it reads back into the same Report.
func TestReportJSON(t *testing.T) {
	rep := conform.Report{
		Reference: "oci:out/tool:1.0.0", Platforms: []string{"linux/amd64"},
		Findings: []conform.Finding{
			{Check: "oci-media-types", Severity: conform.SeverityWarn, Message: "index entry", Spec: "OCI"},
			{Check: "overlay-home-ownership", Severity: conform.SeverityFail, Platform: "linux/amd64", Message: "root-owned", Spec: "SPEC-v3 §10"},
			{Check: "kit-skills", Severity: conform.SeveritySkip, Platform: "linux/amd64", Message: "no skills"},
		},
	}
	const want = `{"formatVersion":1,"reference":"oci:out/tool:1.0.0","platforms":["linux/amd64"],"conforms":false,` +
		`"summary":{"fail":1,"warn":1,"skip":1},"findings":[` +
		`{"check":"oci-media-types","severity":"warn","platform":"","message":"index entry","spec":"OCI"},` +
		`{"check":"overlay-home-ownership","severity":"fail","platform":"linux/amd64","message":"root-owned","spec":"SPEC-v3 §10"},` +
		`{"check":"kit-skills","severity":"skip","platform":"linux/amd64","message":"no skills","spec":""}]}`
	for name, v := range map[string]any{"value": rep, "pointer": &rep} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, string(b)); diff != "" {
			t.Errorf("%s: json.Marshal (-want +got):\n%s", name, diff)
		}
	}
	var back conform.Report
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep, back); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	empty, err := json.Marshal(conform.Report{})
	if err != nil {
		t.Fatal(err)
	}
	if got := `{"formatVersion":1,"reference":"","platforms":[],"conforms":true,"summary":{"fail":0,"warn":0,"skip":0},"findings":[]}`; string(empty) != got {
		t.Errorf("empty report = %s, want %s", empty, got)
	}
}

package format_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/internal/diag"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/lint/format"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// TestTextMasksSecrets: no excerpt shows a secret, whichever finding
// points at its line: a YAML syntax error, another rule's finding, or the
// literal-secret finding itself (whose span is masked even when the value
// is no known token format).
func TestTextMasksSecrets(t *testing.T) {
	src := "# syntax=docker/sandbox-kit:3\n" +
		"  token: ghp_U8JZpDE0iGXlD6gNCFbaEPFjbD0kH8Oool8D: [\n" +
		"export GATEWAY_KEY=c17149d439536b3216fdaeeb975729fa\n" +
		"export PASS=Zq81Lm0x\n"
	at := func(line, col, end int) spec.Range {
		return spec.Range{Start: spec.Pos{File: "k.yaml", Line: line, Col: col}, End: spec.Pos{File: "k.yaml", Line: line, Col: end}}
	}
	res := &lint.Result{Kits: []string{"k.yaml"}, Findings: []*lint.Finding{
		{RuleID: "spec/yaml-syntax", Severity: lint.SeverityError, Range: at(2, 3, 0), Message: "mapping values are not allowed in this context"},
		{RuleID: "hook-env-undeclared", Severity: lint.SeverityError, Range: at(3, 1, 7), Message: "another rule"},
		{RuleID: "literal-secret", Severity: lint.SeverityError, Range: at(4, 13, 21), Message: "a secret"},
	}}
	var b bytes.Buffer
	txt := &format.Text{Sources: diag.Sources{"k.yaml": []byte(src)}}
	if err := txt.Format(&b, res); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, secret := range []string{"U8JZpDE0iGXlD6gNCFbaEPFjbD0kH8Oool8D", "39536b3216fdaeeb975729fa", "Zq81Lm0x"} {
		if strings.Contains(got, secret) {
			t.Errorf("the text report shows the secret %q:\n%s", secret, got)
		}
	}
	want := []string{
		"      token: ghp_************************************* [", // the pair value runs to the colon
		"    export GATEWAY_KEY=c171****************************",
		"    export PASS=Zq******",
	}
	var excerpts []string
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "    ") && !strings.Contains(l, "^") {
			excerpts = append(excerpts, l)
		}
	}
	if diff := cmp.Diff(want, excerpts); diff != "" {
		t.Errorf("excerpts (-want +got):\n%s", diff)
	}
}

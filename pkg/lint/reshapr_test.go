package lint_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReshaprMistakes lints the mistakes the reShapr design notes record
// from the 0.2.0 hooks kit (findings 1, 2 and 8) and asserts each is
// caught at its exact line and column. Informational findings
// (port-trust-boundary on the localhost allow rules) are not asserted.
func TestReshaprMistakes(t *testing.T) {
	tests := []struct {
		name string
		want []string // "file:line:col rule", file relative to the case directory
	}{
		{"host-docker-internal", []string{
			"host-docker-internal.yaml:25:17 host-docker-internal", // install allow: [host.docker.internal:7777]
			"host-docker-internal.yaml:28:13 host-docker-internal", // runtime allow: - host.docker.internal:7777
			"host-docker-internal.yaml:37:21 host-docker-internal", // inject domain: host.docker.internal
		}},
		{"no-proxy-override", []string{
			"no-proxy-override.dockerfile:4:5 proxy-env-override", // ENV NO_PROXY=host.docker.internal,localhost
			"no-proxy-override.yaml:44:20 proxy-env-override",     // export NO_PROXY="host.docker.internal,…"
		}},
		{"hook-without-env", []string{
			"hook-without-env.yaml:45:42 hook-env-undeclared", // --header "x-reshapr-key: $RESHAPR_API_KEY"
		}},
		{"credential-one-phase", []string{
			"credential-one-phase.yaml:36:21 spec/inject-domain-in-allow", // phase [install, runtime], allowed at runtime only
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "reshapr-mistakes", tt.name)
			k, res := lintFixture(t, dir)
			var got []string
			var lines []marker
			for _, f := range res.Findings {
				if f.RuleID == "port-trust-boundary" {
					continue
				}
				rel, err := filepath.Rel(dir, f.Range.Start.File)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%s:%d:%d %s", rel, f.Range.Start.Line, f.Range.Start.Col, f.RuleID))
				lines = append(lines, marker{f.RuleID, f.Range.Start.File, f.Range.Start.Line})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s\nreport:\n%s", diff, report(t, k, res))
			}
			sortMarkers(lines)
			if diff := cmp.Diff(markers(t, k), lines); diff != "" {
				t.Errorf("findings differ from the # want: markers (-want +got):\n%s", diff)
			}
		})
	}
}

package lint_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

const suppressHead = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
description: Suppression cases.
version: "1.0.0"
sourceUrl: https://example.com/kits/s
licenses: [MIT]
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime:
        allow:
`

// TestSuppressions checks where a kitsmith:ignore comment applies: its
// own line and the next, in the descriptor and in the recipe, for every
// rule it names, only with a reason; and what it reports when it is
// malformed or unused. Lines 13 and 14 hold the allow entries.
func TestSuppressions(t *testing.T) {
	tests := []struct {
		name   string
		allow  string // lines 13 onwards
		recipe string
		want   []string
	}{
		{"same line", `          - "*"  # kitsmith:ignore wildcard-allow research sandbox
`, "", nil},
		{"line above", `          # kitsmith:ignore wildcard-allow research sandbox
          - "*"
`, "", nil},
		{"two lines above does not apply", `          # kitsmith:ignore wildcard-allow research sandbox
          - api.example.com
          - "*"
`, "", []string{"13 unused-suppression warning", "15 wildcard-allow warning"}},
		{"other rule is not silenced", `          - "*"  # kitsmith:ignore port-trust-boundary not this one
`, "", []string{"13 wildcard-allow warning", "13 unused-suppression warning"}},
		{"several rules", `          # kitsmith:ignore port-trust-boundary,wildcard-allow,unsized-volume reviewed
          - "*"
          - localhost:7777  # kitsmith:ignore port-trust-boundary,wildcard-allow our gateway
`, "", []string{"13 unused-suppression warning", "13 unused-suppression warning", "15 unused-suppression warning"}},
		{"no reason silences nothing", `          - "*"  # kitsmith:ignore wildcard-allow
`, "", []string{"13 wildcard-allow warning", "13 malformed-suppression error"}},
		{"no rule", `          - "*"  # kitsmith:ignore
`, "", []string{"13 wildcard-allow warning", "13 malformed-suppression error"}},
		{"unknown rule", `          - api.example.com  # kitsmith:ignore wildcard-alow typo
`, "", []string{"13 unused-suppression warning"}},
		{"dockerfile line above", `          - api.example.com
`, "# kitsmith:ignore unpinned-base-image rebuilt nightly on purpose\nFROM ubuntu:24.04\n", nil},
		{"dockerfile without reason", `          - api.example.com
`, "# kitsmith:ignore unpinned-base-image\nFROM ubuntu:24.04\n", []string{"1 malformed-suppression error", "2 unpinned-base-image warning"}},
		{"dockerfile suppression does not reach the descriptor", `          - "*"
`, "# kitsmith:ignore wildcard-allow wrong file\nFROM ubuntu:24.04@sha256:b359f1067efa76f37863778f7b6d0e8d911e3ee8efa807ad01fbf5dc1ef9006b\n",
			[]string{"1 unused-suppression warning", "13 wildcard-allow warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extra := map[string]string{}
			if tt.recipe != "" {
				extra["k.dockerfile"] = tt.recipe
			}
			k := memKit(t, suppressHead+tt.allow, extra)
			res, err := lint.Run(context.Background(), []*spec.Kit{k})
			if err != nil {
				t.Fatal(err)
			}
			got := summary(res)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%s", diff, report(t, k, res))
			}
		})
	}
}

// TestSuppressionOfDisabledRule: naming a disabled rule is not reported
// as unused.
func TestSuppressionOfDisabledRule(t *testing.T) {
	k := memKit(t, suppressHead+"          - api.example.com  # kitsmith:ignore wildcard-allow off anyway\n", nil)
	res, err := lint.Run(context.Background(), []*spec.Kit{k}, lint.WithDisable("wildcard-allow"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 {
		t.Errorf("findings: %v", summary(res))
	}
}

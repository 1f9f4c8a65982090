package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// lintSource lints one descriptor with only rule r.
func lintSource(t *testing.T, r *Rule, src string) []Finding {
	t.Helper()
	k, err := spec.Parse("k.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return r.Check(NewInput(k))
}

const egressHeader = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
version: "1.0.0"
`

// TestEgressInferredRegistries: package tools reach the hosts of
// registryHosts unless the command names a mirror; such findings are
// warnings that name the host and the allow entry to add. The hosts come
// from the table, so that no test or golden spells them out.
func TestEgressInferredRegistries(t *testing.T) {
	cases := []struct {
		command, family string
	}{
		{"npm install -g tool-cli", "npm"},
		{"npx -y tool-cli --version", "npm"},
		{"yarn global add tool-cli", "yarn"},
		{"pip install --user tool", "pypi"},
		{"uv tool install tool", "pypi"},
		{"go install example.org/tool@v1.2.3", "go"},
		{"apk add --no-cache jq", "alpine"},
		{"docker pull alpine:3.20", "dockerhub"},
	}
	for _, tc := range cases {
		t.Run(tc.command, func(t *testing.T) {
			src := egressHeader + `capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {install: {allow: [api.example.org]}}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: ` + tc.command + "\n"
			var got []string
			for _, f := range lintSource(t, egressNotAllowed, src) {
				if f.Severity != SeverityWarning {
					t.Errorf("an inferred host is a warning, got %v: %s", f.Severity, f.Message)
				}
				got = append(got, f.Fix)
			}
			var want []string
			for _, h := range registryHosts[tc.family] {
				want = append(want, fmt.Sprintf("add %q to capabilities[0].config.install.allow", h+":443"))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fixes (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("allowed by the table's hosts", func(t *testing.T) {
		var allow []string
		for _, hosts := range registryHosts {
			allow = append(allow, hosts...)
		}
		src := egressHeader + `capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {install: {allow: [` + strings.Join(allow, ", ") + `]}}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
`
		for _, tc := range cases {
			src += "        - command: " + tc.command + "\n"
		}
		if got := lintSource(t, egressNotAllowed, src); len(got) > 0 {
			t.Errorf("want no findings, got %v", got)
		}
	})
	t.Run("apt-get follows the recipe's base", func(t *testing.T) {
		src := egressHeader + `build: |
  FROM ubuntu:24.04@sha256:0000000000000000000000000000000000000000000000000000000000000000
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: apt-get update
`
		var got []string
		for _, f := range lintSource(t, egressNotAllowed, src) {
			got = append(got, f.Fix)
		}
		var want []string
		for _, h := range registryHosts["ubuntu"] {
			want = append(want, fmt.Sprintf("declare - type: com.docker.sandbox/network-policy@1 with config: {install: {allow: [%q]}}", h+":443"))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("fixes (-want +got):\n%s", diff)
		}
	})
}

func TestHostMatches(t *testing.T) {
	ct := func(hp string) contact {
		h, p, _ := strings.Cut(hp, ":")
		return contact{Host: h, Port: p}
	}
	cases := []struct {
		pattern, target string
		want            bool
	}{
		{"example.org", "example.org:443", true},
		{"example.org:443", "example.org:443", true},
		{"example.org:443", "example.org:80", false},
		{"EXAMPLE.org", "example.org:443", true},
		{"*.example.org", "api.example.org:443", true},
		{"*.example.org", "a.b.example.org:443", false},
		{"*.example.org", "example.org:443", false},
		{"*", "anything.example:1", true},
		{"**", "anything.example:1", true},
		{"localhost:8080", "host.docker.internal:8080", true},
		{"other.org", "example.org:443", false},
		{"${{ kit.args.host }}", "example.org:443", true},
	}
	for _, tc := range cases {
		if got := hostMatches(tc.pattern, ct(tc.target)); got != tc.want {
			t.Errorf("hostMatches(%q, %q) = %v, want %v", tc.pattern, tc.target, got, tc.want)
		}
	}
}

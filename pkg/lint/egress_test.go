package lint

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// lintSource lints one descriptor with only rule r, with the default
// registries reg (nil: none configured).
func lintSource(t *testing.T, r *Rule, src string, reg RegistryHosts) []Finding {
	t.Helper()
	k, err := spec.Parse("k.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.validate(); err != nil {
		t.Fatal(err)
	}
	in := NewInput(k)
	in.registries = resolveRegistries(reg)
	return r.Check(in)
}

const egressHeader = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
version: "1.0.0"
`

// testRegistries gives every family a host of its own, one with an
// explicit port and one with two hosts.
var testRegistries = RegistryHosts{
	"npm":       {"npm.example.org"},
	"yarn":      {"yarn.example.org:8443"},
	"pypi":      {"pypi.example.org", "files.example.org"},
	"go":        {"goproxy.example.org", "gosum.example.org"},
	"alpine":    {"apk.example.org"},
	"debian":    {"deb.example.net"},
	"ubuntu":    {"ubuntu.example.net", "ubuntu-security.example.net"},
	"dockerhub": {"hub.example.net", "hub-auth.example.net"},
	"crates":    {"crates.example.net", "crates-dl.example.net"},
	"rubygems":  {"gems.example.net"},
}

// inferredCases are commands that name no host, and the family whose
// configured registry they reach.
var inferredCases = []struct{ command, family string }{
	{"npm install -g tool-cli", "npm"},
	{"npx -y tool-cli --version", "npm"},
	{"yarn global add tool-cli", "yarn"},
	{"pip install --user tool", "pypi"},
	{"uv tool install tool", "pypi"},
	{"go install example.org/tool@v1.2.3", "go"},
	{"apk add --no-cache jq", "alpine"},
	{"docker pull alpine:3.20", "dockerhub"},
	{"docker run --rm postgres:16 true", "dockerhub"},
	{"cargo install ripgrep", "crates"},
	{"gem install rake", "rubygems"},
}

// installKit is a kit allowing allow at install time, whose install hooks
// run commands.
func installKit(allow []string, commands ...string) string {
	src := egressHeader + `capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {install: {allow: [` + strings.Join(allow, ", ") + `]}}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
`
	for _, c := range commands {
		src += "        - command: " + c + "\n"
	}
	return src
}

// TestEgressInferredRegistries: a package tool whose command names no host
// reaches its family's configured registry hosts; such findings are
// warnings that name the host, the configuration key and the allow entry
// to add. Without configuration, a family with well-known public hosts
// (registryDefaults) is inferred from them, still as warnings; a family
// whose hosts kitsmith does not name gets one info finding that its egress
// is unchecked, naming the configuration key.
func TestEgressInferredRegistries(t *testing.T) {
	for _, tc := range inferredCases {
		t.Run(tc.command, func(t *testing.T) {
			src := installKit([]string{"api.example.org"}, tc.command)
			var got []string
			for _, f := range lintSource(t, egressNotAllowed, src, testRegistries) {
				if f.Severity != SeverityWarning {
					t.Errorf("an inferred host is a warning, got %v: %s", f.Severity, f.Message)
				}
				if want := "egress.registries." + tc.family + " in the lint configuration"; !strings.Contains(f.Message, want) {
					t.Errorf("message %q does not name %q", f.Message, want)
				}
				got = append(got, f.Fix)
			}
			var want []string
			for _, h := range testRegistries[tc.family] {
				if !strings.Contains(h, ":") {
					h += ":443"
				}
				want = append(want, fmt.Sprintf("add %q to capabilities[0].config.install.allow", h))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fixes (-want +got):\n%s", diff)
			}
			others := RegistryHosts{}
			for family, hosts := range testRegistries {
				if family != tc.family {
					others[family] = hosts
				}
			}
			for name, reg := range map[string]RegistryHosts{"with " + tc.family + " not configured": others, "without configuration": nil} {
				var got, want []string
				for _, f := range lintSource(t, egressNotAllowed, src, reg) {
					got = append(got, f.Severity.String()+" "+f.Fix)
				}
				for _, h := range registryDefaults[tc.family].Hosts {
					want = append(want, fmt.Sprintf("warning add %q to capabilities[0].config.install.allow", h))
				}
				if len(want) == 0 {
					want = []string{fmt.Sprintf("info name the host in .kitsmith.yaml: egress: {registries: {%s: [\"<host>:443\"]}}", tc.family)}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: findings (-want +got):\n%s", name, diff)
				}
			}
		})
	}
	t.Run("allowed by the configured hosts", func(t *testing.T) {
		var allow []string
		for _, hosts := range testRegistries {
			allow = append(allow, hosts...)
		}
		var commands []string
		for _, tc := range inferredCases {
			commands = append(commands, tc.command)
		}
		src := installKit(allow, commands...)
		if got := lintSource(t, egressNotAllowed, src, testRegistries); len(got) > 0 {
			t.Errorf("want no findings, got %v", got)
		}
	})
	t.Run("a named mirror wins over the configured registry", func(t *testing.T) {
		src := installKit([]string{"mirror.example.net"},
			"npm install -g tool-cli --registry https://mirror.example.net/npm/",
			"pip install -i https://mirror.example.net/simple tool",
			"GOPROXY=https://mirror.example.net/go go install example.org/tool@v1.2.3",
			"docker pull mirror.example.net/library/alpine:3.20")
		if got := lintSource(t, egressNotAllowed, src, testRegistries); len(got) > 0 {
			t.Errorf("want no findings, got %v", got)
		}
	})
	for _, base := range []string{"debian:12", "ubuntu:24.04"} {
		family, _, _ := strings.Cut(base, ":")
		t.Run("apt-get follows the recipe's base "+base, func(t *testing.T) {
			src := egressHeader + `build: |
  FROM ` + base + `@sha256:0000000000000000000000000000000000000000000000000000000000000000
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: apt-get update
`
			var got []string
			for _, f := range lintSource(t, egressNotAllowed, src, testRegistries) {
				got = append(got, f.Fix)
			}
			var want []string
			for _, h := range testRegistries[family] {
				want = append(want, fmt.Sprintf("declare - type: com.docker.sandbox/network-policy@1 with config: {install: {allow: [%q]}}", h+":443"))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fixes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRegistryFamiliesDocumented: the rule's long form lists every family
// the configuration accepts, and the tests configure each of them.
func TestRegistryFamiliesDocumented(t *testing.T) {
	doc, err := os.ReadFile("docs/egress-not-allowed.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range RegistryFamilies() {
		if !strings.Contains(string(doc), "| `"+f+"` |") {
			t.Errorf("docs/egress-not-allowed.md does not list the family %s in its table", f)
		}
		if _, ok := testRegistries[f]; !ok {
			t.Errorf("testRegistries does not configure the family %s", f)
		}
	}
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

package lint_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// npmKit runs npm install, which names no registry, in an install hook
// whose phase allows api.example.org only.
const npmKit = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
description: A kit whose install hook runs npm without a registry.
version: "1.0.0"
sourceUrl: https://example.com/kits/npm
licenses: [MIT]
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {install: {allow: [api.example.org]}}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: npm install -g tool-cli
          env: [HTTP_PROXY, HTTPS_PROXY]
`

func TestLoadConfigEgress(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"good.yaml": "egress:\n  registries:\n    npm: [\"npm.example.org:443\"]\n    pypi: [pypi.example.org, files.example.org:8443]\n    dockerhub: []\n",
	})
	c, err := lint.LoadConfig(filepath.Join(dir, "good.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := lint.RegistryHosts{"npm": {"npm.example.org:443"}, "pypi": {"pypi.example.org", "files.example.org:8443"}, "dockerhub": {}}
	if diff := cmp.Diff(want, c.Egress.Registries); diff != "" {
		t.Errorf("registries (-want +got):\n%s", diff)
	}

	bad := []struct {
		name, src, msg string
	}{
		{"unknown family", "egress:\n  registries:\n    nmp: [npm.example.org]\n",
			`:3:5: egress.registries: unknown tool family "nmp" (use alpine, crates, debian, dockerhub, go, npm, pypi, rubygems, ubuntu, yarn)`},
		{"URL instead of a host", "egress:\n  registries:\n    npm:\n      - https://npm.example.org/\n",
			`:4:9: egress.registries.npm[0]: "https://npm.example.org/" is not a host`},
		{"bad port", "egress:\n  registries:\n    go: [\"goproxy.example.org:99999\"]\n",
			`:3:10: egress.registries.go[0]: "goproxy.example.org:99999": port "99999" is not a number`},
		{"wildcard", "egress:\n  registries:\n    pypi: [\"*.example.org\"]\n",
			`:3:12: egress.registries.pypi[0]: "*.example.org" is not a host`},
		{"not a list", "egress:\n  registries:\n    npm: npm.example.org\n",
			`:3:10: egress.registries.npm: want a list of hosts`},
		{"not a mapping", "egress:\n  registries: [npm]\n",
			`:2:15: egress.registries: want a mapping`},
		{"unknown egress key", "egress:\n  mirrors:\n    npm: [npm.example.org]\n",
			`:2:3: unknown key "mirrors" in egress; the keys are registries`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.yaml")
			writeFiles(t, dir, map[string]string{"bad.yaml": tt.src})
			_, err := lint.LoadConfig(p)
			if err == nil {
				t.Fatal("LoadConfig succeeded, want an error")
			}
			if !strings.HasPrefix(err.Error(), p) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not start with %s and contain %q", err, p, tt.msg)
			}
		})
	}
}

// TestEgressRegistriesConfigured: a configured family's default registry
// is inferred (a warning naming the configured host), from the
// configuration or WithRegistryHosts, the option replacing the
// configuration's list; an unconfigured family whose registry kitsmith does
// not name is reported, at info level, as unchecked.
func TestEgressRegistriesConfigured(t *testing.T) {
	k := memKit(t, npmKit, nil)
	const found = "14 egress-not-allowed warning"
	const unchecked = "14 egress-not-allowed info" // npm's registry is not named: the egress is unchecked
	cfg := func(r lint.RegistryHosts) *lint.Config { return &lint.Config{Egress: lint.EgressConfig{Registries: r}} }
	tests := []struct {
		name  string
		opts  []lint.Option
		want  []string
		hosts []string
	}{
		{"unconfigured", nil, []string{unchecked}, nil},
		{"another family configured", []lint.Option{lint.WithConfig(cfg(lint.RegistryHosts{"pypi": {"pypi.example.org"}}))}, []string{unchecked}, nil},
		{"configured", []lint.Option{lint.WithConfig(cfg(lint.RegistryHosts{"npm": {"npm.example.org"}}))},
			[]string{found}, []string{"npm.example.org:443"}},
		{"configured as allowed", []lint.Option{lint.WithConfig(cfg(lint.RegistryHosts{"npm": {"api.example.org"}}))}, nil, nil},
		{"option", []lint.Option{lint.WithRegistryHosts(lint.RegistryHosts{"npm": {"npm.example.net:8443", "npm-cdn.example.net"}})},
			[]string{found, found}, []string{"npm-cdn.example.net:443", "npm.example.net:8443"}}, // findings sort by message
		{"option over the configuration", []lint.Option{
			lint.WithConfig(cfg(lint.RegistryHosts{"npm": {"npm.example.org"}})),
			lint.WithRegistryHosts(lint.RegistryHosts{"npm": {"api.example.org"}}),
		}, nil, nil},
		{"option for another family keeps the configuration's", []lint.Option{
			lint.WithConfig(cfg(lint.RegistryHosts{"npm": {"npm.example.org"}})),
			lint.WithRegistryHosts(lint.RegistryHosts{"pypi": {"api.example.org"}}),
		}, []string{found}, []string{"npm.example.org:443"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := lint.Run(context.Background(), []*spec.Kit{k}, append(tt.opts, lint.WithDisable("all"), lint.WithEnable("egress-not-allowed"))...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summary(res)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			var hosts []string
			for _, f := range res.Findings {
				for _, h := range tt.hosts {
					if strings.Contains(f.Message, "expected to contact "+h+" ") && strings.Contains(f.Message, "egress.registries.npm") {
						hosts = append(hosts, h)
					}
				}
			}
			if diff := cmp.Diff(tt.hosts, hosts); diff != "" {
				t.Errorf("hosts named in messages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEgressRegistriesErrors(t *testing.T) {
	k := memKit(t, npmKit, nil)
	tests := []struct {
		name    string
		opt     lint.Option
		unknown bool
		msg     string
	}{
		{"unknown family in an option", lint.WithRegistryHosts(lint.RegistryHosts{"cargo": {"crates.example.org"}}), true,
			`egress.registries: unknown tool family "cargo"`},
		{"unknown family in the configuration", lint.WithConfig(&lint.Config{Path: ".kitsmith.yaml",
			Egress: lint.EgressConfig{Registries: lint.RegistryHosts{"maven": {"maven.example.org"}}}}), true,
			`lint configuration .kitsmith.yaml: egress.registries: unknown tool family "maven"`},
		{"URL in an option", lint.WithRegistryHosts(lint.RegistryHosts{"npm": {"https://npm.example.org"}}), false,
			`egress.registries.npm[0]: "https://npm.example.org" is not a host`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lint.Run(context.Background(), []*spec.Kit{k}, tt.opt)
			if err == nil {
				t.Fatal("Run succeeded, want an error")
			}
			if got := errors.Is(err, lint.ErrUnknownFamily); got != tt.unknown {
				t.Errorf("errors.Is(err, ErrUnknownFamily) = %v, want %v (%v)", got, tt.unknown, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
		})
	}
}

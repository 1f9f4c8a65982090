package lint_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// noisyKit triggers wildcard-allow (warning, line 12), port-trust-boundary
// (info, line 13) and unsized-volume (info, line 16).
const noisyKit = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
description: A kit with findings of several rules.
version: "1.0.0"
sourceUrl: https://example.com/kits/noisy
licenses: [MIT]
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime:
        allow: ["*",
                localhost:7777]
  - type: com.docker.sandbox/volume@1
    config:
      path: /cache
`

// writeFiles writes files (path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// memKit loads a kit from memory as k/k.yaml plus extra files under k/.
func memKit(t *testing.T, src string, extra map[string]string) *spec.Kit {
	t.Helper()
	fsys := fstest.MapFS{"k/k.yaml": {Data: []byte(src)}}
	for name, body := range extra {
		fsys["k/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	k, err := spec.Load(fsys, "k")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// summary lists findings as "line rule severity".
func summary(res *lint.Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, strings.Join([]string{strconv.Itoa(f.Range.Start.Line), f.RuleID, f.Severity.String()}, " "))
	}
	return out
}

func TestFindConfigUpward(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".kitsmith.yaml":        "disable: [unsized-volume]\n",
		"kits/noisy/noisy.yaml": noisyKit,
		"kits/noisy/sub/x.txt":  "",
	})
	for _, from := range []string{"kits/noisy", "kits/noisy/sub", "."} {
		got, err := lint.FindConfig(filepath.Join(root, from))
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(root, ".kitsmith.yaml"); got != want {
			t.Errorf("FindConfig(%s) = %q, want %q", from, got, want)
		}
	}
	nearer := filepath.Join(root, "kits", ".kitsmith.yaml")
	writeFiles(t, root, map[string]string{"kits/.kitsmith.yaml": "{}\n"})
	if got, _ := lint.FindConfig(filepath.Join(root, "kits/noisy")); got != nearer {
		t.Errorf("FindConfig = %q, want the nearer %q", got, nearer)
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"good.yaml":    "enable: [all]\ndisable: [port-trust-boundary]\nseverity:\n  unsized-volume: warning\nignore: [\"examples/**\"]\n",
		"unknown.yaml": "disabled: [port-trust-boundary]\n",
		"badsev.yaml":  "severity:\n  unsized-volume: fatal\n",
		"empty.yaml":   "",
	})
	c, err := lint.LoadConfig(filepath.Join(dir, "good.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Dir != dir || c.Severity["unsized-volume"] != lint.SeverityWarning || len(c.Ignore) != 1 {
		t.Errorf("LoadConfig = %+v", c)
	}
	if _, err := lint.LoadConfig(filepath.Join(dir, "empty.yaml")); err != nil {
		t.Errorf("empty configuration: %v", err)
	}
	for _, name := range []string{"unknown.yaml", "badsev.yaml", "missing.yaml"} {
		if _, err := lint.LoadConfig(filepath.Join(dir, name)); err == nil {
			t.Errorf("LoadConfig(%s) succeeded, want an error", name)
		}
	}
}

// TestConfigSelection runs the noisy kit under configurations and options
// and compares what is reported.
func TestConfigSelection(t *testing.T) {
	k := memKit(t, noisyKit, nil)
	tests := []struct {
		name string
		cfg  *lint.Config
		opts []lint.Option
		want []string
	}{
		{"defaults", nil, nil, []string{"12 wildcard-allow warning", "13 port-trust-boundary info", "16 unsized-volume info"}},
		{"disable one", &lint.Config{Disable: []string{"port-trust-boundary"}}, nil,
			[]string{"12 wildcard-allow warning", "16 unsized-volume info"}},
		{"disable all, enable one", &lint.Config{Disable: []string{"all"}, Enable: []string{"unsized-volume"}}, nil,
			[]string{"16 unsized-volume info"}},
		{"enable all, disable one", &lint.Config{Enable: []string{"all"}, Disable: []string{"wildcard-allow"}}, nil,
			[]string{"13 port-trust-boundary info", "16 unsized-volume info"}},
		{"severity override", &lint.Config{Severity: map[string]lint.Severity{"wildcard-allow": lint.SeverityError, "unsized-volume": lint.SeverityWarning}}, nil,
			[]string{"12 wildcard-allow error", "13 port-trust-boundary info", "16 unsized-volume warning"}},
		{"options over the configuration", &lint.Config{Disable: []string{"all"}},
			[]lint.Option{lint.WithEnable("wildcard-allow")}, []string{"12 wildcard-allow warning"}},
		{"option disable all over configuration enable", &lint.Config{Enable: []string{"port-trust-boundary"}},
			[]lint.Option{lint.WithDisable("all")}, nil},
		{"option disable beats configuration enable of the same rule", &lint.Config{Enable: []string{"port-trust-boundary"}},
			[]lint.Option{lint.WithDisable("port-trust-boundary")}, []string{"12 wildcard-allow warning", "16 unsized-volume info"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := lint.Run(context.Background(), []*spec.Kit{k}, append([]lint.Option{lint.WithConfig(tt.cfg)}, tt.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summary(res)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDisableAllKeepsSpec: "all" never turns off specification errors;
// only their own ID does.
func TestDisableAllKeepsSpec(t *testing.T) {
	k := memKit(t, noisyKit+"bogus: 1\n", nil)
	res, err := lint.Run(context.Background(), []*spec.Kit{k}, lint.WithDisable("all"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"17 spec/unknown-field error"}, summary(res)); diff != "" {
		t.Errorf("disable all (-want +got):\n%s", diff)
	}
	res, err = lint.Run(context.Background(), []*spec.Kit{k}, lint.WithDisable("all", "spec/unknown-field"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 {
		t.Errorf("disable all and spec/unknown-field: %v", summary(res))
	}
}

func TestConfigErrors(t *testing.T) {
	k := memKit(t, noisyKit, nil)
	tests := []struct {
		name    string
		opts    []lint.Option
		unknown bool
		msg     string
	}{
		{"unknown rule in the configuration", []lint.Option{lint.WithConfig(&lint.Config{Path: ".kitsmith.yaml", Disable: []string{"port-trust"}})},
			true, `lint configuration .kitsmith.yaml: disable: unknown rule "port-trust" (did you mean "port-trust-boundary"?`},
		{"misspelled rule in an option", []lint.Option{lint.WithEnable("wildcard-alow")},
			true, `WithEnable: unknown rule "wildcard-alow" (did you mean "wildcard-allow"?)`},
		{"unknown severity key", []lint.Option{lint.WithConfig(&lint.Config{Severity: map[string]lint.Severity{"nope": lint.SeverityInfo}})},
			true, `severity: unknown rule "nope"`},
		{"contradiction", []lint.Option{lint.WithEnable("unsized-volume"), lint.WithDisable("unsized-volume")},
			false, `"unsized-volume" is both in WithEnable and in WithDisable; keep it in one`},
		{"contradiction in the configuration", []lint.Option{lint.WithConfig(&lint.Config{Enable: []string{"all"}, Disable: []string{"all"}})},
			false, `"all" is both in enable and in disable`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lint.Run(context.Background(), []*spec.Kit{k}, tt.opts...)
			if err == nil {
				t.Fatal("Run succeeded, want an error")
			}
			if got := errors.Is(err, lint.ErrUnknownRule); got != tt.unknown {
				t.Errorf("errors.Is(err, ErrUnknownRule) = %v, want %v (%v)", got, tt.unknown, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
		})
	}
}

func TestConfigIgnore(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".kitsmith.yaml":                "ignore: [\"examples/**\", \"!examples/keep\", \"kits/old-*\"]\n",
		"examples/keep/keep.yaml":       noisyKit,
		"examples/a/a.yaml":             noisyKit,
		"kits/old-proxy/old-proxy.yaml": noisyKit,
		"kits/noisy/noisy.yaml":         noisyKit,
	})
	t.Chdir(root)
	cfg, err := lint.LoadConfig(".kitsmith.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var kits []*spec.Kit
	for _, p := range []string{"examples/a", "examples/keep", "kits/old-proxy", "kits/noisy"} {
		k, err := spec.LoadPath(p)
		if err != nil {
			t.Fatal(err)
		}
		kits = append(kits, k)
	}
	res, err := lint.Run(context.Background(), kits, lint.WithConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"examples/keep/keep.yaml", "kits/noisy/noisy.yaml"}, res.Kits); diff != "" {
		t.Errorf("linted kits (-want +got):\n%s", diff)
	}
}

package migrate

import (
	"slices"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// hookEnvs returns each generated hook's env list, by phase.
func hookEnvs(t *testing.T, res *Result) map[string][][]string {
	t.Helper()
	k, err := spec.Parse(res.Stem+".yaml", res.File(res.Stem+".yaml").Data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]string{}
	for _, e := range k.Descriptor.Entries() {
		if e.Type != spec.TypeLifecycle {
			continue
		}
		var lc spec.Lifecycle
		if err := spec.DecodeConfig(e.Config, &lc); err != nil {
			t.Fatal(err)
		}
		for _, h := range lc.Install {
			out["install"] = append(out["install"], h.Env)
		}
		for _, h := range lc.Startup {
			out["startup"] = append(out["startup"], h.Env)
		}
	}
	return out
}

// TestHookProxyEnv: v2 hooks saw the whole environment, the sandbox's
// proxy variables included; a migrated hook that runs a network client
// (as lint's hook-missing-proxy-env finds one) declares HTTP_PROXY and
// HTTPS_PROXY, so it keeps using the proxy. Other hooks declare nothing.
func TestHookProxyEnv(t *testing.T) {
	src := `schemaVersion: "2"
kind: mixin
name: hooks
version: "1.0.0"
sourceURL: https://example.org
licenses: [MIT]
permissions:
  network:
    allow: [example.org]
setup:
  install:
    - command: "curl -fsSL https://example.org/install.sh | sh"
    - command: "echo done > /tmp/done"
    - command: "pip install --user tool==1.2 && echo $TOOL_HOME"
  startup:
    - command: ["sh", "-c", "git clone https://example.org/repo.git ~/repo || true"]
    - command: ["mkdir", "-p", "/tmp/x"]
`
	res := migrateSpec(t, src)
	got := hookEnvs(t, res)
	want := map[string][][]string{
		"install": {{"HTTP_PROXY", "HTTPS_PROXY"}, nil, {"TOOL_HOME", "HTTP_PROXY", "HTTPS_PROXY"}},
		"startup": {{"HTTP_PROXY", "HTTPS_PROXY"}, nil},
	}
	for phase, envs := range want {
		for i, w := range envs {
			if i >= len(got[phase]) || !slices.Equal(got[phase][i], w) {
				t.Errorf("%s[%d] env = %v, want %v", phase, i, got[phase], w)
			}
		}
	}
	for _, f := range res.Lint.Findings {
		if f.RuleID == "hook-missing-proxy-env" {
			t.Errorf("lint still finds %s: %s", f.RuleID, f.Message)
		}
	}
}

// TestLintErrorIsNotDone: an output that validates and has no action note
// but that lint finds an error in is not done.
func TestLintErrorIsNotDone(t *testing.T) {
	src := `schemaVersion: "2"
kind: mixin
name: hooks
version: "1.0.0"
sourceURL: https://example.org
licenses: [MIT]
setup:
  startup:
    - command: ["sh", "-c", "export HTTPS_PROXY=http://10.0.0.1:3128; echo $HTTPS_PROXY > /tmp/p"]
`
	res := migrateSpec(t, src)
	if res.actions() != 0 || !res.Validation.OK() {
		t.Fatalf("the case is meant to have no action and validate: %d actions, %v", res.actions(), res.Validation.Err())
	}
	if !res.Lint.Fails(lint.SeverityError) {
		t.Fatalf("the case is meant to fail lint at error level: %v", res.Lint.Findings)
	}
	if !res.NeedsHuman() {
		t.Error("NeedsHuman() = false for an output lint finds an error in")
	}
}

// TestHookProxyEnvStagedScript: a hook that runs a script the recipe
// copies from the kit is judged on that script.
func TestHookProxyEnvStagedScript(t *testing.T) {
	src := workloadSpec + "  build:\n    dockerfile: Dockerfile\nsetup:\n  install:\n    - command: bash /opt/kit/setup.sh\n    - command: bash /opt/kit/quiet.sh\n"
	res := migrateSpec(t, src,
		"Dockerfile", "FROM alpine:3.20\nCOPY scripts/ /opt/kit/\n",
		"scripts/setup.sh", "#!/bin/sh\ncurl -fsSL https://example.org/tool -o /usr/local/bin/tool\n",
		"scripts/quiet.sh", "#!/bin/sh\necho quiet\n")
	got := hookEnvs(t, res)["install"]
	if len(got) != 2 || !slices.Equal(got[0], []string{"HTTP_PROXY", "HTTPS_PROXY"}) || len(got[1]) != 0 {
		t.Errorf("install envs = %v, want [[HTTP_PROXY HTTPS_PROXY] []]", got)
	}
}

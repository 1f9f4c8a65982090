package review

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

const np = "  - type: com.docker.sandbox/network-policy@2\n    config:\n"

// SPEC-v3 §7.4/widenings-gate: every kind of widening the specification
// names, each classified as a widening, and the narrowing it reverses to.
func TestDiffWidenings(t *testing.T) {
	tests := []struct {
		name       string
		old, new   string
		widenings  []string
		narrowings []string
	}{
		{name: "SPEC-v3 §7.4/widenings-gate: a new allow entry",
			old: np + "      runtime: {allow: [a.example.org]}\n", new: np + "      runtime: {allow: [a.example.org, b.example.org]}\n",
			widenings: []string{"network.runtime.allow: b.example.org"}},
		{name: "SPEC-v3 §7.4/widenings-gate: a new install-phase allow entry",
			old: np + "      runtime: {allow: [a.example.org]}\n", new: np + "      runtime: {allow: [a.example.org]}\n      install: {allow: [a.example.org]}\n",
			widenings: []string{"network.install.allow: a.example.org"}},
		{name: "network-policy@2/omitted-methods-paths-are-every: a bounded method",
			old:       np + "      runtime: {allow: [{hosts: [api.example.org], methods: [GET]}]}\n",
			new:       np + "      runtime: {allow: [{hosts: [api.example.org], methods: [GET, POST]}]}\n",
			widenings: []string{"network.runtime.http.allow: POST api.example.org/**"}},
		{name: "network-policy@2: a bounded path",
			old:       np + "      runtime: {allow: [{hosts: [api.example.org], methods: [GET], paths: [/v1/**]}]}\n",
			new:       np + "      runtime: {allow: [{hosts: [api.example.org], methods: [GET], paths: [/v1/**, /v2/x]}]}\n",
			widenings: []string{"network.runtime.http.allow: GET api.example.org/v2/x"}},
		{name: "SPEC-v3 §7.4/widenings-gate: a removed deny entry",
			old: np + "      runtime: {allow: [\"*.example.org\"], deny: [bad.example.org]}\n", new: np + "      runtime: {allow: [\"*.example.org\"]}\n",
			widenings: []string{"network.runtime.deny-removed: bad.example.org"}},
		{name: "SPEC-v3 §7.4/widenings-gate: a new credential",
			old: "", new: "  - type: com.docker.sandbox/credential@1\n    config: {service: github, phase: runtime, apiKey: {name: GH_TOKEN}}\n",
			widenings: []string{"credentials.runtime: github", "credentials.runtime.raw: github"}},
		{name: "credential@1/phase-scoped: a credential in a new phase",
			old:       "  - type: com.docker.sandbox/credential@1\n    config: {service: github, phase: runtime, apiKey: {name: GH_TOKEN}}\n",
			new:       "  - type: com.docker.sandbox/credential@1\n    config: {service: github, phase: [install, runtime], apiKey: {name: GH_TOKEN}}\n",
			widenings: []string{"credentials.install: github", "credentials.install.raw: github"}},
		{name: "ssh-agent@1/signatures-bounded: a wider SSH agent grant",
			old:       "  - type: com.docker.sandbox/ssh-agent@1\n    config: {phase: runtime, unrestricted: false, sign: [git]}\n",
			new:       "  - type: com.docker.sandbox/ssh-agent@1\n    config: {phase: runtime}\n",
			widenings: []string{"ssh-agent: runtime"}},
		{name: "SPEC-v3 §7.4/widenings-gate: a new volume path",
			old: "", new: "  - type: com.docker.sandbox/volume@1\n    config: {path: /data, size: 1g}\n",
			widenings: []string{"storage: /data"}},
		{name: "host-mount@1/separate-permission-surface: a volume path becoming host-shared",
			old:       "  - type: com.docker.sandbox/volume@1\n    config: {path: /cache, size: 1g}\n",
			new:       "  - type: com.docker.sandbox/host-mount@1\n    config: {path: /cache}\n",
			widenings: []string{"host-mount: /cache"}, narrowings: []string{"storage: /cache"}},
		{name: "SPEC-v3 §7.4/widenings-gate: a new port",
			old: "", new: "  - type: com.docker.sandbox/port@1\n    config: {container: 8080}\n",
			widenings: []string{"ports: 8080/tcp"}},
		{name: "SPEC-v3 §7.4/widenings-gate: a new USB match",
			old: "", new: "  - type: com.docker.sandbox/usb-device@1\n    config: {vendorId: \"1050\", productId: \"0407\"}\n",
			widenings: []string{"usb: 1050:0407"}},
		{name: "privileged@1/widening-gates: privileged",
			old: "", new: "  - type: com.docker.sandbox/privileged@1\n    description: nested containers\n",
			widenings: []string{"privileged: requests privileged execution"}},
		{name: "SPEC-v3 §7.4/widenings-gate: a read-only skills path becoming read-write",
			old:       "  - type: com.docker.sandbox/agent-skills@1\n    config: {path: /skills}\n",
			new:       "  - type: com.docker.sandbox/agent-skills@1\n    config: {path: /skills, mode: readwrite}\n",
			widenings: []string{"skills.write: /skills"}},
		{name: "SPEC-v3 §7.4/widenings-gate: a config change of an opaque request",
			old: "  - type: com.example/thing@1\n    config: {level: 1}\n", new: "  - type: com.example/thing@1\n    config: {level: 2}\n",
			widenings: []string{"services: com.example/thing@1+7f10c6cbcbae"}, narrowings: []string{"services: com.example/thing@1+16a5197c426c"}},
		{name: "SPEC-v3 §7.4: git-identity@1 is a service",
			old: "", new: "  - type: com.docker.sandbox/git-identity@1\n",
			widenings: []string{"services: com.docker.sandbox/git-identity@1"}},
		{name: "acp@1/declaration-grants-nothing: a new adapter widens nothing",
			old: "", new: "  - type: com.docker.sandbox/acp@1\n    optional: true\n    config: {agent: claude, command: [claude-acp]}\n"},
		{name: "acp@1/declaration-grants-nothing: a changed command and env widen nothing",
			old: "  - type: com.docker.sandbox/acp@1\n    optional: true\n    config: {agent: claude, command: [claude-acp]}\n",
			new: "  - type: com.docker.sandbox/acp@1\n    optional: true\n    config: {agent: claude, command: claude-acp --yolo, env: {MODE: bypassPermissions}, protocolVersion: 2}\n"},
		{name: "agent-sessions@1/declaration-grants-nothing",
			old: "", new: "  - type: com.docker.sandbox/agent-sessions@1\n    config: {prompt: [-p, \"{{.Prompt}}\"]}\n"},
		{name: "SPEC-v3 §7.4: kit-registry@1 is a service",
			old: "", new: "  - type: com.docker.sandbox/kit-registry@1\n",
			widenings: []string{"services: com.docker.sandbox/kit-registry@1"}},
		{name: "SPEC-v3 §7/name-display-only: a name change widens nothing",
			old: "  - type: com.docker.sandbox/port@1\n    name: web\n    config: {container: 80}\n",
			new: "  - type: com.docker.sandbox/port@1\n    name: site\n    config: {container: 80}\n"},
		{name: "SPEC-v3 §7.4: optional does not change the surface",
			old: "  - type: com.docker.sandbox/port@1\n    config: {container: 80}\n",
			new: "  - type: com.docker.sandbox/port@1\n    optional: true\n    config: {container: 80}\n"},
		{name: "volume@1 gate: size and mode changes do not widen",
			old: "  - type: com.docker.sandbox/volume@1\n    config: {path: /data, size: 1g}\n",
			new: "  - type: com.docker.sandbox/volume@1\n    config: {path: /data/, size: 2g, mode: \"0700\"}\n"},
		{name: "a narrowing: a deny entry added, an allow entry removed",
			old: np + "      runtime: {allow: [a.example.org, b.example.org]}\n", new: np + "      runtime: {allow: [a.example.org], deny: [c.example.org]}\n",
			narrowings: []string{"network.runtime.allow: b.example.org", "network.runtime.deny-added: c.example.org"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := source(t, "old.yaml", "kind: mixin\ncapabilities:\n"+tc.old)
			new := source(t, "new.yaml", "kind: mixin\ncapabilities:\n"+tc.new)
			r := Diff(old, new)
			if tc.widenings == nil {
				tc.widenings = []string{}
			}
			if tc.narrowings == nil {
				tc.narrowings = []string{}
			}
			if diff := cmp.Diff(tc.widenings, lines(r.Widenings)); diff != "" {
				t.Errorf("widenings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.narrowings, lines(r.Narrowings)); diff != "" {
				t.Errorf("narrowings (-want +got):\n%s", diff)
			}
			if r.Widened() != (len(tc.widenings) > 0) {
				t.Errorf("Widened() = %v", r.Widened())
			}
			for _, c := range r.Widenings {
				if c.At == nil {
					t.Errorf("widening %s: %s has no position", c.Category, c.Detail)
				}
			}
		})
	}
}

// An arg value that widens policy gates like any widening (SPEC-v3 §7.4:
// the surface is the effective descriptor's).
func TestDiffEffective(t *testing.T) {
	body := "kind: mixin\nargs:\n  host: {default: a.example.org, env: HOST}\ncapabilities:\n" + np + "      runtime: {allow: [\"${{ kit.args.host }}\"]}\n"
	k := source(t, "k.yaml", body)
	old, err := k.Effective(nil)
	if err != nil {
		t.Fatal(err)
	}
	new, err := k.Effective(map[string]string{"host": "b.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	r := Diff(old, new)
	if diff := cmp.Diff([]string{"network.runtime.allow: b.example.org"}, lines(r.Widenings)); diff != "" {
		t.Errorf("widenings (-want +got):\n%s", diff)
	}
	if _, err := k.Effective(map[string]string{"nope": "x"}); err == nil {
		t.Error("an undeclared kit arg was accepted")
	}
}

// The changes outside the surface, each kind once.
func TestDiffOtherChanges(t *testing.T) {
	old := source(t, "old.yaml", `kind: mixin
version: "1.0.0"
provides: [com.example/tool]
requires: [com.example/base]
args:
  level: {default: "1", env: LEVEL}
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      install: [{command: make install}]
      files: [{path: /etc/tool.conf, content: "a=1\n"}]
  - type: com.docker.sandbox/agent-context@1
    config: {content: "Use the tool.\n"}
  - type: com.docker.sandbox/resources@1
    config: {cpu: 1}
`)
	new := source(t, "new.yaml", `kind: mixin
version: "1.1.0"
provides: [com.example/tool]
requires: ["com.example/base >= 2"]
conflicts: [com.example/other]
args:
  level: {default: "2", env: LEVEL}
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      install: [{command: make install PREFIX=/opt, user: "0"}]
      startup: [{command: [tool, serve]}]
      files: [{path: /etc/tool.conf, content: "a=2\n"}]
  - type: com.docker.sandbox/agent-context@1
    config: {content: "Use the tool, always.\n"}
  - type: com.docker.sandbox/long-running@1
`)
	r := Diff(old, new)
	want := []string{
		"metadata.version: version", "requires: com.example/base >= 2", "requires: com.example/base",
		"conflicts: com.example/other", "args: level",
		"agent-context: content",
		"lifecycle.install: hook install[0]", "lifecycle.install: hook install[0] user", "lifecycle.startup: hook startup[0]",
		"lifecycle.files: /etc/tool.conf content",
		"capabilities: long-running@1", "capabilities: resources@1",
	}
	if diff := cmp.Diff(want, lines(r.Changes)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if len(r.Widenings)+len(r.Narrowings) != 0 {
		t.Errorf("surface changes: %v %v", r.Widenings, r.Narrowings)
	}
}

// acp@1 grants nothing (acp@1/declaration-grants-nothing): a changed
// adapter is a change outside the surface, listed with its config.
func TestDiffACP(t *testing.T) {
	old := source(t, "old.yaml", "kind: mixin\ncapabilities:\n  - type: com.docker.sandbox/acp@1\n    optional: true\n    config: {agent: claude, command: [claude-acp]}\n")
	new := source(t, "new.yaml", "kind: mixin\ncapabilities:\n  - type: com.docker.sandbox/acp@1\n    optional: true\n    config: {agent: claude, command: [claude-acp, --stdio], env: {MODE: strict}}\n")
	r := Diff(old, new)
	if r.Widened() || len(r.Narrowings) != 0 {
		t.Errorf("surface changes: %v %v", r.Widenings, r.Narrowings)
	}
	want := []Change{{Kind: KindChange, Category: "acp@1", Detail: "config",
		Old: `{"agent":"claude","command":["claude-acp"]}`, New: `{"agent":"claude","command":["claude-acp","--stdio"],"env":{"MODE":"strict"}}`,
		At: &spec.Pos{File: "new.yaml", Line: 7, Col: 13}}}
	if diff := cmp.Diff(want, r.Changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

// Optional groups: what selecting each adds to the required surface.
func TestDiffGroups(t *testing.T) {
	k := source(t, "k.yaml", `kind: mixin
capabilities:
  - type: com.docker.sandbox/volume@1
    config: {path: /data, size: 1g}
  - group:
      name: Shared cache
      optional: true
      capabilities:
        - type: com.docker.sandbox/host-mount@1
          config: {path: /cache}
        - type: com.docker.sandbox/volume@1
          config: {path: /data, size: 1g}
`)
	r := Diff(k, k)
	if len(r.Groups) != 1 || r.Groups[0].Group != "Shared cache" {
		t.Fatalf("groups = %+v", r.Groups)
	}
	if diff := cmp.Diff([]string{"host-mount: /cache"}, lines(r.Groups[0].Adds)); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
	if got := r.Groups[0].Adds[0].At; got == nil || got.Line != 11 {
		t.Errorf("position = %v, want line 11", got)
	}
}

// The three renderings of one diff, pinned.
func TestWriteDiff(t *testing.T) {
	read := func(name string) *Kit {
		b, err := os.ReadFile("testdata/diff/" + name)
		if err != nil {
			t.Fatal(err)
		}
		k := source(t, name, string(b[bytes.IndexByte(b, '\n')+1:][len("schemaVersion: \"3\"\n"):]))
		return k
	}
	r := Diff(read("v1/tool.yaml"), read("v2/tool.yaml"))
	for _, f := range []struct{ format, file string }{{FormatText, "diff.txt"}, {FormatJSON, "diff.json"}, {FormatMarkdown, "diff.md"}} {
		var b bytes.Buffer
		if err := WriteDiff(&b, r, f.format); err != nil {
			t.Fatal(err)
		}
		golden(t, "diff/"+f.file, b.Bytes())
	}
	if err := WriteDiff(&bytes.Buffer{}, r, "sarif"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// A recorded surface diffs like a kit's, without positions.
func TestDiffSurfaces(t *testing.T) {
	old := &spec.Surface{NetworkRuntimeAllow: []string{"a.example.org"}, NetworkRuntimeDeny: []string{"c.example.org"}}
	new := &spec.Surface{NetworkRuntimeAllow: []string{"b.example.org"}, Privileged: true}
	w, n := DiffSurfaces(old, new)
	if diff := cmp.Diff([]string{"network.runtime.allow: b.example.org", "network.runtime.deny-removed: c.example.org",
		"privileged: requests privileged execution"}, lines(w)); diff != "" {
		t.Errorf("widenings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"network.runtime.allow: a.example.org"}, lines(n)); diff != "" {
		t.Errorf("narrowings (-want +got):\n%s", diff)
	}
}

package build

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// contrib parses a published descriptor into a contribution.
func contrib(t *testing.T, who, src string) contribution {
	t.Helper()
	k, err := spec.Parse(who+".yaml", []byte("schemaVersion: \"3\"\n"+src))
	if err != nil || k.Descriptor == nil {
		t.Fatalf("%s: %v", who, err)
	}
	return contribution{who: who, d: k.Descriptor, body: func(cf string) ([]byte, error) { return []byte("body of " + cf + "\n"), nil }}
}

func TestMergeSet(t *testing.T) {
	own := &spec.Descriptor{SchemaVersion: "3", DisplayName: "S", Version: "9.0.0", Kind: spec.KindSet}
	cs := []contribution{
		contrib(t, "w", `kind: workload
version: "1.0.0"
licenses: [MIT]
provides: [com.example/w]
requires: ["com.example/a >= 1", "com.example/elsewhere"]
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {runtime: {allow: [a.example]}}
  - type: com.docker.sandbox/lifecycle@1
    config: {startup: [{command: one}], files: [{path: /etc/x, content: x}]}
  - type: com.docker.sandbox/volume@1
    optional: true
    config: {path: /data}
`),
		contrib(t, "a", `kind: mixin
version: "1.2.0"
licenses: [MIT, Apache-2.0]
provides: [com.example/a, "com.example/extra@3"]
integrates: [com.example/w]
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config: {runtime: {allow: [b.example, a.example]}, install: {deny: [c.example]}}
  - type: com.docker.sandbox/lifecycle@1
    config: {startup: [{command: two}], interactive: [bash]}
  - type: com.docker.sandbox/volume@1
    name: data
    config: {path: /data/}
  - type: com.docker.sandbox/agent-context@1
    config: {contentFile: /usr/share/sandbox/kit/a/A.md}
  - type: com.docker.sandbox/agent-context@1
    config: {filename: AGENTS.md, contentFile: /usr/share/sandbox/kit/a/AGENTS.md}
`),
	}
	m, err := mergeSet(own, spec.KindSet, "s", cs)
	if err != nil {
		t.Fatal(err)
	}
	d := m.d
	if d.Kind != spec.KindWorkload || d.DisplayName != "S" || d.Version != "9.0.0" {
		t.Errorf("kind %s, name %s, version %s", d.Kind, d.DisplayName, d.Version)
	}
	if diff := cmp.Diff([]string{"com.example/w@1.0.0", "com.example/a@1.2.0", "com.example/extra@3"}, d.Provides); diff != "" {
		t.Errorf("provides (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"com.example/elsewhere"}, d.Requires); diff != "" {
		t.Errorf("requires (-want +got):\n%s", diff)
	}
	if len(d.Integrates) != 0 || strings.Join(d.Licenses, ",") != "MIT,Apache-2.0" {
		t.Errorf("integrates %v, licenses %v", d.Integrates, d.Licenses)
	}
	caps, err := json.MarshalIndent(d.Capabilities, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "merge.capabilities.json", append(caps, '\n'))
	var staged []string
	for _, f := range m.files {
		staged = append(staged, f.Path+": "+string(f.Data))
	}
	if diff := cmp.Diff([]string{
		"/usr/share/sandbox/kit/s/context-3/AGENTS.md: body of /usr/share/sandbox/kit/a/AGENTS.md\n",
		"/usr/share/sandbox/kit/s/context.md: body of /usr/share/sandbox/kit/a/A.md\n",
	}, staged); diff != "" {
		t.Errorf("staged bodies (-want +got):\n%s", diff)
	}
}

func TestMergeSetRefusals(t *testing.T) {
	own := &spec.Descriptor{SchemaVersion: "3", Kind: spec.KindSet}
	tests := []struct {
		name string
		a, b string
		want string
	}{
		{"lifecycle file twice", "kind: mixin\ncapabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {files: [{path: /etc/x, content: a}]}\n",
			"kind: mixin\ncapabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {files: [{path: /etc//x, content: b}]}\n", "both write the lifecycle file"},
		{"two interactive commands", "kind: mixin\ncapabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {interactive: [bash]}\n",
			"kind: mixin\ncapabilities:\n  - type: com.docker.sandbox/lifecycle@1\n    config: {interactive: [zsh]}\n", "interactive command"},
		{"two agent profiles", "kind: mixin\ncapabilities:\n  - type: com.docker.sandbox/agent-context@1\n    config: {filename: AGENTS.md, content: a}\n",
			"kind: mixin\ncapabilities:\n  - type: com.docker.sandbox/agent-context@1\n    config: {filename: AGENTS.md, content: b}\n", "agent-context@1 for AGENTS.md with different configs"},
		{"credentials differ", "kind: mixin\ncapabilities:\n  - type: com.docker.sandbox/credential@1\n    config: {service: gh, phase: runtime, apiKey: {name: A}}\n",
			"kind: mixin\ncapabilities:\n  - type: com.docker.sandbox/credential@1\n    config: {service: gh, phase: [runtime], apiKey: {name: B}}\n", "credential@1 for gh (runtime)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mergeSet(own, spec.KindSet, "s", []contribution{contrib(t, "a", tc.a), contrib(t, "b", tc.b)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

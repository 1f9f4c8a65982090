package spec

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// SPEC-v3 §9: Publish expands build-phase args structurally and rewrites
// agent-context contentFile to the staged path.
func TestPublish(t *testing.T) {
	src := SyntaxLine + `
schemaVersion: "3"
kind: mixin
# installs gh ${{ kit.args.version }}
version: "${{ kit.args.version }}"
provides: ["gh@${{ kit.args.version }}"]
args:
  version: {default: "2.40.0", buildArg: GH_VERSION, pattern: '[0-9.]+'}
  port: {default: "8080", buildArg: PORT}
  model: {default: "", env: GH_MODEL}
capabilities:
  - type: com.docker.sandbox/port@1
    config: {container: "${{ kit.args.port }}"}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: gh config set model '${{ kit.args.model }}'
  - type: com.docker.sandbox/agent-context@1
    config: {contentFile: ./docs/gh.md}
`
	k := loadKit(t, src, map[string]string{"docs/gh.md": "use gh\n"})
	pub, r := k.Publish(map[string]string{"version": "2.41.1"})
	if !r.OK() {
		t.Fatalf("Publish: %v", r.Err())
	}
	want := SyntaxLine + `
schemaVersion: "3"
kind: mixin
# installs gh 2.41.1
version: "2.41.1"
provides: ["gh@2.41.1"]
args:
  version: {default: "2.40.0", buildArg: GH_VERSION, pattern: '[0-9.]+'}
  port: {default: "8080", buildArg: PORT}
  model: {default: "", env: GH_MODEL}
capabilities:
  - type: com.docker.sandbox/port@1
    config: {container: 8080}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: gh config set model '${{ kit.args.model }}'
  - type: com.docker.sandbox/agent-context@1
    config: {contentFile: /usr/share/sandbox/kit/k/gh.md}
`
	if diff := cmp.Diff(want, string(pub.YAML)); diff != "" {
		t.Errorf("published YAML (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"/usr/share/sandbox/kit/k/gh.md": "docs/gh.md"}, pub.Staged); diff != "" {
		t.Errorf("staged (-want +got):\n%s", diff)
	}
	if pub.Descriptor.Version != "2.41.1" || pub.Descriptor.Capabilities[0].Config["container"] == nil {
		t.Errorf("published descriptor = %+v", pub.Descriptor)
	}
}

func TestPublishRefuses(t *testing.T) {
	tests := []struct {
		name, src string
		args      map[string]string
		files     map[string]string
		wantCode  string
	}{
		{name: "an invalid authored kit", src: "kind: mixin\nversion: v1\n", wantCode: "version"},
		{name: "a build arg outside its pattern", args: map[string]string{"v": "x"},
			src: "kind: mixin\nversion: \"${{ kit.args.v }}\"\nargs: {v: {default: \"1\", buildArg: V, pattern: '[0-9]+'}}\n", wantCode: "arg-value"},
		{name: "an unknown build arg", args: map[string]string{"nope": "1"},
			src: "kind: mixin\nversion: \"1\"\n", wantCode: "arg-undeclared"},
		{name: "a key collision", src: "kind: mixin\nversion: \"1\"\nargs: {k: {default: a, buildArg: K}}\ncapabilities:\n  - type: com.example/x@1\n    config: {\"${{ kit.args.k }}\": 1, a: 2}\n",
			wantCode: "expanded-key-collision-rejected"},
		{name: "an unversioned provide", src: "kind: mixin\nprovides: [gh]\n", wantCode: "versioned-provides"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pub, r := loadKit(t, kitSrc(tc.src), tc.files).Publish(tc.args)
			if pub != nil || r.OK() || r.Errors[0].Code != tc.wantCode {
				t.Errorf("Publish = %v, %v; want refused with %s", pub, r.Errors, tc.wantCode)
			}
		})
	}
}

// Grouped descriptors stage each body under context-<i>/.
func TestPublishGroupedContext(t *testing.T) {
	src := kitSrc(`kind: mixin
version: "1"
capabilities:
  - type: com.docker.sandbox/agent-context@1
    config: {contentFile: a.md}
  - group:
      optional: true
      capabilities:
        - type: com.docker.sandbox/agent-context@1
          config: {directory: /home/agent, filename: B.md, contentFile: sub/b.md}
`)
	pub, r := loadKit(t, src, map[string]string{"a.md": "a", "sub/b.md": "b"}).Publish(nil)
	if !r.OK() {
		t.Fatal(r.Err())
	}
	want := map[string]string{"/usr/share/sandbox/kit/k/context-0/a.md": "a.md", "/usr/share/sandbox/kit/k/context-1/b.md": "sub/b.md"}
	if diff := cmp.Diff(want, pub.Staged); diff != "" {
		t.Errorf("staged (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(pub.YAML), "contentFile: /usr/share/sandbox/kit/k/context-1/b.md") {
		t.Errorf("published YAML lacks the rewritten member:\n%s", pub.YAML)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/review"
)

// writeKit writes files (name → content) into root/dir and returns the
// directory.
func writeKit(t *testing.T, root, dir string, files map[string]string) string {
	t.Helper()
	d := filepath.Join(root, dir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

const kitHead = "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\n"

// reviewJSON is the part of diff --format json the tests read.
type reviewJSON struct {
	Widenings, Narrowings, Changes []review.Change
}

func diffJSON(t *testing.T, args ...string) (reviewJSON, int) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"diff", "--format", "json"}, args...)...)
	var d reviewJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("diff %v: exit %d: %v\n%s%s", args, code, err, out, errOut)
	}
	return d, code
}

func changeLines(cs []review.Change) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Category+": "+c.Detail)
	}
	return out
}

// publishBoth builds the kit in dir, pushes it as ref and writes it as
// the oci-archive: reference archive.
func publishBoth(t *testing.T, dir, ref, archive string) {
	t.Helper()
	for _, dest := range [][]string{{"--tag", ref, "--push"}, {"--output", archive}} {
		args := append([]string{"--progress", "quiet"}, append(dest, dir)...)
		if out, errOut, code := runBuild(t, env{"SOURCE_DATE_EPOCH": "0"}, args...); code != exitOK {
			t.Fatalf("build %s %v: exit %d\n%s%s", dir, dest, code, out, errOut)
		}
	}
}

// reviewSets pushes three mixins (a; b, requiring a, with an optional
// volume group; c, host-mounting the path of b's group) to an in-process
// registry and writes each as an oci-archive, and writes two set sources
// of one stem: full (b and a) and small (a), each with its own agent
// context. full is built both ways too. archive names a kit's archive.
func reviewSets(t *testing.T) (reg string, archive func(name string) string, full, small string) {
	t.Helper()
	reg = artifacttest.Registry(t, true)
	root := t.TempDir()
	members := map[string]map[string]string{
		"a": {"a.yaml": kitHead + `kind: mixin
version: "1.0.0"
provides: [com.example/a]
capabilities:
  - type: com.docker.sandbox/agent-context@1
    name: A guidance
    config: {contentFile: ./a.md}
  - type: com.docker.sandbox/lifecycle@1
    config: {startup: [{command: a-start}]}
`, "a.md": "Use a.\n"},
		"b": {"b.yaml": kitHead + `kind: mixin
version: "1.0.0"
provides: [com.example/b]
requires: [com.example/a]
capabilities:
  - type: com.docker.sandbox/agent-context@1
    config: {content: "Use b.\n"}
  - type: com.docker.sandbox/agent-context@1
    config: {directory: /home/agent/.config/b, filename: CONTEXT.md}
  - type: com.docker.sandbox/lifecycle@1
    config: {startup: [{command: b-start}]}
  - group:
      name: cache
      optional: true
      capabilities:
        - type: com.docker.sandbox/volume@1
          config: {path: /cache, size: 1g}
`},
		"c": {"c.yaml": kitHead + `kind: mixin
version: "1.0.0"
provides: [com.example/c]
capabilities:
  - type: com.docker.sandbox/host-mount@1
    config: {path: /cache}
`},
	}
	archive = func(name string) string { return "oci-archive:" + filepath.Join(root, name+".tar") }
	for name, files := range members {
		publishBoth(t, writeKit(t, root, name, files), reg+"/set/"+name+":1.0.0", archive(name))
	}
	setSrc := func(name string, refs ...string) string {
		src := kitHead + "kind: set\nversion: \"1.0.0\"\nkits:\n"
		for _, r := range refs {
			src += "  - ref: " + reg + "/set/" + r + ":1.0.0\n"
		}
		src += "capabilities:\n  - type: com.docker.sandbox/agent-context@1\n    config: {contentFile: ./own.md}\n"
		// one stem, team, so that both stage their context.md at one path
		return writeKit(t, root, name, map[string]string{"team.yaml": src, "own.md": "The set's own.\n"})
	}
	full, small = setSrc("full", "b", "a"), setSrc("small", "a")
	publishBoth(t, full, reg+"/set/full:1.0.0", archive("full"))
	return reg, archive, full, small
}

// A kind: set merging the undirected agent context of several kits, with
// an optional group and its own contentFile, diffs as no change against
// its built form, read from an oci-archive: written by kitsmith build and
// from a registry; --fail-on widening exits 1 only on widenings; resolve
// reads registry and oci-archive: inputs and names the group a
// group-only conflict comes from.
func TestReviewSetInputs(t *testing.T) {
	reg, archive, full, small := reviewSets(t)
	for _, built := range []string{archive("full"), reg + "/set/full:1.0.0"} {
		d, code := diffJSON(t, "--fail-on", "widening", full, built)
		if code != exitOK || len(d.Widenings)+len(d.Narrowings)+len(d.Changes) != 0 {
			t.Errorf("diff %s %s: exit %d, %+v", full, built, code, d)
		}
	}
	// the set without b: its directed profile, startup hook and optional
	// volume go; the joined agent-context entry stays as it is
	d, code := diffJSON(t, "--fail-on", "widening", archive("full"), small)
	wantChanges := []string{"provides: com.example/b@1.0.0", "kits: " + `{"ref":"` + reg + `/set/b:1.0.0","digest":"`}
	if code != exitOK || len(d.Widenings) != 0 || cmp.Diff([]string{"storage: /cache"}, changeLines(d.Narrowings)) != "" {
		t.Errorf("narrowing only: exit %d (want %d), %+v", code, exitOK, d)
	}
	got := changeLines(d.Changes)
	for _, w := range wantChanges {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
			t.Errorf("changes %v lack %q", got, w)
		}
	}
	for _, g := range got {
		if strings.HasPrefix(g, "agent-context") || strings.HasPrefix(g, "capability.") {
			t.Errorf("the joined agent context changed: %v\n%+v", got, d.Changes)
		}
	}
	d, code = diffJSON(t, "--fail-on", "widening", small, reg+"/set/full:1.0.0")
	if code != exitFindings || cmp.Diff([]string{"storage: /cache"}, changeLines(d.Widenings)) != "" {
		t.Errorf("a widening: exit %d (want %d), %+v", code, exitFindings, d)
	}
	if _, code := diffJSON(t, "--fail-on", "none", small, reg+"/set/full:1.0.0"); code != exitOK {
		t.Errorf("--fail-on none: exit %d", code)
	}
	// changes outside the surface only
	if d, code := diffJSON(t, "--fail-on", "widening", archive("a"), reg+"/set/c:1.0.0"); code != exitFindings || len(d.Widenings) != 1 {
		t.Errorf("a host mount added: exit %d, %+v", code, d)
	}
	if d, code := diffJSON(t, "--fail-on", "widening", archive("c"), reg+"/set/a:1.0.0"); code != exitOK || len(d.Changes) == 0 || len(d.Widenings) != 0 {
		t.Errorf("no widening: exit %d, %+v", code, d)
	}

	tests := []cmdCase{
		{name: "registry and oci-archive inputs", args: []string{"--set", reg + "/set/b:1.0.0", archive("a")}, stdout: "The composition resolves."},
		{name: "a group-only conflict names its group", args: []string{"--set", "--select-groups", "cache", reg + "/set/b:1.0.0", archive("a"), archive("c")},
			code: exitFindings, stdout: "(only with the selected optional group " + reg + "/set/b:1.0.0: cache; SPEC-v3 §7.1.1/conflicts"},
		{name: "markdown names the group", args: []string{"--set", "--format", "markdown", "--select-groups", "all", reg + "/set/b:1.0.0", archive("a"), archive("c")},
			code: exitFindings, stdout: "only with the selected optional group " + reg + "/set/b:1.0.0: cache"},
		{name: "without the group it resolves", args: []string{"--set", reg + "/set/b:1.0.0", archive("a"), archive("c")}, stdout: "The composition resolves."},
		{name: "json marks it", args: []string{"--set", "--format", "json", "--select-groups", "cache", reg + "/set/b:1.0.0", archive("a"), archive("c")},
			code: exitFindings, stdout: `"groups": [` + "\n" + `        "` + reg + `/set/b:1.0.0: cache"`},
	}
	runCmdCases(t, "resolve", tests)
}

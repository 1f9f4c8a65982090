package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// actionlint returns the actionlint binary KITSMITH_TEST_ACTIONLINT names,
// or skips (fails with KITSMITH_INTEGRATION=1).
func actionlint(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("KITSMITH_TEST_ACTIONLINT")
	if bin == "" {
		if os.Getenv("KITSMITH_INTEGRATION") == "1" {
			t.Fatal("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_ACTIONLINT is not set (scripts/services.sh env)")
		}
		t.Skip("KITSMITH_TEST_ACTIONLINT is not set (scripts/services.sh env)")
	}
	return bin
}

// runActionlint lints the workflow files (relative to dir) and returns
// the output and whether actionlint accepted them.
func runActionlint(t *testing.T, bin, dir string, files ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-no-color"}, files...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatalf("running actionlint: %v", err)
	}
	return string(out), err == nil
}

// exampleProject lays out a project whose action.yml is the repository's
// and whose one workflow is workflow, so that "uses: ./" resolves to the
// composite action and actionlint checks its inputs.
func exampleProject(t *testing.T, workflow string) string {
	t.Helper()
	dir := t.TempDir()
	action, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// actionlint finds the project (and so resolves ./) by its .git.
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".github", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, b := range map[string][]byte{"action.yml": action, ".github/workflows/kits.yml": []byte(workflow)} {
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestWorkflowsActionlint validates the release workflow and the composite
// action (used for lint, publish and verify) with actionlint.
func TestWorkflowsActionlint(t *testing.T) {
	bin := actionlint(t)
	for _, wf := range []string{"release-kits.yml", "release.yml"} {
		t.Run(wf, func(t *testing.T) {
			if out, ok := runActionlint(t, bin, filepath.Join("..", ".."), ".github/workflows/"+wf); !ok {
				t.Errorf("actionlint:\n%s", out)
			}
		})
	}
	example, err := os.ReadFile(filepath.Join("testdata", "workflows", "uses-action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("action used for lint, publish and verify", func(t *testing.T) {
		dir := exampleProject(t, string(example))
		if out, ok := runActionlint(t, bin, dir, ".github/workflows/kits.yml"); !ok {
			t.Errorf("actionlint:\n%s", out)
		}
	})
	// The check can fail: a misspelt input and an output the action does
	// not have are caught against action.yml.
	t.Run("a wrong input is caught", func(t *testing.T) {
		bad := strings.Replace(string(example), "stdout-file:", "stdout-fil:", 1)
		bad = strings.Replace(bad, "steps.publish.outputs.digest", "steps.publish.outputs.digests", 1)
		dir := exampleProject(t, bad)
		out, ok := runActionlint(t, bin, dir, ".github/workflows/kits.yml")
		if ok || !strings.Contains(out, "stdout-fil") {
			t.Errorf("actionlint accepted a misspelt input (ok=%v):\n%s", ok, out)
		}
	})
}

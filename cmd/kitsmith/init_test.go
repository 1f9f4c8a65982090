package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInit(t *testing.T) {
	for _, tt := range []struct {
		kind  string
		files []string
	}{
		{kind: "mixin", files: []string{"notes.yaml"}},
		{kind: "workload", files: []string{"notes.dockerfile", "notes.yaml"}},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			t.Chdir(t.TempDir())
			out, stderr, code := runCLI(t, "init", "--kind", tt.kind, "kits/notes")
			if code != 0 {
				t.Fatalf("init: exit %d\n%s", code, stderr)
			}
			for _, f := range tt.files {
				if !strings.Contains(out, "wrote "+filepath.Join("kits", "notes", f)+"\n") {
					t.Errorf("init did not report %s:\n%s", f, out)
				}
			}
			entries, _ := os.ReadDir(filepath.Join("kits", "notes"))
			if len(entries) != len(tt.files) {
				t.Errorf("kits/notes holds %d files, want %v", len(entries), tt.files)
			}
			// Lint-clean at every severity, and valid.
			lint, stderr, code := runCLI(t, "lint", "--fail-level", "info", "kits/notes")
			if code != 0 || !strings.Contains(lint, "1 kit linted: 0 errors, 0 warnings, 0 info") {
				t.Errorf("lint of the new kit: exit %d\n%s%s", code, lint, stderr)
			}
			if _, stderr, code := runCLI(t, "validate", "kits/notes"); code != 0 {
				t.Errorf("validate of the new kit: exit %d\n%s", code, stderr)
			}
			desc, _ := os.ReadFile(filepath.Join("kits", "notes", "notes.yaml"))
			for _, want := range []string{"# syntax=docker/sandbox-kit:3\n", "kind: " + tt.kind + "\n", "network-policy@2", "env: [KIT_GREETING]"} {
				if !strings.Contains(string(desc), want) {
					t.Errorf("descriptor lacks %q", want)
				}
			}
			// A second init into the same directory is refused and writes nothing.
			before, _ := os.ReadFile(filepath.Join("kits", "notes", "notes.yaml"))
			_, stderr, code = runCLI(t, "init", "kits/notes")
			if code != exitUsage || !strings.Contains(stderr, "kits/notes is not empty") {
				t.Errorf("init into a non-empty directory: exit %d\n%s", code, stderr)
			}
			if after, _ := os.ReadFile(filepath.Join("kits", "notes", "notes.yaml")); string(after) != string(before) {
				t.Error("the refused init changed the kit")
			}
		})
	}
	t.Run("an empty directory is fine", func(t *testing.T) {
		t.Chdir(t.TempDir())
		if err := os.Mkdir("tool", 0o755); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := runCLI(t, "init", "tool"); code != 0 {
			t.Errorf("init into an empty directory: exit %d\n%s", code, stderr)
		}
	})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"init", "--kind", "set", "x"}, `--kind must be mixin or workload, not "set"`},
		{[]string{"init", "Bad_Name"}, `"Bad_Name" is not a kit name`},
		{[]string{"init"}, "accepts 1 arg(s)"},
	} {
		t.Chdir(t.TempDir())
		if _, stderr, code := runCLI(t, tt.args...); code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, %s; want %q", tt.args, code, stderr, tt.want)
		}
	}
}

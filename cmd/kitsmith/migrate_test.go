package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// migrateFixtures are pkg/migrate's golden cases, relative to this package.
const migrateFixtures = "../../pkg/migrate/testdata"

// copyKit copies the v2 kit of a pkg/migrate golden case into a fresh
// directory named after it and returns that directory.
func copyKit(t *testing.T, row string) string {
	t.Helper()
	src := filepath.Join(migrateFixtures, row, "v2")
	dst := filepath.Join(t.TempDir(), row)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestMigrateCmd(t *testing.T) {
	tests := []struct {
		name     string
		row      string
		args     func(dir string) []string
		pre      func(t *testing.T, dir string)
		code     int
		stdout   []string // substrings
		stderr   string
		written  []string // files that must exist afterwards, relative to dir
		unwanted []string // files that must not exist
	}{
		{name: "clean", row: "top-level", args: func(d string) []string { return []string{"migrate", d} },
			code: 0, stdout: []string{"result: done"}, written: []string{"hello.yaml", "hello.dockerfile"}},
		{name: "needs a human", row: "environment", args: func(d string) []string { return []string{"migrate", d} },
			code: 1, stdout: []string{"action [proxy-env]", "result: needs a human"}, written: []string{"envkit.yaml"}},
		{name: "dry run", row: "agent-instructions", args: func(d string) []string { return []string{"migrate", "--dry-run", d} },
			code: 0, stdout: []string{"--- /dev/null", "+++ ", "ctx-context.md", "@@ -0,0 +1,", "+You run inside a Docker sandbox."},
			unwanted: []string{"ctx.yaml", "ctx-context.md"}},
		{name: "refuses to overwrite", row: "top-level", args: func(d string) []string { return []string{"migrate", d} },
			pre:  func(t *testing.T, d string) { writeFile(t, filepath.Join(d, "hello.yaml"), "old\n") },
			code: 2, stderr: "refusing to overwrite"},
		{name: "force", row: "top-level", args: func(d string) []string { return []string{"migrate", "--force", d} },
			pre:  func(t *testing.T, d string) { writeFile(t, filepath.Join(d, "hello.yaml"), "old\n") },
			code: 0, written: []string{"hello.yaml"}},
		{name: "dry run diffs what is there", row: "top-level", args: func(d string) []string { return []string{"migrate", "--dry-run", d} },
			pre:  func(t *testing.T, d string) { writeFile(t, filepath.Join(d, "hello.yaml"), "old\n") },
			code: 0, stdout: []string{"-old", "+# syntax=docker/sandbox-kit:3"}},
		{name: "output elsewhere carries files", row: "files-tree",
			args: func(d string) []string { return []string{"migrate", "--output", filepath.Join(d, "v3"), d} },
			code: 0, written: []string{"v3/tree.yaml", "v3/tree.dockerfile", "v3/files/home/.tree/settings.json"}},
		{name: "output elsewhere carries the Dockerfile's context", row: "dockerfile",
			args: func(d string) []string { return []string{"migrate", "--output", filepath.Join(d, "v3"), d} },
			code: 1, written: []string{"v3/built.yaml", "v3/built.dockerfile", "v3/scripts/start.sh"}},
		{name: "not a kit", row: "top-level", args: func(d string) []string { return []string{"migrate", filepath.Join(d, "nowhere")} },
			code: 2, stderr: "spec.yaml"},
		{name: "not v2", row: "top-level", args: func(d string) []string { return []string{"migrate", d} },
			pre:  func(t *testing.T, d string) { writeFile(t, filepath.Join(d, "spec.yaml"), "schemaVersion: \"3\"\n") },
			code: 2, stderr: "not a v2 kit"},
		{name: "dry run and force", row: "top-level", args: func(d string) []string { return []string{"migrate", "--dry-run", "--force", d} },
			code: 2, stderr: "--dry-run"},
		{name: "json", row: "environment", args: func(d string) []string { return []string{"migrate", "--format", "json", d} },
			code: 1, stdout: []string{`"formatVersion": 1`, `"code": "proxy-env"`, `"needsHuman": true`}, written: []string{"envkit.yaml"}},
		{name: "json and dry run", row: "top-level", args: func(d string) []string { return []string{"migrate", "--format", "json", "--dry-run", d} },
			code: 2, stderr: "--format json"},
		{name: "bad format", row: "top-level", args: func(d string) []string { return []string{"migrate", "--format", "yaml", d} },
			code: 2, stderr: "--format"},
		{name: "no argument", row: "top-level", args: func(string) []string { return []string{"migrate"} },
			code: 2, stderr: "accepts 1 arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyKit(t, tt.row)
			if tt.pre != nil {
				tt.pre(t, dir)
			}
			stdout, stderr, code := runCLI(t, tt.args(dir)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
			for _, f := range tt.written {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("%s was not written: %v", f, err)
				}
			}
			for _, f := range tt.unwanted {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s was written", f)
				}
			}
		})
	}
}

// TestMigrateForceReplaces checks --force really replaces the old content
// with the golden migration.
func TestMigrateForceReplaces(t *testing.T) {
	dir := copyKit(t, "top-level")
	writeFile(t, filepath.Join(dir, "hello.yaml"), "old\n")
	if _, stderr, code := runCLI(t, "migrate", "--force", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, "hello.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(migrateFixtures, "top-level", "want", "hello.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("hello.yaml after --force:\n%s\nwant:\n%s", got, want)
	}
}

func TestMigrateHelp(t *testing.T) {
	stdout, _, code := runCLI(t, "migrate", "--help")
	if code != 0 || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "--dry-run") {
		t.Errorf("exit %d, help:\n%s", code, stdout)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// commentKit is a comment descriptor whose hook reads a variable its
// env: does not declare: the fix must insert the key inside the # block.
const commentKit = `# syntax=docker/sandbox-kit:3
# kit:
#   schemaVersion: "3"
#   kind: mixin
#   displayName: Comment kit
#   description: A comment descriptor.
#   version: "1.0.0"
#   sourceUrl: https://example.com/kits/comment
#   licenses: [Apache-2.0]
#   capabilities:
#     - type: com.docker.sandbox/lifecycle@1
#       config:
#         startup:
#           - command: echo "$GREETING"   # keep this comment
#             user: "1000"
FROM scratch
`

// readTree returns the text of every file under dir, by relative path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLintFix runs --diff, --fix and a second --fix over the lint CLI
// fixtures plus a comment descriptor, in a copy: --diff writes nothing
// and exits 1, --fix writes what --diff showed (modes kept), the comment
// descriptor gets its env: inside the # block, and a second --fix finds
// nothing to do.
func TestLintFix(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join(lintTestdata, "kits"), filepath.Join(dir, "kits"))
	if err := os.WriteFile(filepath.Join(dir, "kits", ".kitsmith.yaml"), []byte("disable: [missing-metadata]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "kits", "comment"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kits", "comment", "Dockerfile"), []byte(commentKit), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	before := readTree(t, "kits")

	diff, stderr, code := runCLI(t, "lint", "--diff", "--recursive", "kits")
	if code != exitFindings {
		t.Fatalf("--diff exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "would fix") || !strings.Contains(diff, "+++ b/kits/comment/Dockerfile") {
		t.Errorf("--diff printed:\n%s\nstderr:\n%s", diff, stderr)
	}
	checkGolden(t, filepath.Join(cwdBefore(t), lintTestdata, "golden", "fix.diff.golden"), diff)
	if after := readTree(t, "kits"); !mapsEqual(before, after) {
		t.Fatal("--diff wrote files")
	}

	stdout, stderr, code := runCLI(t, "lint", "--fix", "--recursive", "kits")
	if code == exitUsage {
		t.Fatalf("--fix exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "fixed kits/comment/Dockerfile:14:") {
		t.Errorf("--fix did not say what it fixed:\n%s", stdout)
	}
	got, err := os.ReadFile(filepath.Join("kits", "comment", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(commentKit, `#           - command: echo "$GREETING"   # keep this comment`,
		"#           - env: [GREETING]\n#             command: echo \"$GREETING\"   # keep this comment", 1)
	if string(got) != want {
		t.Errorf("comment descriptor after --fix:\n%s\nwant:\n%s", got, want)
	}
	if fi, err := os.Stat(filepath.Join("kits", "comment", "Dockerfile")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after --fix: %v %v, want 0600", fi.Mode(), err)
	}
	changed := 0
	for p, b := range readTree(t, "kits") {
		if before[p] != b {
			changed++
		}
	}
	if changed < 2 {
		t.Errorf("--fix changed %d files, want the ones --diff showed", changed)
	}

	stdout, _, _ = runCLI(t, "lint", "--fix", "--recursive", "kits")
	if !strings.Contains(stdout, "nothing to fix") {
		t.Errorf("a second --fix changed more:\n%s", stdout)
	}
	if _, _, code := runCLI(t, "lint", "--diff", "--recursive", "kits"); code == exitFindings {
		// remaining findings have no safe fix; --diff must see no change
		out, _, _ := runCLI(t, "lint", "--diff", "--recursive", "kits")
		if out != "" {
			t.Errorf("--diff after --fix shows changes:\n%s", out)
		}
	}
}

// TestLintFixUsage: --unsafe-fixes needs --fix or --diff, and
// --fix-passes must be positive.
func TestLintFixUsage(t *testing.T) {
	for _, args := range [][]string{
		{"lint", "--unsafe-fixes", "kits/clean"},
		{"lint", "--fix", "--fix-passes", "0", "kits/clean"},
	} {
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			t.Chdir(lintTestdata)
			if _, _, code := runCLI(t, args...); code != exitUsage {
				t.Errorf("exit %d, want 2", code)
			}
		})
	}
}

// TestInsideKit: only regular files inside a kit directory are written;
// a symbolic link in the kit and a file outside it are not.
func TestInsideKit(t *testing.T) {
	dir := t.TempDir()
	kit := filepath.Join(dir, "kit")
	if err := os.MkdirAll(kit, 0o755); err != nil {
		t.Fatal(err)
	}
	in, out, link := filepath.Join(kit, "kit.yaml"), filepath.Join(dir, "outside.yaml"), filepath.Join(kit, "link.yaml")
	for _, p := range []string{in, out} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		want bool
	}{{in, true}, {out, false}, {link, false}, {filepath.Join(kit, "..", "outside.yaml"), false}} {
		if got := insideKit(tc.file, []string{kit}); got != tc.want {
			t.Errorf("insideKit(%s) = %v, want %v", tc.file, got, tc.want)
		}
	}
}

var startDir, _ = os.Getwd()

// cwdBefore returns the package directory, where the test started.
func cwdBefore(t *testing.T) string {
	t.Helper()
	return startDir
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestLintFixCompanionRecipe: a fix in a companion Dockerfile (removing
// ENV NO_PROXY, unsafe) is shown by --diff only with --unsafe-fixes, and
// --fix --unsafe-fixes writes it there.
func TestLintFixCompanionRecipe(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "pkg", "lint", "testdata", "proxy-env-override", "bad", "recipe-env"), filepath.Join(dir, "recipe-env"))
	t.Chdir(dir)
	safe, _, _ := runCLI(t, "lint", "--diff", "recipe-env")
	if strings.Contains(safe, "recipe-env.dockerfile") {
		t.Errorf("--diff without --unsafe-fixes changes the recipe:\n%s", safe)
	}
	unsafe, _, code := runCLI(t, "lint", "--diff", "--unsafe-fixes", "recipe-env")
	if code != exitFindings || !strings.Contains(unsafe, "+++ b/recipe-env/recipe-env.dockerfile") || !strings.Contains(unsafe, "-ENV HTTP_PROXY") {
		t.Fatalf("--diff --unsafe-fixes exit %d:\n%s", code, unsafe)
	}
	if _, stderr, code := runCLI(t, "lint", "--fix", "--unsafe-fixes", "recipe-env"); code == exitUsage {
		t.Fatalf("--fix --unsafe-fixes: %s", stderr)
	}
	b, err := os.ReadFile(filepath.Join("recipe-env", "recipe-env.dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "ENV HTTP_PROXY") || !strings.HasPrefix(string(b), "FROM ubuntu:24.04@sha256:") || !strings.Contains(string(b), "ENV LANG=C.UTF-8") {
		t.Errorf("recipe after --fix --unsafe-fixes:\n%s", b)
	}
}

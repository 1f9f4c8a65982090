package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// TestUsageErrorsTyped: cobra's own usage errors (argument count, unknown
// flag, unknown command) and kitsmith's exit 2 with the same hint.
func TestUsageErrorsTyped(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
		hint string
	}{
		{[]string{"inspect"}, "accepts 1 arg(s), received 0", "See 'kitsmith inspect --help'."},
		{[]string{"inspect", "--nope", "x"}, "unknown flag: --nope", "See 'kitsmith inspect --help'."},
		{[]string{"check", "a", "b"}, "accepts 1 arg", "See 'kitsmith check --help'."},
		{[]string{"check", "--list-checks", "a"}, "--list-checks takes no REF", "See 'kitsmith check --help'."},
		{[]string{"validate"}, "requires at least 1 arg(s)", "See 'kitsmith validate --help'."},
		{[]string{"lint"}, "lint needs a PATH", "See 'kitsmith lint --help'."},
		{[]string{"lint", "--list-rules", "kits/x"}, "--list-rules takes no PATH", "See 'kitsmith lint --help'."},
		{[]string{"lint", "--list-rules", "--format", "json"}, "--list-rules prints a table", "See 'kitsmith lint --help'."},
		{[]string{"check", "--list-checks", "--format", "json"}, "--list-checks prints a table", "See 'kitsmith check --help'."},
		{[]string{"version", "extra"}, `unknown command "extra"`, "See 'kitsmith version --help'."},
		{[]string{"valdiate", "x"}, `unknown command "valdiate" for "kitsmith"; did you mean validate?`, "See 'kitsmith --help'."},
		{[]string{"--bogus"}, "unknown flag: --bogus", "See 'kitsmith --help'."},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			if !strings.Contains(stderr, tc.msg) || !strings.HasSuffix(stderr, "\n"+tc.hint+"\n") {
				t.Errorf("stderr %q, want %q and the hint %q on the last line", stderr, tc.msg, tc.hint)
			}
		})
	}
}

// TestLocalRefHint: a bare path that names a local layout or archive is not
// sent to Docker Hub.
func TestLocalRefHint(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := errors.Join(os.MkdirAll("out", 0o755), os.MkdirAll("src", 0o755)); err != nil {
		t.Fatal(err)
	}
	at.WriteLayout(t, "out/hello", "1.0.0", at.Mixin(t).Index(t))
	at.TarLayout(t, "out/hello", "out/hello.tar")
	writeFile(t, "src/src.yaml", "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", "out/hello"}, "hint: did you mean oci:out/hello?"},
		{[]string{"check", "out/hello.tar"}, "hint: did you mean oci-archive:out/hello.tar?"},
		{[]string{"check", "src"}, "hint: src is a kit source, not a kit image: build one with 'kitsmith build --output oci:out src'"},
		{[]string{"inspect", "src/src.yaml"}, "hint: src/src.yaml is a kit source, not a kit image"},
		{[]string{"diff", "out/hello", "src"}, "hint: out/hello is an OCI layout; did you mean oci:out/hello?"},
		{[]string{"resolve", "out/hello.tar"}, "hint: did you mean oci-archive:out/hello.tar?"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
	if _, stderr, code := runCLI(t, "check", "oci:out/hello"); code != exitOK {
		t.Errorf("check oci:out/hello: exit %d: %s", code, stderr)
	}
}

// TestBuildDestinations: every destination is vetted before anything is
// built, and a refusal is a usage error naming the flag.
func TestBuildDestinations(t *testing.T) {
	dir := t.TempDir()
	decl := filepath.Join(buildKits, "decl-mixin")
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	notLayout := filepath.Join(dir, "stuff")
	if err := os.MkdirAll(notLayout, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notLayout, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"archive onto a FIFO", []string{"--output", "oci-archive:" + fifo}, `--output "oci-archive:` + fifo + `" names ` + fifo + ", which is a FIFO; an archive replaces only a regular file"},
		{"archive onto a directory", []string{"--output", "oci-archive:" + notLayout}, "which is a directory; an archive is a file (write a layout with oci:" + notLayout + ")"},
		{"layout into a non-layout directory", []string{"--output", "oci:" + notLayout}, "a non-empty directory that is not an OCI layout; choose another directory or empty it"},
		{"layout onto a file", []string{"--output", "oci:" + filepath.Join(notLayout, "keep.txt")}, "which is a regular file, not a directory; write an archive with oci-archive:"},
		{"under a file", []string{"--output", "oci:" + filepath.Join(notLayout, "keep.txt", "sub", "x")}, "keep.txt, which is a regular file, not a directory"},
		{"not an output", []string{"--output", "out/x"}, `--output "out/x" is not an output: write oci:DIR or oci-archive:FILE` + "\nhint: did you mean --output oci:out/x?"},
		{"an archive without its type", []string{"--output", "out/x.tar"}, "hint: did you mean --output oci-archive:out/x.tar?"},
		{"metadata file in a missing directory", []string{"--output", "oci:" + good, "--metadata-file", filepath.Join(dir, "no", "m.json")}, "--metadata-file"},
		{"metadata file onto a FIFO", []string{"--output", "oci:" + good, "--metadata-file", fifo}, "--metadata-file " + fifo + ": exists and is not a regular file"},
		{"metadata file onto a directory", []string{"--output", "oci:" + good, "--metadata-file", notLayout}, "is not a regular file"},
		{"garbage platform", []string{"--platform", "garbage"}, `--platform "garbage" is not a platform`},
		{"empty platform", []string{"--platform", ""}, "--platform is empty"},
		{"empty platform in a list", []string{"--platform", "linux/amd64,"}, `--platform "" is not a platform`},
		{"undeclared kit arg", []string{"--build-arg", "nope=1"}, `--build-arg nope:`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runBuild(t, env{}, append(append([]string{"--progress", "quiet"}, tc.args...), decl)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, no stdout, and %q", code, stdout, stderr, tc.want)
			}
			if _, err := os.Stat(good); err == nil {
				t.Errorf("%s was written although a destination was refused", good)
			}
			if b, err := os.ReadFile(filepath.Join(notLayout, "keep.txt")); err != nil || string(b) != "mine" {
				t.Errorf("the unrelated directory was touched: %q, %v", b, err)
			}
		})
	}
}

// TestBuildMessages: a build that writes nothing says so; a platform no
// sandbox runs is built with a warning.
func TestBuildMessages(t *testing.T) {
	decl := filepath.Join(buildKits, "decl-mixin")
	stdout, stderr, code := runBuild(t, env{}, "--progress", "quiet", decl)
	if code != exitOK || !strings.Contains(stdout, "nothing was written") {
		t.Errorf("exit %d, stdout %q, stderr %q; want a note that nothing was written", code, stdout, stderr)
	}
	stdout, stderr, code = runBuild(t, env{}, "--progress", "quiet", "--platform", "linux/amd64,linux/riscv64", decl)
	if code != exitOK || !strings.Contains(stderr, "warning: --platform linux/riscv64: sandboxes run linux/amd64 and linux/arm64 only") ||
		strings.Contains(stderr, "linux/amd64:") {
		t.Errorf("exit %d, stderr %q; want one warning about linux/riscv64", code, stderr)
	}
	if !strings.Contains(stdout, "linux/riscv64") {
		t.Errorf("riscv64 was not built:\n%s", stdout)
	}
}

// TestValidateRecursive searches a tree for kits like lint does.
func TestValidateRecursive(t *testing.T) {
	t.Chdir(specTestdata)
	stdout, stderr, code := runCLI(t, "validate", "--recursive", "valid")
	entries, err := os.ReadDir("valid")
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, e := range entries {
		if e.IsDir() {
			want++
		}
	}
	if code != exitOK || !strings.Contains(stdout, strings.ReplaceAll("N kits checked: N valid", "N", strconv.Itoa(want))) {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant %d valid kits", code, stdout, stderr, want)
	}
	if _, stderr, code := runCLI(t, "validate", "-r", "../../../internal"); code != exitUsage || !strings.Contains(stderr, "no kit found under") {
		t.Errorf("a tree without kits: exit %d, %s", code, stderr)
	}
	_, stderr, code = runCLI(t, "validate", "--mode", "effective", "--kit-arg", "nope=1", "valid/companion-workload")
	if code != exitUsage || !strings.Contains(stderr, `--kit-arg nope: valid/companion-workload/companion-workload.yaml declares no arg "nope" (its create-phase args: model)`) {
		t.Errorf("undeclared --kit-arg: exit %d, %s", code, stderr)
	}
}

// TestUnreadableKitFiles: a FIFO where a kit file or --config goes is
// refused at once, as an I/O error (exit 2) naming the file.
func TestUnreadableKitFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "k")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	desc := "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\ncapabilities:\n" +
		"  - type: com.docker.sandbox/agent-context@1\n    config: {contentFile: CONTEXT.md}\n"
	if err := os.WriteFile(filepath.Join(dir, "k.yaml"), []byte(desc), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "cfg.yaml")
	for _, p := range []string{filepath.Join(dir, "CONTEXT.md"), cfg} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", dir}, "reading contentFile " + filepath.Join(dir, "CONTEXT.md") + ": not a regular file (a named pipe)"},
		{[]string{"lint", dir}, "reading contentFile"},
		{[]string{"build", "--progress", "quiet", dir}, "reading contentFile"},
		{[]string{"lint", "--config", cfg, filepath.Join(buildKits, "decl-mixin")}, "--config: " + cfg + " is not a regular file"},
	} {
		t.Run(strings.Join(tc.args[:1], " "), func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

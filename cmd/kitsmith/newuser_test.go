package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// TestMistakesSayWhatToChange: the obvious mistakes of a new user exit 2
// with a message, and a hint, that say what to write instead.
func TestMistakesSayWhatToChange(t *testing.T) {
	t.Chdir(t.TempDir())
	at.WriteLayout(t, "out/hello", "1.0.0", at.Mixin(t).Index(t))
	at.TarLayout(t, "out/hello", "out/hello.tar")
	v3 := filepath.Join("v3", "tool")
	if err := os.MkdirAll(v3, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(v3, "tool.yaml"), "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\n")
	if err := os.MkdirAll("tree/amb", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"tree/amb/a.yaml", "tree/amb/b.yaml"} {
		writeFile(t, f, "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\n")
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"inspect", "--platform", "garbage", "oci:out/hello"}, []string{`--platform "garbage" is not a platform (os/arch[/variant], e.g. linux/arm64)`}},
		{[]string{"diff", "--platform", "linux/", "oci:out/hello", "oci:out/hello"}, []string{`--platform "linux/" is not a platform`}},
		{[]string{"validate", "--insecure-registry", v3}, []string{"--insecure-registry only applies to --resolve"}},
		{[]string{"publish", v3}, []string{"publish needs --tag REF for one kit, or --tag-template"}},
		{[]string{"lint", "--fail-level", "loud", v3}, []string{`--fail-level must be error, warning or info, not "loud"`}},
		{[]string{"publish", "--unsigned", "-t", "127.0.0.1:1/k:1", "--fail-level", "loud", v3}, []string{`--fail-level must be error, warning or info, not "loud"`}},
		{[]string{"build", "--progress", "fancy", v3}, []string{`--progress must be auto, plain, tty, quiet or rawjson, not "fancy"`}},
		{[]string{"build", "--builder", "buildkitd:1234", v3}, []string{`--builder "buildkitd:1234" is not a BuildKit address: write unix://, tcp://, docker-container://, podman-container://, kube-pod:// or ssh://, e.g. unix:///run/buildkit/buildkitd.sock`}},
		{[]string{"lint", "oci:out/hello"}, []string{"hint: oci:out/hello names a kit image, and validate and lint read kit sources; judge a kit image with 'kitsmith check oci:out/hello'"}},
		{[]string{"lint", "out/hello"}, []string{"'kitsmith check oci:out/hello'"}},
		{[]string{"validate", "out/hello.tar"}, []string{"'kitsmith check oci-archive:out/hello.tar'"}},
		{[]string{"validate", "oci:out/hello"}, []string{"'kitsmith check oci:out/hello'"}},
		{[]string{"lint", "--format", "yaml", v3}, []string{`--format must be text, github, json or sarif, not "yaml"`}},
		{[]string{"migrate", v3}, []string{v3 + " holds a v3 kit already: nothing to migrate"}},
		{[]string{"migrate", "out"}, []string{"out holds no spec.yaml: a v2 kit is a directory holding spec.yaml"}},
		{[]string{"migrate", "out/hello.tar"}, []string{"out/hello.tar is not a directory"}},
		{[]string{"migrate", "nope"}, []string{"stat nope: no such file or directory: a v2 kit is a directory holding spec.yaml"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing\n%s", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestRecursiveSearchJudgesEveryDescriptor: a directory holding several
// descriptors does not stop a recursive search; each is judged.
func TestRecursiveSearchJudgesEveryDescriptor(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("tree/amb", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"tree/amb/a.yaml", "tree/amb/b.yaml"} {
		writeFile(t, f, "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\n")
	}
	for _, cmd := range []string{"validate", "lint"} {
		t.Run(cmd, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, cmd, "-r", "--format", "json", "tree")
			if code != exitOK {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			for _, f := range []string{"tree/amb/a.yaml", "tree/amb/b.yaml"} {
				if !strings.Contains(stdout, f) {
					t.Errorf("%s -r did not judge %s:\n%s", cmd, f, stdout)
				}
			}
		})
	}
}

// TestPublishKeyExampleRuns runs publish's --key Example against an
// in-process registry: as written before, it failed for want of a
// transparency log.
func TestPublishKeyExampleRuns(t *testing.T) {
	priv, _ := keyPair(t)
	ref := at.Registry(t, true) + "/kits/gh:1.2.0"
	decl := filepath.Join(buildKits, "decl-mixin")
	stdout, stderr, code := runCLI(t, "publish", "--progress", "quiet", "--key", priv, "--tlog-upload=false", "--recursive", "-t", ref, decl)
	if code != exitOK || !strings.Contains(stdout, "verified") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, line := range exampleCommands(newPublishCmd(&rootOptions{}).Example) {
		if strings.Contains(line, "--key") && !strings.Contains(line, "--tlog-upload=false") && !strings.Contains(line, "--rekor-url") && !strings.Contains(line, "--signing-config") {
			t.Errorf("example %q signs with a key and names no transparency log", line)
		}
	}
}

// TestRootFirstRun runs the first run kitsmith --help teaches, on a kit
// directory named as there.
func TestRootFirstRun(t *testing.T) {
	src, err := filepath.Abs(filepath.Join(buildKits, "decl-mixin"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.CopyFS("kits/tool", os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	long := newRootCmd(&rootOptions{}).Long
	_, firstRun, ok := strings.Cut(long, "A first run, on a kit directory:\n")
	firstRun, _, _ = strings.Cut(firstRun, "\n\n")
	if !ok || firstRun == "" {
		t.Fatalf("kitsmith --help teaches no first run:\n%s", long)
	}
	for _, line := range strings.Split(firstRun, "\n") {
		for _, c := range strings.Split(line, "&&") {
			words := shellWords(strings.TrimSpace(c))
			if words[0] != "kitsmith" {
				t.Fatalf("%q does not run kitsmith", c)
			}
			args := words[1:]
			if args[0] == "build" {
				args = append([]string{"build", "--progress", "quiet"}, args[1:]...)
			}
			if stdout, stderr, code := runCLI(t, args...); code != exitOK {
				t.Errorf("%s: exit %d\n%s%s", c, code, stdout, stderr)
			}
		}
	}
}

// TestRefHint: what a reference that failed to read should have been.
func TestRefHint(t *testing.T) {
	t.Chdir(t.TempDir())
	at.WriteLayout(t, "out/hello", "1.0.0", at.Mixin(t).Index(t))
	for _, tc := range []struct{ ref, want string }{
		{"out/hello", "hint: did you mean oci:out/hello?"},
		{"http://127.0.0.1:5000/kits/a:1", "hint: a registry reference has no URL scheme: write 127.0.0.1:5000/kits/a:1 "},
		{"127.0.0.1:5000/Kits/a:1", "hint: repository names are lowercase: write 127.0.0.1:5000/kits/a:1"},
		{"localhost:5000/kits/A@sha256:ab", "hint: repository names are lowercase: write localhost:5000/kits/a@sha256:ab"},
		{"127.0.0.1:5000/kits/a:V1", ""}, // tags may hold capitals
		{"oci:Out/Hello", ""},
	} {
		t.Run(tc.ref, func(t *testing.T) {
			got := refHint(tc.ref, nil)
			if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
				t.Errorf("refHint(%q) = %q, want %q...", tc.ref, got, tc.want)
			}
		})
	}
	for _, args := range [][]string{
		{"check", "http://127.0.0.1:5000/kits/a:1"},
		{"inspect", "127.0.0.1:5000/Kits/a:1"},
		{"diff", "https://127.0.0.1:5000/kits/a:1", "oci:out/hello"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, stderr, code := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, "\nhint: ") {
				t.Errorf("exit %d, stderr %q; want 2 and a hint", code, stderr)
			}
		})
	}
}

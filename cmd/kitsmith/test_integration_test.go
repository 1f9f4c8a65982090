package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
)

// shellKit copies the busybox workload fixture with /bin/busybox beside
// its recipe.
func shellKit(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shell")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for src, dst := range map[string]string{
		"testdata/test/shell/shell.yaml": "shell.yaml", "testdata/test/shell/shell.dockerfile": "shell.dockerfile", "/bin/busybox": "busybox",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTestCommand runs kitsmith test on the repository's kits, composed
// with a busybox workload built by kitsmith build.
func TestTestCommand(t *testing.T) {
	host, _ := buildServices(t)
	shim := stack.StaticKitsmith(t)
	e := env{"BUILDKIT_HOST": host}
	shell := shellKit(t)
	layout := filepath.Join(t.TempDir(), "shell")
	if out, errOut, code := runBuild(t, e, "--progress", "quiet", "--platform", "linux/amd64", "--output", "oci:"+layout, shell); code != 0 {
		t.Fatalf("building the workload: exit %d\n%s\n%s", code, out, errOut)
	}
	test := func(args ...string) (string, string, int) {
		t.Helper()
		return runWith(t, e, append([]string{"test", "--shim", shim}, args...)...)
	}

	// The outside kit has no hooks: the workload's one passes, exit 0.
	out, errOut, code := test("--with", "oci:"+layout, "../../kits/outside")
	if code != 0 || !strings.Contains(out, "shell install[0] (the workload is ready) as 0: ok") || !strings.Contains(out, "1 hook run on linux/amd64: 1 passed, 0 failed") {
		t.Errorf("outside: exit %d\n%s\n%s", code, out, errOut)
	}
	// The inside kit needs npm (and Docker in the sandbox, not emulated):
	// its report names the hook that failed and why, exit 1.
	out, errOut, code = test("--with", "oci:"+layout, "--format", "text", "../../kits/inside")
	if code != 1 || !strings.Contains(out, "install[0] (Install the reShapr CLI into ~/.npm-g) as 1000: failed: exit 1") ||
		!strings.Contains(out, "reshapr-inside: npm not found") || !strings.Contains(out, "not emulated:") || !strings.Contains(out, "Docker in the sandbox") {
		t.Errorf("inside: exit %d\n%s\n%s", code, out, errOut)
	}
	// A workload on its own, as JUnit into a file.
	junit := filepath.Join(t.TempDir(), "hooks.xml")
	if _, errOut, code := test("--format", "junit", "--output", junit, shell); code != 0 {
		t.Errorf("shell: exit %d\n%s", code, errOut)
	}
	if b, err := os.ReadFile(junit); err != nil || !strings.Contains(string(b), `<testsuite name="install" tests="1" failures="0"`) {
		t.Errorf("junit: %v\n%s", err, b)
	}
	// A mixin needs a workload: the composition does not resolve, exit 1.
	if _, errOut, code := test("../../kits/outside"); code != 1 || !strings.Contains(errOut, "the composition does not resolve") {
		t.Errorf("no workload: exit %d\n%s", code, errOut)
	}
	// Infrastructure: a dynamically linked kitsmith, and no builder, exit 2.
	if _, errOut, code := runWith(t, e, "test", "--shim", "/bin/sh", "--with", "oci:"+layout, "../../kits/outside"); code != 2 || !strings.Contains(errOut, "CGO_ENABLED=0") {
		t.Errorf("dynamic shim: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := test("--builder", "unix:///nonexistent.sock", shell); code != 2 || !strings.Contains(errOut, "unix:///nonexistent.sock") {
		t.Errorf("no builder: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := test("--kit-arg", "nope=1", "--with", "oci:"+layout, "../../kits/outside"); code != 2 || !strings.Contains(errOut, `no kit of the composition declares an arg "nope"`) {
		t.Errorf("unknown --kit-arg: exit %d\n%s", code, errOut)
	}
}

// runWith runs the command tree in-process with the environment e.
func runWith(t *testing.T, e env, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, e, &out, &errOut)
	return out.String(), errOut.String(), code
}

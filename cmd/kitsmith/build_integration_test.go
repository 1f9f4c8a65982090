package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// buildServices returns the builder and registry of scripts/services.sh,
// or skips (fails with KITSMITH_INTEGRATION=1).
func buildServices(t *testing.T) (host, reg string) {
	t.Helper()
	host, reg = os.Getenv("BUILDKIT_HOST"), os.Getenv("KITSMITH_TEST_REGISTRY")
	if host == "" || reg == "" {
		if os.Getenv("KITSMITH_INTEGRATION") == "1" {
			t.Fatalf("KITSMITH_INTEGRATION=1 but BUILDKIT_HOST=%q and KITSMITH_TEST_REGISTRY=%q", host, reg)
		}
		t.Skip("BUILDKIT_HOST and KITSMITH_TEST_REGISTRY are not set (scripts/services.sh env)")
	}
	return host, reg
}

// TestBuildIntegration publishes the kits a set lists with kitsmith build
// (recipe kits through the builder named by BUILDKIT_HOST), then the set.
func TestBuildIntegration(t *testing.T) {
	host, reg := buildServices(t)
	e := env{"BUILDKIT_HOST": host, "SOURCE_DATE_EPOCH": "0"}
	for kit, tag := range map[string]string{"decl-mixin": "1.0.0", "decl-mixin-b": "2.1.0", "companion-workload": "0.4.0"} {
		ref := reg + "/kitsmith-test/" + kit + ":" + tag
		stdout, stderr, code := runBuild(t, e, "--progress", "plain", "--tag", ref, "--push", filepath.Join(buildKits, kit))
		if code != 0 || !strings.Contains(stdout, "pushed "+ref+"@sha256:") {
			t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", kit, code, stdout, stderr)
		}
	}
	dir := t.TempDir()
	stdout, stderr, code := runBuild(t, e, "--progress", "quiet", "--build-arg", "registry="+reg,
		"--output", "oci-archive:"+filepath.Join(dir, "set.tar"), "--metadata-file", filepath.Join(dir, "set.json"),
		"--tag", reg+"/kitsmith-cli/set:1.0.0", "--push", filepath.Join(buildKits, "set"))
	if code != 0 || !strings.Contains(stdout, "built set (workload, set)") {
		t.Fatalf("set: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"set.tar", "set.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// The builder given by flag wins over BUILDKIT_HOST.
	_, stderr, code = runBuild(t, e, "--progress", "quiet", "--builder", "unix:///nonexistent.sock", filepath.Join(buildKits, "inline-mixin"))
	if code != 2 || !strings.Contains(stderr, "unix:///nonexistent.sock") {
		t.Errorf("--builder: exit %d\n%s", code, stderr)
	}
}

// TestBuildPlatformsNoWarning builds a recipe kit for the default two
// platforms through BuildKit and checks that BuildKit's exporter does not
// warn that the requested platforms do not match the result's.
func TestBuildPlatformsNoWarning(t *testing.T) {
	host, _ := buildServices(t)
	stdout, stderr, code := runBuild(t, env{"BUILDKIT_HOST": host, "SOURCE_DATE_EPOCH": "0"},
		"--progress", "plain", filepath.Join(buildKits, "companion-workload"))
	if code != exitOK || !strings.Contains(stdout, "linux/arm64") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if strings.Contains(stderr, "do not match result platforms") || strings.Contains(stderr, "WARN") {
		t.Errorf("BuildKit warned:\n%s", stderr)
	}
}

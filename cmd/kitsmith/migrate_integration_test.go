package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateBuildsIntegration migrates v2 mixins of pkg/migrate's golden
// cases, builds the result (the recipes through the builder named by
// BUILDKIT_HOST) and checks the image: a migration must produce a kit that
// builds and conforms, /home ownership of a files/home overlay included.
func TestMigrateBuildsIntegration(t *testing.T) {
	host, _ := buildServices(t)
	e := env{"BUILDKIT_HOST": host, "SOURCE_DATE_EPOCH": "0"}
	for _, row := range []string{"files-tree", "mixin-overlay", "setup", "network-install"} {
		t.Run(row, func(t *testing.T) {
			dir := copyKit(t, row)
			if _, stderr, code := runCLI(t, "migrate", dir); code > 1 {
				t.Fatalf("migrate: exit %d\n%s", code, stderr)
			}
			layout := "oci:" + filepath.Join(t.TempDir(), "layout")
			stdout, stderr, code := runBuild(t, e, "--progress", "quiet", "--platform", "linux/amd64", "--output", layout, dir)
			if code != 0 {
				t.Fatalf("build: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			stdout, stderr, code = runCLI(t, "check", layout)
			if code != 0 || !strings.Contains(stdout, "conforms") {
				t.Fatalf("check: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
		})
	}
}

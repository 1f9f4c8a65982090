package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepoKits holds the repository's own reShapr kits to kitsmith's bar:
// valid without warnings, lint-clean at --fail-level info (so no warning or
// info either), complete metadata, and a build whose image passes check.
func TestRepoKits(t *testing.T) {
	for _, kit := range []string{"outside", "inside"} {
		t.Run(kit, func(t *testing.T) {
			dir := filepath.Join("..", "..", "kits", kit)

			out, errOut, code := runCLI(t, "validate", "--format", "json", dir)
			if code != exitOK {
				t.Fatalf("validate exit %d: %s%s", code, out, errOut)
			}
			var v struct {
				Kits []struct {
					Kind     string            `json:"kind"`
					Warnings []json.RawMessage `json:"warnings"`
				} `json:"kits"`
			}
			if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Kits) != 1 {
				t.Fatalf("validate output %q: %v", out, err)
			}
			if v.Kits[0].Kind != "mixin" || len(v.Kits[0].Warnings) != 0 {
				t.Errorf("want a mixin without warnings, got kind %q and %d warnings", v.Kits[0].Kind, len(v.Kits[0].Warnings))
			}

			if out, errOut, code := runCLI(t, "lint", "--fail-level", "info", dir); code != exitOK {
				t.Errorf("lint --fail-level info exit %d:\n%s%s", code, out, errOut)
			}

			layout := t.TempDir()
			if out, errOut, code := runCLI(t, "build", "--progress", "quiet", "--output", "oci:"+layout, dir); code != exitOK {
				t.Fatalf("build exit %d:\n%s%s", code, out, errOut)
			}
			out, errOut, code = runCLI(t, "check", "oci:"+layout)
			if code != exitOK || !strings.Contains(out, "conforms") {
				t.Errorf("check exit %d:\n%s%s", code, out, errOut)
			}
			out, _, code = runCLI(t, "inspect", "--format", "json", "oci:"+layout)
			if code != exitOK {
				t.Fatalf("inspect exit %d", code)
			}
			for _, field := range []string{"org.opencontainers.image.title", "org.opencontainers.image.description",
				"org.opencontainers.image.version", "org.opencontainers.image.source", "org.opencontainers.image.licenses"} {
				if !strings.Contains(out, field) {
					t.Errorf("the published kit lacks %s: complete the descriptor's metadata", field)
				}
			}
		})
	}
}

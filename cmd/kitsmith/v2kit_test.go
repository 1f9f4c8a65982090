package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A v2 kit (spec.yaml with schemaVersion "2") is named as one, with the
// migrate command to run, fails validate and lint with exit 1, and counts
// in a recursive run beside the v3 kits; a v3 kit whose directory also
// keeps its old spec.yaml is judged as the v3 kit it is.
func TestV2KitRecognised(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"old/spec.yaml":       "schemaVersion: \"2\"\nkind: mixin\nname: old\n",
		"both/spec.yaml":      "schemaVersion: \"2\"\nkind: mixin\nname: both\n",
		"both/both.yaml":      "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\n",
		"fresh/fresh.yaml":    "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\n",
		"notes/spec.yaml":     "openapi: 3.0.0\n", // a spec.yaml that is no kit
		"notes/README.md":     "not a kit\n",
		"old/files/home/x.sh": "echo hi\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	const v2 = "old/spec.yaml:1:1: error: this is a v2 kit (spec.yaml with schemaVersion \"2\"), which kitsmith does not judge: run `kitsmith migrate old`"
	tests := []struct {
		name  string
		args  []string
		code  int
		wants []string
	}{
		{"validate the v2 kit", []string{"validate", "old"}, exitFindings, []string{v2, "1 kit checked: 0 valid, 1 invalid"}},
		{"lint the v2 kit", []string{"lint", "old"}, exitFindings, []string{v2, "1 kit linted: 1 error"}},
		{"validate -r counts it", []string{"validate", "-r", "."}, exitFindings, []string{v2, "3 kits checked: 2 valid, 1 invalid"}},
		{"lint -r counts it", []string{"lint", "-r", "."}, exitFindings, []string{v2, "3 kits linted: 1 error"}},
		{"the v3 kit beside an old spec.yaml", []string{"validate", "both"}, exitOK, []string{"1 kit checked: 1 valid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.wants {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

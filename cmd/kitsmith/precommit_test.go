package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// preCommitHook is one entry of .pre-commit-hooks.yaml.
type preCommitHook struct {
	ID            string `yaml:"id"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	PassFilenames bool   `yaml:"pass_filenames"`
}

// TestPreCommitHooks checks both hook ids: the same command and file
// pattern, one built by pre-commit (golang), one from PATH (system), and
// the Go version the docs give is the one go.mod states.
func TestPreCommitHooks(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatal(err)
	}
	langs := map[string]string{}
	for _, h := range hooks {
		langs[h.ID] = h.Language
		if h.Entry != "kitsmith lint --files" || !h.PassFilenames {
			t.Errorf("hook %s: entry %q pass_filenames %v, want kitsmith lint --files with file names", h.ID, h.Entry, h.PassFilenames)
		}
		if h.Files != hooks[0].Files {
			t.Errorf("hook %s: files %q differs from %s's %q", h.ID, h.Files, hooks[0].ID, hooks[0].Files)
		}
	}
	if d := cmp.Diff(map[string]string{"kitsmith-lint": "golang", "kitsmith-lint-system": "system"}, langs); d != "" {
		t.Errorf("hook ids and languages (-want +got):\n%s", d)
	}
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "pre-commit.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Go " + string(m[1]) + " or later", "`go " + string(m[1]) + "`", "kitsmith-lint-system"} {
		if !strings.Contains(string(docs), want) {
			t.Errorf("docs/pre-commit.md does not say %q", want)
		}
	}
}

// TestPreCommitBuildsOnlyKitsmith checks what the golang hook's
// `go install ./...` builds: the kitsmith command alone, not the test tools.
func TestPreCommitBuildsOnlyKitsmith(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if got := strings.Fields(string(out)); !cmp.Equal(got, []string{"github.com/kitsmith/kitsmith/cmd/kitsmith"}) {
		t.Errorf("go install ./... would build %v, want only cmd/kitsmith", got)
	}
	// The look-alike: with the tag the test tools are there (the check can fail).
	cmd = exec.CommandContext(ctx, "go", "list", "-tags", "kitsmith_testtools", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list -tags kitsmith_testtools: %v", err)
	}
	if n := len(strings.Fields(string(out))); n != 3 {
		t.Errorf("with kitsmith_testtools: %d main packages, want 3 (kitsmith and two test tools):\n%s", n, out)
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/internal/golden"
)

// readmePath is the README whose example outputs TestREADMEExamples runs.
const readmePath = "../../README.md"

// readmeExample is one "$ kitsmith …" line of a console block in the README
// and the output printed under it.
type readmeExample struct {
	line     int // index of the command line in the README
	env      env
	args     []string
	want     []string
	outStart int // index of the first output line
}

// readmeExamples parses the console blocks of the README.
func readmeExamples(lines []string) []readmeExample {
	var out []readmeExample
	inBlock := false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "```console"):
			inBlock = true
		case strings.HasPrefix(l, "```"):
			inBlock = false
		case inBlock && strings.HasPrefix(l, "$ "):
			ex := readmeExample{line: i, env: env{}, outStart: i + 1}
			fields := strings.Fields(strings.TrimPrefix(l, "$ "))
			for len(fields) > 0 && strings.Contains(fields[0], "=") {
				k, v, _ := strings.Cut(fields[0], "=")
				ex.env[k] = v
				fields = fields[1:]
			}
			if len(fields) > 0 && fields[0] == "kitsmith" {
				ex.args = fields[1:]
				out = append(out, ex)
			}
		case inBlock && len(out) > 0 && out[len(out)-1].line < i:
			last := &out[len(out)-1]
			last.want = append(last.want, l)
		}
	}
	return out
}

// TestREADMEExamples runs every "$ kitsmith …" example of the README's
// console blocks, in order, in a directory holding the repository's kits
// and the README's own (testdata/readme), and compares what it prints with
// what the README shows (stdout: progress on stderr is not shown). KITSMITH_UPDATE_GOLDEN=1 go test -run TestREADMEExamples rewrites
// the README's outputs.
func TestREADMEExamples(t *testing.T) {
	readme, err := filepath.Abs(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	examples := readmeExamples(lines)
	if len(examples) < 4 {
		t.Fatalf("found %d README examples; the parser lost them", len(examples))
	}
	work := t.TempDir()
	for name, target := range map[string]string{"kits": "../../kits", "hello": "testdata/readme/hello", "greet": "testdata/readme/greet"} {
		abs, err := filepath.Abs(target)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(work, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)
	got := make([][]string, len(examples))
	for i, ex := range examples {
		var stdout, stderr bytes.Buffer
		run(context.Background(), ex.args, ex.env, &stdout, &stderr)
		got[i] = strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
		if !golden.Update() {
			if diff := cmp.Diff(ex.want, got[i]); diff != "" {
				t.Errorf("README line %d, kitsmith %s (-README +real):\n%s", ex.line+1, strings.Join(ex.args, " "), diff)
			}
		}
	}
	if !golden.Update() {
		return
	}
	var b []string
	next := 0
	for i, ex := range examples {
		b = append(b, lines[next:ex.outStart]...)
		b = append(b, got[i]...)
		next = ex.outStart + len(ex.want)
	}
	b = append(b, lines[next:]...)
	if err := os.WriteFile(readme, []byte(strings.Join(b, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

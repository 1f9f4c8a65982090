// Package archtest holds tests that enforce the repository's layering:
// only cmd/kitsmith touches cobra, the process environment, os.Stdout and
// os.Exit, and the lint, build and sign packages depend on spec but never
// on each other.
package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/kitsmith/kitsmith/"

// forbiddenImports maps a package directory (prefix) to imports it must
// not have.
var forbiddenImports = map[string][]string{
	"pkg/":      {"github.com/spf13/cobra", "github.com/spf13/pflag"},
	"pkg/spec":  {module + "pkg/lint", module + "pkg/build", module + "pkg/sign", module + "pkg/artifact"},
	"pkg/lint":  {module + "pkg/build", module + "pkg/sign", module + "pkg/artifact"},
	"pkg/build": {module + "pkg/lint", module + "pkg/sign"},
	"pkg/sign":  {module + "pkg/lint", module + "pkg/build"},
	"schemas":   {module + "pkg/"},
}

// forbiddenCalls are process-level operations libraries must leave to the
// command.
var forbiddenCalls = map[string]bool{
	"os.Exit": true, "os.Getenv": true, "os.LookupEnv": true, "os.Environ": true, "os.Setenv": true,
	"os.Stdout": true, "os.Stderr": true, "os.Stdin": true,
}

func TestLayering(t *testing.T) {
	for _, v := range violations(t, filepath.Join("..", "..")) {
		t.Error(v)
	}
}

// TestLayeringCatches proves the checker finds what it is meant to find.
func TestLayeringCatches(t *testing.T) {
	got := violations(t, filepath.Join("testdata", "bad"))
	want := []string{"imports github.com/spf13/cobra", "imports " + module + "pkg/build", "uses os.Getenv", "uses os.Stdout"}
	for _, w := range want {
		found := false
		for _, g := range got {
			if strings.Contains(g, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("no violation mentions %q; got %q", w, got)
		}
	}
}

func violations(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" && p != root || rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if !strings.HasPrefix(rel, "pkg/") && !strings.HasPrefix(rel, "schemas/") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for dir, bad := range forbiddenImports {
				if !strings.HasPrefix(rel, dir) {
					continue
				}
				for _, b := range bad {
					if path == b || strings.HasSuffix(b, "/") && strings.HasPrefix(path, b) {
						out = append(out, rel+" imports "+path+", which "+dir+" must not depend on")
					}
				}
			}
		}
		full, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(full, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" && forbiddenCalls["os."+sel.Sel.Name] {
				out = append(out, fset.Position(sel.Pos()).String()+": uses os."+sel.Sel.Name+
					"; only cmd/kitsmith may touch the process environment and standard streams")
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

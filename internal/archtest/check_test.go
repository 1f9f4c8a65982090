package archtest

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// A violation is one broken layering rule, printed as "pkg: message" or
// "file:line:col: message".
type violation struct {
	Where string
	Msg   string
}

func (v violation) String() string { return v.Where + ": " + v.Msg }

// rules is what a tree is checked against: the module path, the allowed
// module-internal imports of each package (transitively: a package may
// reach what its allowed imports may reach) and the library packages that
// may run programs.
type rules struct {
	module string
	allow  map[string][]string
	exec   map[string]bool
	// process are the packages that are programs or test harnesses, not
	// libraries: they may touch the environment, the standard streams and
	// os.Exit (their imports are still checked).
	process map[string]bool
	// command are the packages that may import forbiddenExternal (the CLI).
	command map[string]bool
}

// processVars are the os package's variables a library must not touch.
var processVars = map[string]bool{"Stdout": true, "Stderr": true, "Stdin": true}

// processState are the os package's names that read or change the
// process's environment, arguments, working directory or user directories
// (which come from $HOME and $XDG_*): a library takes them as parameters.
var processState = map[string]bool{
	"Getenv": true, "LookupEnv": true, "Environ": true, "Setenv": true, "Unsetenv": true,
	"Clearenv": true, "ExpandEnv": true, "Exit": true, "Getwd": true, "Chdir": true, "Args": true,
	"UserHomeDir": true, "UserCacheDir": true, "UserConfigDir": true,
}

// slogDefault are the log/slog functions that use or replace the default
// logger; a library takes a *slog.Logger (or a slog.Handler) instead.
var slogDefault = map[string]bool{
	"Debug": true, "DebugContext": true, "Info": true, "InfoContext": true,
	"Warn": true, "WarnContext": true, "Error": true, "ErrorContext": true,
	"Log": true, "LogAttrs": true, "With": true, "Default": true, "SetDefault": true,
	"SetLogLoggerLevel": true,
}

// forbiddenExternal are modules only the command may import, directly or
// through another package.
var forbiddenExternal = []string{"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/spf13/viper"}

// check loads every package of the module rooted at dir and returns what
// breaks r, sorted.
func check(t *testing.T, dir string, r rules) []violation {
	t.Helper()
	graph := load(t, dir, packages.NeedName|packages.NeedImports|packages.NeedDeps)
	typed := load(t, dir, packages.NeedName|packages.NeedImports|packages.NeedTypes|
		packages.NeedTypesInfo|packages.NeedSyntax)
	var out []violation
	byPath := map[string]*packages.Package{}
	for _, p := range graph {
		byPath[p.PkgPath] = p
	}
	for _, p := range graph {
		rel, ok := r.library(p.PkgPath)
		if !ok {
			continue
		}
		out = append(out, r.imports(rel, p)...)
	}
	for _, p := range typed {
		rel, ok := r.library(p.PkgPath)
		if !ok {
			continue
		}
		if !r.process[rel] {
			out = append(out, r.calls(rel, p)...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func load(t *testing.T, dir string, mode packages.LoadMode) []*packages.Package {
	t.Helper()
	// The test tools under internal/cmd build only with kitsmith_testtools.
	pkgs, err := packages.Load(&packages.Config{Mode: mode, Dir: dir, BuildFlags: []string{"-tags=kitsmith_testtools"}}, "./...")
	if err != nil {
		t.Fatalf("loading packages in %s: %v", dir, err)
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("loading %s: %v", p.PkgPath, e)
		}
	}
	return pkgs
}

// library reports whether path is a package of the module that is checked
// (under pkg/, internal/, cmd/ or schemas) and its module-relative path.
func (r rules) library(path string) (string, bool) {
	rel, ok := strings.CutPrefix(path, r.module+"/")
	if !ok {
		return "", false
	}
	for _, top := range []string{"pkg/", "internal/", "cmd/"} {
		if strings.HasPrefix(rel, top) {
			return rel, true
		}
	}
	return rel, rel == "schemas"
}

// reach returns every module-internal package rel may reach under the
// allow-list: its allowed imports and what they may reach.
func (r rules) reach(rel string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, a := range r.allow[p] {
			if !seen[a] {
				seen[a] = true
				walk(a)
			}
		}
	}
	walk(rel)
	return seen
}

// imports checks p's transitive imports: module-internal ones against the
// allow-list, external ones against forbiddenExternal. An allow-list entry
// p does not import directly is reported too, so that the lists stay the
// real edges.
func (r rules) imports(rel string, p *packages.Package) []violation {
	if _, ok := r.allow[rel]; !ok {
		return []violation{{rel, "package is not declared in the architecture allow-list (internal/archtest)"}}
	}
	allowed := r.reach(rel)
	var out []violation
	for _, a := range r.allow[rel] {
		if _, ok := p.Imports[r.module+"/"+a]; !ok {
			out = append(out, violation{rel, fmt.Sprintf("its allow-list names %s, which it does not import: drop it", a)})
		}
	}
	// The package's own imports first: the walk below visits each package
	// once, so a forbidden module that a dependency reaches first (as
	// sigstore-go reaches cobra) would hide the package's direct import.
	out = append(out, r.forbidden(rel, p, nil)...)
	seen := map[string]bool{}
	var walk func(q *packages.Package, via []string)
	walk = func(q *packages.Package, via []string) {
		for _, path := range slices.Sorted(mapsKeys(q.Imports)) {
			imp := q.Imports[path]
			if seen[imp.PkgPath] {
				continue
			}
			seen[imp.PkgPath] = true
			chain := append(slices.Clone(via), imp.PkgPath)
			if dep, ok := strings.CutPrefix(imp.PkgPath, r.module+"/"); ok {
				if !allowed[dep] {
					out = append(out, violation{rel, fmt.Sprintf("imports %s (via %s), which is not in its allow-list",
						dep, strings.Join(chain, " -> "))})
				}
				// Only an import made by a package of the module counts:
				// what a third-party dependency imports (sigstore-go
				// reaches cobra through rekor's pkcs7) is not the
				// command's concern.
				out = append(out, r.forbidden(rel, imp, chain)...)
			}
			walk(imp, chain)
		}
	}
	walk(p, nil)
	return out
}

// forbidden reports the direct imports of q (reached from rel through via)
// that are in forbiddenExternal; none for a command.
func (r rules) forbidden(rel string, q *packages.Package, via []string) []violation {
	if r.command[rel] {
		return nil
	}
	var out []violation
	for _, path := range slices.Sorted(mapsKeys(q.Imports)) {
		for _, f := range forbiddenExternal {
			if path == f || strings.HasPrefix(path, f+"/") {
				chain := append(slices.Clone(via), path)
				out = append(out, violation{rel, fmt.Sprintf("imports %s (via %s); only cmd/kitsmith may",
					f, strings.Join(chain, " -> "))})
			}
		}
	}
	return out
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// calls finds process-level operations in p through type information, so
// an aliased import is found as well as a plain one.
func (r rules) calls(rel string, p *packages.Package) []violation {
	var out []violation
	for path := range p.Imports {
		if path == "os/exec" && !r.exec[rel] {
			out = append(out, violation{rel, "imports os/exec; a library must not run programs"})
		}
	}
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.TypesInfo.Uses[id]
			if obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "os/exec" && r.exec[rel] {
				return true
			}
			if msg := forbiddenUse(obj); msg != "" {
				out = append(out, violation{p.Fset.Position(id.Pos()).String(), msg})
			}
			return true
		})
	}
	return out
}

// forbiddenUse says why a library must not use obj, or "" when it may.
func forbiddenUse(obj types.Object) string {
	if obj == nil || obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
		return "" // not a package-level object (methods, fields, locals)
	}
	name := obj.Pkg().Path() + "." + obj.Name()
	switch obj.Pkg().Path() {
	case "os":
		if _, ok := obj.(*types.Var); ok && processVars[obj.Name()] {
			return "uses " + name + "; only cmd/kitsmith may touch the standard streams"
		}
		if processState[obj.Name()] {
			return "uses " + name + "; only cmd/kitsmith may touch the process environment"
		}
	case "fmt":
		if strings.HasPrefix(obj.Name(), "Print") {
			return "uses " + name + ", which writes to os.Stdout; write to an io.Writer you are given"
		}
	case "log":
		if _, ok := obj.(*types.Func); ok && obj.Name() != "New" {
			return "uses " + name + ", the default logger; take an io.Writer or *log.Logger instead"
		}
	case "log/slog":
		if _, ok := obj.(*types.Func); ok && slogDefault[obj.Name()] {
			return "uses " + name + ", the default logger; take a *slog.Logger instead"
		}
	case "os/exec":
		return "uses " + name + "; a library must not run programs"
	}
	return ""
}

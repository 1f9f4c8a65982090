// Package archtest holds tests that enforce the repository's layering:
// each library package under pkg/, internal/ and schemas reaches only the
// module-internal packages its allow-list names, only cmd/kitsmith touches
// cobra, the process environment, the standard streams and os.Exit, and no
// library runs programs.
//
// A new package must be declared in allow before it can land.
package archtest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const module = "github.com/kitsmith/kitsmith"

// helpers are the leaf internal packages any library may use.
var helpers = []string{"internal/diag", "internal/suggest", "internal/textsafe", "internal/version"}

func with(pkgs ...string) []string { return append(pkgs, helpers...) }

// allow maps each library package (module-relative) to the module-internal
// packages it may import. Reach is transitive: a package may also reach what
// the packages it names may reach, and each of those is checked itself.
// Packages declared before they exist (sign, publish, review, migrate) keep
// their place in the layering.
var allow = map[string][]string{
	"schemas":                   {},
	"pkg/progress":              {},
	"pkg/spec":                  with("schemas"),
	"pkg/lint":                  with("pkg/spec"),
	"pkg/lint/format":           with("pkg/spec", "pkg/lint"),
	"pkg/artifact":              with("pkg/spec", "pkg/progress"),
	"pkg/artifact/artifacttest": with("pkg/spec", "pkg/artifact"),
	"pkg/build":                 with("pkg/spec", "pkg/artifact", "pkg/progress"),
	"pkg/sign":                  with("pkg/spec", "pkg/progress"),
	"pkg/sign/signtest":         with("pkg/sign"),
	"pkg/review":                with("pkg/spec", "pkg/artifact"),
	"pkg/migrate":               with("pkg/spec", "pkg/lint"),
	"pkg/lsp":                   with("pkg/spec", "pkg/lint", "schemas"),
	"pkg/publish":               with("pkg/spec", "pkg/lint", "pkg/build", "pkg/artifact", "pkg/sign", "pkg/progress", "pkg/review", "internal/gitdate"),
	"internal/archtest":         {},
	"internal/diag":             {"internal/textsafe"},
	"internal/suggest":          {},
	"internal/textsafe":         {},
	"internal/version":          {},
	"internal/gitdate":          {},
	// The local services the integration tests and the main job use: an
	// OIDC issuer, the trusted-root builder and the harness that reads
	// their environment. They never link into kitsmith itself.
	"internal/testsvc":                {},
	"internal/testsvc/oidcissuer":     {},
	"internal/testsvc/trustroot":      {},
	"internal/testsvc/stack":          {},
	"internal/cmd/kitsmith-oidc":      {"internal/testsvc/oidcissuer"},
	"internal/cmd/kitsmith-trustroot": {"internal/testsvc/trustroot"},
}

// process are the packages that are programs or test harnesses rather than
// libraries: the two service programs, and the harness that reads the
// services' environment for tests.
var process = map[string]bool{
	"internal/cmd/kitsmith-oidc":      true,
	"internal/cmd/kitsmith-trustroot": true,
	"internal/testsvc/stack":          true,
}

// mayExec are the library packages allowed to import os/exec (none).
var mayExec = map[string]bool{}

func TestLayering(t *testing.T) {
	for _, v := range check(t, filepath.Join("..", ".."), rules{module, allow, mayExec, process}) {
		t.Error(v)
	}
}

// TestLayeringCatches proves the checker finds each kind of violation,
// planted in the module under testdata/bad (its own go.mod, so the real
// build never sees it).
func TestLayeringCatches(t *testing.T) {
	bad := map[string][]string{
		"pkg/spec":         {},
		"pkg/lint":         {"pkg/spec"},
		"pkg/build":        {"pkg/spec"},
		"pkg/review":       {"pkg/spec"},
		"internal/printer": {},
		"internal/runner":  {},
	}
	got := check(t, filepath.Join("testdata", "bad"), rules{module, bad, map[string]bool{"internal/runner": true}, nil})
	var gotS []string
	for _, v := range got {
		gotS = append(gotS, v.String())
	}
	want := []string{
		"internal/printer: imports github.com/spf13/cobra (via github.com/spf13/cobra); only cmd/kitsmith may",
		"pkg/lint: imports os/exec; a library must not run programs",
		"pkg/newpkg: package is not declared in the architecture allow-list (internal/archtest)",
		"pkg/review: imports pkg/build (via " + module + "/pkg/build), which is not in its allow-list",
		"pkg/review: imports pkg/lint (via " + module + "/pkg/lint), which is not in its allow-list",
		"testdata/bad/internal/printer/printer.go:9:14: uses os.Stdout; only cmd/kitsmith may touch the standard streams",
		"testdata/bad/pkg/lint/lint.go:14:13: uses os.Getenv; only cmd/kitsmith may touch the process environment",
		"testdata/bad/pkg/lint/lint.go:18:6: uses fmt.Println, which writes to os.Stdout; write to an io.Writer you are given",
		"testdata/bad/pkg/lint/lint.go:19:6: uses log.Printf, the default logger; take an io.Writer or *log.Logger instead",
		"testdata/bad/pkg/lint/lint.go:23:14: uses os/exec.Command; a library must not run programs",
	}
	gotS = relative(t, gotS)
	slices.Sort(gotS)
	slices.Sort(want)
	if diff := cmp.Diff(want, gotS); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// relative strips the test's directory from file positions.
func relative(t *testing.T, vs []string) []string {
	t.Helper()
	wd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.TrimPrefix(v, wd+string(filepath.Separator))
	}
	return out
}

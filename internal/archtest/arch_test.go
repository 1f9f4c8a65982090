// Package archtest holds tests that enforce the repository's layering:
// each package under pkg/, internal/, cmd/ and schemas reaches only the
// module-internal packages its allow-list names (and names only packages
// it imports), only cmd/kitsmith imports cobra (directly or through a
// package of the module) and touches the process environment, arguments,
// user directories, the standard streams, os.Exit and the default loggers
// (log, log/slog), and no library runs programs.
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

// allow maps each checked package (module-relative) to the module-internal
// packages it imports: the real edges, each one a direct import (an entry
// the package does not import is reported, so the lists stay exact). Reach
// is transitive: a package may also reach what the packages it names may
// reach, and each of those is checked itself. cmd/kitsmith is checked too:
// the command links the library, never the test services.
var allow = map[string][]string{
	"schemas":         {},
	"pkg/progress":    {},
	"pkg/spec":        {"schemas", "internal/suggest"},
	"pkg/lint":        {"pkg/spec", "internal/suggest"},
	"pkg/lint/format": {"pkg/lint", "internal/diag", "internal/textsafe"},
	"pkg/artifact":    {"pkg/spec", "pkg/artifact/internal/kitimage", "internal/version"},
	// The kit image as artifact reads it and conform judges it (manifests,
	// layer filesystem, memory budget), internal to pkg/artifact.
	"pkg/artifact/internal/kitimage": {"pkg/spec"},
	// The conformance checks (kitsmith check) over an opened artifact.
	"pkg/artifact/conform":      {"pkg/spec", "pkg/artifact", "pkg/artifact/internal/kitimage"},
	"pkg/artifact/artifacttest": {"pkg/spec", "pkg/artifact", "pkg/artifact/conform"},
	"pkg/build":                 {"pkg/spec", "pkg/artifact", "pkg/artifact/conform", "pkg/progress", "internal/gitdate", "internal/version"},
	"pkg/sign":                  {"pkg/progress", "pkg/sign/signer"},
	"pkg/sign/signer":           {},
	"pkg/sign/signtest":         {"pkg/sign"},
	"pkg/review":                {"pkg/spec", "pkg/artifact", "pkg/sign/signer"},
	"pkg/migrate":               {"pkg/spec", "pkg/lint"},
	"pkg/lsp":                   {"pkg/spec", "pkg/lint", "schemas"},
	// The admission check of verify --policy: signatures (sign) and the
	// permission ceiling (review) of a published kit (artifact).
	"pkg/admission": {"pkg/artifact", "pkg/sign", "pkg/review"},
	"pkg/publish": {"pkg/spec", "pkg/lint", "pkg/build", "pkg/artifact", "pkg/artifact/conform", "pkg/sign", "pkg/progress", "pkg/review",
		"internal/version"},
	// kitsmith test: composes, runs the hooks and judges their egress.
	"pkg/emulator": {"pkg/spec", "pkg/artifact", "pkg/build", "pkg/review", "internal/shimproto", "internal/textsafe"},
	"cmd/kitsmith": {"schemas", "pkg/spec", "pkg/lint", "pkg/lint/format", "pkg/artifact", "pkg/artifact/conform", "pkg/build", "pkg/sign",
		"pkg/review", "pkg/migrate", "pkg/progress", "pkg/publish", "pkg/admission", "pkg/emulator", "internal/shim", "pkg/lsp",
		"internal/diag", "internal/textsafe", "internal/version"},
	"internal/archtest": {},
	"internal/diag":     {"internal/textsafe"},
	"internal/suggest":  {},
	"internal/textsafe": {},
	"internal/version":  {},
	"internal/gitdate":  {},
	// What kitsmith and its in-container shim agree on, and the shim
	// itself: the in-container side of kitsmith test, a process that runs
	// only inside the test container (as the hidden kitsmith __shim).
	"internal/shimproto": {},
	"internal/shim":      {"internal/shimproto"},
	// The golden-file helper of the tests (KITSMITH_UPDATE_GOLDEN).
	"internal/golden": {},
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
// libraries: the command, the two service programs, the harness that reads
// the services' environment for tests, and the golden-file helper of the
// tests.
var process = map[string]bool{
	"cmd/kitsmith":                    true,
	"internal/cmd/kitsmith-oidc":      true,
	"internal/cmd/kitsmith-trustroot": true,
	"internal/testsvc/stack":          true,
	"internal/golden":                 true,
	"internal/shim":                   true,
}

// mayExec are the library packages allowed to import os/exec (none).
var mayExec = map[string]bool{}

// command are the packages that may import cobra, pflag and viper.
var command = map[string]bool{"cmd/kitsmith": true}

func TestLayering(t *testing.T) {
	for _, v := range check(t, filepath.Join("..", ".."), rules{module, allow, mayExec, process, command}) {
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
		"pkg/sign":         {},
		"internal/printer": {},
		"internal/runner":  {},
		// Declared for cmd/kitsmith, which may not link it.
		"internal/testsvc/stack": {},
		"cmd/kitsmith":           {"pkg/spec"},
	}
	got := check(t, filepath.Join("testdata", "bad"), rules{module, bad, map[string]bool{"internal/runner": true},
		map[string]bool{"cmd/kitsmith": true}, map[string]bool{"cmd/kitsmith": true}})
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
		// A direct import the transitive walk reaches first through a
		// dependency (sigstore-go -> cobra) is still the package's own.
		"pkg/sign: imports github.com/spf13/cobra (via github.com/spf13/cobra); only cmd/kitsmith may",
		// The command is checked: it may use cobra and the process, not
		// link the test services.
		"cmd/kitsmith: imports internal/testsvc/stack (via " + module + "/internal/testsvc/stack), which is not in its allow-list",
		// An allow-list entry that is no edge.
		"pkg/review: its allow-list names pkg/spec, which it does not import: drop it",
		"testdata/bad/pkg/lint/process.go:10:16: uses os.UserHomeDir; only cmd/kitsmith may touch the process environment",
		"testdata/bad/pkg/lint/process.go:11:17: uses os.UserCacheDir; only cmd/kitsmith may touch the process environment",
		"testdata/bad/pkg/lint/process.go:12:18: uses os.UserConfigDir; only cmd/kitsmith may touch the process environment",
		"testdata/bad/pkg/lint/process.go:13:49: uses os.ExpandEnv; only cmd/kitsmith may touch the process environment",
		"testdata/bad/pkg/lint/process.go:13:73: uses os.Args; only cmd/kitsmith may touch the process environment",
		"testdata/bad/pkg/lint/process.go:17:7: uses log/slog.Info, the default logger; take a *slog.Logger instead",
		"testdata/bad/pkg/lint/process.go:18:7: uses log/slog.SetDefault, the default logger; take a *slog.Logger instead",
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

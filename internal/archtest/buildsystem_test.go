package archtest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"
)

// buildSystem is the module of the build system only pkg/build and the
// command may link.
const buildSystem = "github.com/moby/buildkit"

// noBuildSystem are the packages that work without a build system:
// signing, the specification, lint, review and the OCI layer may not
// reach BuildKit, directly or through anything they import (as pkg/sign
// once did through pkg/progress's use of BuildKit's status type). Each
// lists the BuildKit packages it may reach all the same: lint reads
// recipes with BuildKit's Dockerfile parser, which links nothing of the
// client, the solver or the daemon.
var noBuildSystem = map[string][]string{
	"pkg/sign": nil,
	"pkg/spec": nil,
	"pkg/lint": {
		buildSystem + "/frontend/dockerfile/parser", buildSystem + "/frontend/dockerfile/command",
		buildSystem + "/frontend/dockerfile/shell", buildSystem + "/util/stack",
	},
	"pkg/review":   nil,
	"pkg/artifact": nil,
	// The conformance checks judge images; they never build one.
	"pkg/artifact/conform":           nil,
	"pkg/artifact/internal/kitimage": nil,
}

func TestNoBuildSystem(t *testing.T) {
	for _, v := range checkBuildSystem(t, filepath.Join("..", ".."), noBuildSystem) {
		t.Error(v)
	}
}

// TestNoBuildSystemCatches plants a direct import, an import through a
// module package, and an allowed parser import in testdata/buildsystem
// (its own module, with a stand-in BuildKit).
func TestNoBuildSystemCatches(t *testing.T) {
	var got []string
	for _, v := range checkBuildSystem(t, filepath.Join("testdata", "buildsystem"), map[string][]string{
		"pkg/sign": nil, "pkg/spec": nil, "pkg/artifact": nil,
		"pkg/lint": {buildSystem + "/frontend/dockerfile/parser"},
	}) {
		got = append(got, v.String())
	}
	want := []string{
		"pkg/artifact: reaches " + buildSystem + "/client (via " + buildSystem + "/client); it must work without a build system",
		"pkg/sign: reaches " + buildSystem + "/client (via " + module + "/pkg/progress -> " + buildSystem + "/client); it must work without a build system",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// checkBuildSystem reports each package of banned that reaches a package
// of the build system its list does not name, with the first chain found.
func checkBuildSystem(t *testing.T, dir string, banned map[string][]string) []violation {
	t.Helper()
	var out []violation
	for _, p := range load(t, dir, packages.NeedName|packages.NeedImports|packages.NeedDeps) {
		rel, ok := strings.CutPrefix(p.PkgPath, module+"/")
		allowed, checked := banned[rel]
		if !ok || !checked {
			continue
		}
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
				if (imp.PkgPath == buildSystem || strings.HasPrefix(imp.PkgPath, buildSystem+"/")) && !slices.Contains(allowed, imp.PkgPath) {
					out = append(out, violation{rel, fmt.Sprintf("reaches %s (via %s); it must work without a build system", imp.PkgPath, strings.Join(chain, " -> "))})
					continue // one report per way in, not one per package behind it
				}
				walk(imp, chain)
			}
		}
		walk(p, nil)
	}
	slices.SortFunc(out, func(a, b violation) int { return strings.Compare(a.String(), b.String()) })
	return out
}

package spec

import (
	"io/fs"
	"path"
	"strings"
)

// nearMissCompanion returns the file beside companion (the conventional
// <stem>.dockerfile, which does not exist) whose name differs from it only
// in case, as pi.Dockerfile beside pi.yaml; "" when there is none. The
// companion is found by its exact name, so such a file is never built: the
// kit is declaration-only on a case-sensitive file system.
func nearMissCompanion(fsys fs.FS, companion string) string {
	entries, err := fs.ReadDir(fsys, path.Dir(companion))
	if err != nil {
		return ""
	}
	want := path.Base(companion)
	for _, e := range entries {
		if !e.IsDir() && e.Name() != want && strings.EqualFold(e.Name(), want) {
			return e.Name()
		}
	}
	return ""
}

// checkNearMissRecipe reports a recipe named like the companion but for
// case: an error with the workload's missing content, a warning on a
// mixin, which is declaration-only as it stands.
func (v *validator) checkNearMissRecipe() {
	k, d := v.k, v.d
	if k.nearMissRecipe == "" || k.Recipe != nil || d.Kind == KindWorkload {
		return // a workload's workload-has-content error names it
	}
	v.warnf("kind", "companion-name", "",
		"%s is beside %s, but a companion recipe is found only by the exact name %s.dockerfile, so this kit is declaration-only and %s is never built; rename it to %s.dockerfile",
		k.nearMissRecipe, path.Base(k.Path), k.Stem, k.nearMissRecipe, k.Stem)
}

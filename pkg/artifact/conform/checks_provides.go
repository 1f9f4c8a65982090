package conform

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// derivedEntry is one deb/ or apk/ provides entry, kept with its spelling.
type derivedEntry struct {
	spelling, name, version string
}

// derivedEntries groups the descriptor's derived provides by namespace.
// Entries that do not parse are left to descriptor-valid.
func derivedEntries(provides []string) map[string][]derivedEntry {
	out := map[string][]derivedEntry{}
	for _, s := range provides {
		p, err := spec.ParseProvide(s)
		if err != nil || !spec.IsDerivedName(p.Name) {
			continue
		}
		ns, name, _ := strings.Cut(p.Name, "/")
		out[ns] = append(out[ns], derivedEntry{spelling: strings.TrimSpace(s), name: name, version: p.Version})
	}
	return out
}

func checkDerivedProvides(s *checkState) []Finding {
	byNS := derivedEntries(s.d.Provides)
	if len(byNS) == 0 {
		return nil
	}
	if s.d.Kind != spec.KindWorkload {
		var all []string
		for _, es := range byNS {
			for _, e := range es {
				all = append(all, e.spelling)
			}
		}
		slices.Sort(all)
		return withSpec("SPEC-v3 §9.6/workload-only", fail("the %s carries %d provides entries derived from package databases, starting %s: only a workload's root filesystem answers for those, a mixin's layers are a delta", s.d.Kind, len(all), all[0]))
	}
	if len(s.d.Kits) > 0 {
		return skip("a merged set carries its kits' derived entries, read before composition, so they are not held to the merged databases")
	}
	if f := s.noFS(); f != nil {
		return f
	}
	var out []Finding
	for _, db := range packageDBs {
		entries := byNS[db.namespace]
		if len(entries) == 0 {
			continue
		}
		body, err := s.fs.ReadFile(db.path)
		switch {
		case errors.Is(err, kitimage.ErrFileTooBig):
			out = append(out, warn("%s is larger than kitsmith reads, so the %s/ entries were not held to it", db.path, db.namespace)...)
			continue
		case err != nil:
			out = append(out, fail("the descriptor carries %d %s/ entries but the image has no %s to derive them from", len(entries), db.namespace, db.path)...)
			continue
		}
		pkgs, err := db.read(bytes.NewReader(body))
		if err != nil {
			out = append(out, fail("%s does not read: %v", db.path, err)...)
			continue
		}
		recorded := map[string][]string{}
		for _, p := range pkgs {
			recorded[p.Name] = append(recorded[p.Name], p.Version)
		}
		for _, e := range entries {
			raws, ok := recorded[e.name]
			if !ok {
				out = append(out, withSpec("SPEC-v3 §9.6/installed-only", fail("%s names a package %s does not record as installed, so nothing in the image provides it", e.spelling, db.path))...)
				continue
			}
			for _, raw := range raws {
				if want := PackageVersion(raw); want != e.version {
					out = append(out, withSpec("SPEC-v3 §9.6/version-is-upstream-core", fail("%s names version %s, but %s records %s, whose published version is %q", e.spelling, e.version, db.path, raw, want))...)
				}
			}
		}
	}
	return out
}

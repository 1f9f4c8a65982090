package conform

import (
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

func checkMergedSet(s *checkState) []Finding {
	if len(s.d.Kits) == 0 {
		return nil
	}
	var out []Finding
	if s.d.Build != "" || s.d.Dockerfile != "" {
		out = append(out, fail("the descriptor lists kits and declares a content recipe: a kit's content comes from exactly one of them")...)
	}
	if s.fs == nil {
		return append(out, s.noFS()...)
	}
	if want := len(s.d.Kits) + 1; len(s.stems) < want {
		out = append(out, withSpec("SPEC-v3 §10/merged-set-carries-sources",
			fail("the descriptor lists %d kits, so at least %d staged roots are expected (theirs and its own), but %d are staged: %s", len(s.d.Kits), want, len(s.stems), kitimage.ListOrNone(s.stems)))...)
	}
	return out
}

// listedKit is one kit of a merged set, as read at its pinned digest.
type listedKit struct {
	ref string
	d   *spec.Descriptor
}

func checkMergedSetDeclarations(s *checkState) []Finding {
	if len(s.d.Kits) == 0 {
		return nil
	}
	if s.resolver == nil {
		return skip("the kits the set lists are not reachable from here; check the set from its registry, or pass a kit resolver")
	}
	var kits []listedKit
	for _, k := range s.d.Kits {
		if k.Digest == "" {
			return skip("%s has no digest, so it cannot be read as merged (see descriptor-valid)", k.Ref)
		}
		a, err := s.resolver.ResolveKit(s.ctx, k.Ref, k.Digest)
		if err != nil {
			return skip("%s@%s is not reachable from here: %v", k.Ref, k.Digest, err)
		}
		in, err := a.Inspect(s.ctx, artifact.WithoutLayers())
		if err != nil {
			return skip("%s@%s is not readable from here: %v", k.Ref, k.Digest, err)
		}
		if in.Descriptor == nil {
			return fail("%s@%s carries no decodable descriptor annotation, so it is not a kit this set could have merged", k.Ref, k.Digest)
		}
		k2, err := spec.Parse(k.Ref, in.DescriptorJSON())
		if err == nil {
			if rep := k2.Validate(spec.WithMode(spec.ModePublished)); !rep.OK() {
				return fail("%s@%s is not a valid published kit, so this set could not have merged it: %v", k.Ref, k.Digest, rep.Errors[0].Msg)
			}
		}
		kits = append(kits, listedKit{ref: k.Ref, d: in.Descriptor})
	}
	out := judgeStagedKits(s, kits)
	out = append(out, judgeMerge(s.d, kits)...)
	return out
}

// judgeStagedKits binds every listed kit to a staged root carrying its
// descriptor; each root answers for one kit only.
func judgeStagedKits(s *checkState, kits []listedKit) []Finding {
	if s.fs == nil {
		return s.noFS()
	}
	used := map[string]bool{}
	var out []Finding
	for _, k := range kits {
		found := false
		for _, stem := range s.stems {
			if used[stem] {
				continue
			}
			if sd, err := s.fs.Descriptor(stem); err == nil && kitimage.SameDescriptor(sd, k.d) {
				used[stem], found = true, true
				break
			}
		}
		if !found {
			out = append(out, withSpec("SPEC-v3 §10/merged-set-carries-sources",
				fail("%s is listed but its staged sources are not in the image: a merged kit stages the descriptor of every kit it merged beside its own", k.ref))...)
		}
	}
	return out
}

// judgeMerge holds the merged declarations to the listed kits: provides
// and licenses carried, requirements the kits answer among themselves
// dropped.
func judgeMerge(merged *spec.Descriptor, kits []listedKit) []Finding {
	var out []Finding
	carried := map[string]bool{}
	for _, p := range merged.Provides {
		if pr, err := spec.ParseProvide(p); err == nil {
			v := pr.Version
			if v == "" {
				v = merged.Version
			}
			carried[spec.NormalizeName(pr.Name)+"@"+v] = true
		}
	}
	licensed := map[string]bool{}
	for _, l := range merged.Licenses {
		licensed[l] = true
	}
	for _, k := range kits {
		for _, p := range k.d.Provides {
			pr, err := spec.ParseProvide(p)
			if err != nil {
				continue
			}
			v := pr.Version
			if v == "" {
				v = spec.EffectiveVersion(k.ref, k.d)
			}
			if !carried[spec.NormalizeName(pr.Name)+"@"+v] {
				out = append(out, fail("%s provides %s@%s, which the merged descriptor does not: a merged kit provides what its kits provide", k.ref, pr.Name, v)...)
			}
		}
		for _, l := range k.d.Licenses {
			if !licensed[l] {
				out = append(out, withSpec("SPEC-v3 §9.5/licenses-union",
					fail("%s is licensed %s, which the merged descriptor does not name: merged licenses are the union of the kits'", k.ref, l))...)
			}
		}
	}
	return append(out, judgeInternalRequires(merged, kits)...)
}

// judgeInternalRequires fails a requirement the merged descriptor kept
// although another listed kit answers it.
func judgeInternalRequires(merged *spec.Descriptor, kits []listedKit) []Finding {
	var out []Finding
	stated := map[string]bool{}
	for _, r := range append(append([]string{}, merged.Requires...), merged.Integrates...) {
		if req, err := spec.ParseRequire(r); err == nil {
			stated[canonicalRequire(req)] = true
		}
	}
	for i, k := range kits {
		for _, r := range append(append([]string{}, k.d.Requires...), k.d.Integrates...) {
			req, err := spec.ParseRequire(r)
			if err != nil || !stated[canonicalRequire(req)] {
				continue
			}
			for j, other := range kits {
				if j == i || !providesFor(other, req) {
					continue
				}
				out = append(out, withSpec("SPEC-v3 §9.5/internal-requires-dropped",
					fail("the merged descriptor still requires %q, which %s (a kit it lists) answers: requirements the set satisfies itself are dropped, since a kit cannot satisfy its own requirement", r, other.ref))...)
				break
			}
		}
	}
	return out
}

func canonicalRequire(r spec.Require) string {
	var b strings.Builder
	b.WriteString(spec.NormalizeName(r.Name))
	for _, c := range r.Constraints {
		b.WriteString(" " + c.Op + c.Version)
	}
	return b.String()
}

// providesFor reports whether the kit provides something satisfying req.
func providesFor(k listedKit, req spec.Require) bool {
	for _, p := range k.d.Provides {
		pr, err := spec.ParseProvide(p)
		if err != nil || spec.NormalizeName(pr.Name) != spec.NormalizeName(req.Name) {
			continue
		}
		v := pr.Version
		if v == "" {
			v = spec.EffectiveVersion(k.ref, k.d)
		}
		if req.SatisfiedBy(spec.Provide{Name: pr.Name, Version: v}) {
			return true
		}
	}
	return false
}

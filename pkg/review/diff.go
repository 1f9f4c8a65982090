package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Change kinds.
const (
	// KindWidening is a grant the new kit asks for beyond the old one
	// (SPEC-v3 §7.4/widenings-gate): a runtime stops it for approval.
	KindWidening = "widening"
	// KindNarrowing is a grant the new kit no longer asks for, or a deny
	// entry it adds.
	KindNarrowing = "narrowing"
	// KindChange is a change outside the permission surface: metadata,
	// provides and the other relations, args, hook commands, agent context
	// and the other capabilities that grant nothing.
	KindChange = "change"
)

// Change is one difference between two kits.
type Change struct {
	Kind string `json:"kind"`
	// Category names what changed: a surface category for widenings and
	// narrowings ("network.runtime.allow", "credentials.install",
	// "network.runtime.deny-removed"), otherwise the field ("provides",
	// "metadata.version", "lifecycle.install", "args").
	Category string `json:"category"`
	// Detail is the grant, entry or key concerned.
	Detail string `json:"detail"`
	// Old and New are the values before and after, for changes of a
	// value; one of them is empty for an addition or a removal.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// At is where the change is declared in a kit source: in the new kit,
	// or in the old one for something removed. Nil for a published kit.
	At *spec.Pos `json:"at,omitempty"`
	// Platforms are the platforms of a published kit the change is on,
	// when they differ (DiffAll); nil when it is on every platform judged.
	Platforms []string `json:"platforms,omitempty"`
}

// GroupGrants is what selecting one optional capability group of the new
// kit adds to the surface of its required declarations.
type GroupGrants struct {
	// Group is the group's name, or its field when it has none.
	Group string `json:"group"`
	Field string `json:"field"`
	// Adds are the grants only that group brings (Kind widening).
	Adds []Change `json:"adds"`
}

// DiffResult is every difference between two kits.
type DiffResult struct {
	Old string `json:"old"`
	New string `json:"new"`
	// Widenings, then Narrowings, in spec.Surface.Widenings order.
	Widenings  []Change `json:"widenings"`
	Narrowings []Change `json:"narrowings"`
	// Changes are the differences outside the permission surface.
	Changes []Change `json:"changes"`
	// Groups lists the new kit's optional groups with what each adds.
	Groups []GroupGrants `json:"groups"`
	// Platforms are the platforms judged, for a published new kit.
	Platforms []string `json:"platforms,omitempty"`
}

// Widened reports whether the new kit asks for anything the old did not.
func (r *DiffResult) Widened() bool { return len(r.Widenings) > 0 }

// Diff compares two kits: every change of the permission surface,
// classified as widening or narrowing exactly as spec.Surface.Widenings
// defines widening, the changes outside it, and what each optional group
// of the new kit adds.
func Diff(old, new *Kit) *DiffResult {
	os, ns := spec.AtomsOf(old.Descriptor), spec.AtomsOf(new.Descriptor)
	wide, narrow := spec.Widenings(os, ns), spec.Widenings(ns, os)
	oo, no := old.origins(len(wide)+len(narrow) > 0), new.origins(len(wide)+len(narrow) > 0)
	r := &DiffResult{Old: old.Name, New: new.Name, Widenings: []Change{}, Narrowings: []Change{}}
	for _, w := range wide {
		r.Widenings = append(r.Widenings, surfaceChange(KindWidening, w, old, new, oo, no))
	}
	for _, w := range narrow {
		r.Narrowings = append(r.Narrowings, surfaceChange(KindNarrowing, w, old, new, oo, no))
	}
	r.Changes = otherChanges(old, new)
	r.Groups = groupGrants(new)
	return r
}

// DiffSurfaces compares two surfaces alone, for a baseline recorded as a
// surface: the widenings and narrowings, without positions.
func DiffSurfaces(old, new *spec.Surface) (widenings, narrowings []Change) {
	for _, w := range old.Widenings(new) {
		widenings = append(widenings, surfaceChange(KindWidening, w, nil, nil, nil, nil))
	}
	for _, w := range new.Widenings(old) {
		narrowings = append(narrowings, surfaceChange(KindNarrowing, w, nil, nil, nil, nil))
	}
	return widenings, narrowings
}

// surfaceChange turns a widening of one surface over the other into a
// change. Read backwards (what the old kit grants beyond the new), a
// widening is a narrowing: a removed deny entry then is an added one.
func surfaceChange(kind string, w spec.Widening, old, new *Kit, oo, no []spec.Origin) Change {
	c := Change{Kind: kind, Category: w.Category, Detail: w.Detail}
	// The grant is declared in the kit that has it: the new one for a
	// widening, the old one for a narrowing, and the other way round for
	// a deny entry.
	removedDeny := strings.HasSuffix(w.Category, ".deny-removed")
	grantCat := strings.TrimSuffix(w.Category, "-removed")
	inNew := kind == KindWidening != removedDeny
	if kind == KindNarrowing && removedDeny {
		c.Category = grantCat + "-added"
	}
	if inNew {
		c.At = new.pos(origin(no, grantCat, w.Detail))
	} else {
		c.At = old.pos(origin(oo, grantCat, w.Detail))
	}
	return c
}

// groupGrants computes, for every optional group of k, what selecting it
// adds to the surface of k's required declarations.
func groupGrants(k *Kit) []GroupGrants {
	d := k.Descriptor
	out := []GroupGrants{}
	base := *d
	base.Capabilities = nil
	for _, c := range d.Capabilities {
		if c.Group == nil || !c.Group.Optional {
			base.Capabilities = append(base.Capabilities, c)
		}
	}
	if len(base.Capabilities) == len(d.Capabilities) {
		return out
	}
	bs := spec.AtomsOf(&base)
	origins := k.origins(true)
	for i, c := range d.Capabilities {
		if c.Group == nil || !c.Group.Optional {
			continue
		}
		with := base
		with.Capabilities = append(append([]spec.Capability(nil), base.Capabilities...), c)
		g := GroupGrants{Group: c.Group.Name, Field: capField(i), Adds: []Change{}}
		if g.Group == "" {
			g.Group = g.Field
		}
		for _, w := range spec.Widenings(bs, spec.AtomsOf(&with)) {
			g.Adds = append(g.Adds, Change{Kind: KindWidening, Category: w.Category, Detail: w.Detail,
				At: k.pos(groupOrigin(origins, i, w))})
		}
		out = append(out, g)
	}
	return out
}

// groupOrigin finds the member of group i declaring a grant.
func groupOrigin(origins []spec.Origin, i int, w spec.Widening) string {
	prefix := capField(i) + "."
	for _, o := range origins {
		if o.Category == w.Category && o.Value == w.Detail && strings.HasPrefix(o.Field, prefix) {
			return o.Field
		}
	}
	return ""
}

// DiffAll compares two kits as LoadAll reads them, platform by platform:
// each platform of the new kit against the old kit's descriptor for that
// platform (the old kit's only one when it has one for all; an empty kit
// when it had none for that platform, so everything it grants there is a
// widening). A change on only some of the platforms judged names them in
// Platforms. Optional groups are the first platform's.
func DiffAll(old, new []*Kit) *DiffResult {
	if len(old) == 1 && len(new) == 1 {
		r := Diff(old[0], new[0])
		r.Platforms = new[0].Platforms
		if r.Platforms == nil {
			r.Platforms = old[0].Platforms
		}
		return r
	}
	type pair struct{ o, n *Kit }
	var pairs []pair
	var platforms []string
	index := map[pair][]string{}
	for _, n := range new {
		for _, p := range n.Platforms {
			o := platformKit(old, p, old[0].Name)
			k := pair{o, n}
			if _, ok := index[k]; !ok {
				pairs = append(pairs, k)
			}
			index[k] = append(index[k], p)
			platforms = append(platforms, p)
		}
	}
	out := &DiffResult{Old: old[0].Name, New: new[0].Name, Widenings: []Change{}, Narrowings: []Change{}, Changes: []Change{}, Platforms: platforms}
	lists := []*[]Change{&out.Widenings, &out.Narrowings, &out.Changes}
	seen := map[string]int{}
	for i, pr := range pairs {
		r := Diff(pr.o, pr.n)
		if i == 0 {
			out.Groups = r.Groups
		}
		for j, l := range [][]Change{r.Widenings, r.Narrowings, r.Changes} {
			for _, c := range l {
				key := fmt.Sprint(j, "\x00", c.Kind, "\x00", c.Category, "\x00", c.Detail, "\x00", c.Old, "\x00", c.New)
				if at, ok := seen[key]; ok {
					(*lists[j])[at].Platforms = append((*lists[j])[at].Platforms, index[pr]...)
					continue
				}
				c.Platforms = append([]string(nil), index[pr]...)
				seen[key] = len(*lists[j])
				*lists[j] = append(*lists[j], c)
			}
		}
	}
	for _, l := range lists {
		for i := range *l {
			if len((*l)[i].Platforms) == len(platforms) {
				(*l)[i].Platforms = nil // on every platform
			}
		}
	}
	return out
}

// platformKit returns the kit of kits serving platform p: a kit source
// serves every platform; else the one listing p, else an empty kit named
// name, for a platform the old kit had no descriptor for.
func platformKit(kits []*Kit, p, name string) *Kit {
	for _, k := range kits {
		if k.Platforms == nil || slices.Contains(k.Platforms, p) {
			return k
		}
	}
	return &Kit{Name: name + " (no descriptor for " + p + ")", Descriptor: &spec.Descriptor{}}
}

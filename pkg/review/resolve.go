package review

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// CaseGroupConflicts is the conformance id a problem carries in addition
// to its own when only the selected optional groups cause it: a runtime
// refuses the composition rather than drop the groups (SPEC-v3
// §7.1.1/conflicts).
const CaseGroupConflicts = "SPEC-v3 §7.1.1/conflicts"

// Problem is one rule of composition a set of kits breaks.
type Problem struct {
	// ID is the conformance case id of the rule (spec.CaseOneWorkload…).
	ID      string   `json:"id"`
	Kits    []string `json:"kits"`
	Message string   `json:"message"`
	// FromGroups reports a problem only the selected optional groups
	// cause (CaseGroupConflicts).
	FromGroups bool `json:"fromGroups,omitempty"`
	// Groups are the selected optional groups that cause a FromGroups
	// problem, as "kit: group": each one that causes it on its own, or
	// all of them when only together they do.
	Groups []string `json:"groups,omitempty"`
}

// Resolution is how a runtime would judge a composition.
type Resolution struct {
	// Order is the composition order: providers before the kits that
	// require or integrate them. Empty when the kits depend on each other
	// in a circle.
	Order []string `json:"order"`
	// Groups are the optional groups selected, as "kit: group".
	Groups []string `json:"groups"`
	// Problems are the rules broken; none means the composition resolves.
	Problems []Problem `json:"problems"`
	// Notes are merges that happened as the rules allow (a network policy
	// lifted to @2, volumes requested twice).
	Notes []string `json:"notes"`
	// Merged is the composition's merged declarations, in order.
	Merged *spec.Descriptor `json:"-"`
	// Surface is the merged permission surface.
	Surface *spec.Surface `json:"surface"`
}

// OK reports whether the composition resolves.
func (r *Resolution) OK() bool { return len(r.Problems) == 0 }

// Selection chooses the optional capability groups a resolution
// selects: required groups are always selected.
type Selection struct {
	// All selects every optional group; otherwise Names selects groups
	// by name (in any kit), and none are selected when Names is empty.
	All   bool
	Names []string
}

// ErrUnknownGroup is returned when a selected group name names no
// optional group of the kits.
var ErrUnknownGroup = errors.New("no optional group of that name")

// UnknownGroupError reports a selected group name (Selection.Names) that
// names no optional group of the kits. It is ErrUnknownGroup (errors.Is);
// a command names its own flag when it reports one.
type UnknownGroupError struct {
	// Name is the group name selected.
	Name string
}

func (e *UnknownGroupError) Error() string { return e.Name + ": " + ErrUnknownGroup.Error() }

// Is reports ErrUnknownGroup.
func (e *UnknownGroupError) Is(target error) bool { return target == ErrUnknownGroup }

// ResolveOption configures Resolve.
type ResolveOption func(*resolveOptions) error

type resolveOptions struct {
	sel        Selection
	noWorkload bool
}

// WithSelection selects optional groups; the default selects none.
func WithSelection(s Selection) ResolveOption {
	return func(o *resolveOptions) error {
		if s.All && len(s.Names) > 0 {
			return errors.New("select all optional groups or name some, not both")
		}
		o.sel = s
		return nil
	}
}

// WithoutWorkload judges the kits of a set, which need not include a
// workload (SPEC-v3 §3.4); two workloads still fail.
func WithoutWorkload() ResolveOption {
	return func(o *resolveOptions) error { o.noWorkload = true; return nil }
}

func makeResolveOptions(opts []ResolveOption) (*resolveOptions, error) {
	o := &resolveOptions{}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// Resolve judges a composition of kits as a runtime does at create time
// (SPEC-v3 §5.3 and the set merge rules of §9.5): exactly one workload,
// one provider per normalized name, no conflicts, no integrates
// violation, a closed set, a dependency order, and capability entries
// that merge. With optional groups selected it also reports, marked
// FromGroups, the problems only those groups cause. An error is a
// selection naming no group; broken rules are Problems.
func Resolve(kits []*Kit, opts ...ResolveOption) (*Resolution, error) {
	o, err := makeResolveOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := checkNames(kits, o.sel); err != nil {
		return nil, err
	}
	r, groups := resolveSelected(kits, o.sel.picks, o.noWorkload)
	r.Groups = []string{}
	for _, g := range groups {
		r.Groups = append(r.Groups, g.label)
	}
	if len(groups) > 0 {
		attributeGroups(kits, r, groups, o)
	}
	return r, nil
}

// attributeGroups marks the problems of r that only the selected groups
// cause, and names the groups that cause each: those that cause it on
// their own, or else those it needs (without one of them it goes away),
// or else all of them.
func attributeGroups(kits []*Kit, r *Resolution, groups []selectedGroup, o *resolveOptions) {
	base, _ := resolveSelected(kits, pickNone, o.noWorkload)
	alone := make([]*Resolution, len(groups))
	without := make([]*Resolution, len(groups))
	for j, g := range groups {
		alone[j], _ = resolveSelected(kits, g.only, o.noWorkload)
		without[j], _ = resolveSelected(kits, func(k, i int, x *spec.Group) bool { return o.sel.picks(k, i, x) && !g.only(k, i, x) }, o.noWorkload)
	}
	for i, p := range r.Problems {
		if hasProblem(base, p) {
			continue
		}
		var own, needed []string
		for j, g := range groups {
			if hasProblem(alone[j], p) {
				own = append(own, g.label)
			}
			if !hasProblem(without[j], p) {
				needed = append(needed, g.label)
			}
		}
		var cause string
		switch {
		case len(own) == 1:
			cause = "only with the selected optional group " + own[0]
		case len(own) > 1:
			cause = "only with the selected optional groups " + strings.Join(own, ", ") + ", each on its own"
		case len(needed) > 0:
			own = needed
			cause = "only with the selected optional groups " + strings.Join(needed, " and ") + " together"
		default:
			own = append([]string{}, r.Groups...)
			cause = "only with some of the selected optional groups " + strings.Join(own, ", ") + " together"
		}
		r.Problems[i].FromGroups, r.Problems[i].Groups = true, own
		r.Problems[i].Message += " (" + cause + "; " + CaseGroupConflicts + ": they are not dropped to repair it)"
	}
}

func hasProblem(r *Resolution, p Problem) bool {
	return slices.ContainsFunc(r.Problems, func(b Problem) bool { return b.Message == p.Message })
}

// groupPick chooses whether optional group g, at capabilities[i] of kit
// k, is selected.
type groupPick func(k, i int, g *spec.Group) bool

func pickNone(int, int, *spec.Group) bool { return false }

// picks is the selection as a groupPick.
func (s Selection) picks(_, _ int, g *spec.Group) bool {
	return s.All || slices.Contains(s.Names, g.Name)
}

// selectedGroup is one optional group a resolution selected.
type selectedGroup struct {
	kit, index int
	label      string // "kit: group"
}

// only selects this group alone.
func (s selectedGroup) only(k, i int, _ *spec.Group) bool {
	return k == s.kit && i == s.index
}

func checkNames(kits []*Kit, sel Selection) error {
	for _, n := range sel.Names {
		found := false
		for _, k := range kits {
			for _, c := range k.Descriptor.Capabilities {
				found = found || c.Group != nil && c.Group.Optional && c.Group.Name == n
			}
		}
		if !found {
			return &UnknownGroupError{Name: n}
		}
	}
	return nil
}

// selectGroups returns the descriptor of kit k with the picked groups
// flattened into their members at their positions and the other optional
// groups dropped, and the optional groups selected.
func selectGroups(k int, kit *Kit, pick groupPick) (*spec.Descriptor, []selectedGroup) {
	d := kit.Descriptor
	out := *d
	out.Capabilities = nil
	var sel []selectedGroup
	for i, c := range d.Capabilities {
		if c.Group == nil {
			out.Capabilities = append(out.Capabilities, c)
			continue
		}
		if c.Group.Optional && !pick(k, i, c.Group) {
			continue
		}
		if c.Group.Optional {
			n := c.Group.Name
			if n == "" {
				n = capField(i)
			}
			sel = append(sel, selectedGroup{kit: k, index: i, label: kit.Name + ": " + n})
		}
		out.Capabilities = append(out.Capabilities, c.Group.Capabilities...)
	}
	return &out, sel
}

func resolveSelected(kits []*Kit, pick groupPick, noWorkload bool) (*Resolution, []selectedGroup) {
	r := &Resolution{Order: []string{}, Problems: []Problem{}, Notes: []string{}}
	var groups []selectedGroup
	cs := make([]spec.Contribution, len(kits))
	for i, k := range kits {
		d, sel := selectGroups(i, k, pick)
		cs[i] = spec.Contribution{Who: k.Name, Descriptor: d}
		groups = append(groups, sel...)
	}
	r.Problems = append(r.Problems, workloadProblems(cs, noWorkload)...)
	for _, e := range spec.CheckRelations(cs) {
		r.Problems = append(r.Problems, problem(e))
	}
	for _, e := range spec.CheckClosed(cs) {
		r.Problems = append(r.Problems, problem(e))
	}
	order, err := spec.DependencyOrder(cs)
	if err != nil {
		r.Problems = append(r.Problems, problemOf(err))
		order = make([]int, len(cs)) // merge in the given order
		for i := range order {
			order[i] = i
		}
	} else {
		for _, i := range order {
			r.Order = append(r.Order, cs[i].Who)
		}
	}
	ordered := make([]spec.Contribution, len(order))
	for i, j := range order {
		ordered[i] = cs[j]
	}
	r.Merged = mergeComposition(ordered, r)
	r.Surface = spec.SurfaceOf(r.Merged)
	return r, groups
}

func workloadProblems(cs []spec.Contribution, noWorkload bool) []Problem {
	var w []string
	for _, c := range cs {
		if c.Descriptor.Kind == spec.KindWorkload {
			w = append(w, c.Who)
		}
	}
	switch {
	case len(w) > 1:
		return []Problem{{ID: spec.CaseOneWorkload, Kits: w, Message: fmt.Sprintf(
			"the composition has %d workloads (%s); it takes exactly one, the others composed as their mixin form", len(w), strings.Join(w, ", "))}}
	case len(w) == 0 && !noWorkload:
		return []Problem{{ID: spec.CaseOneWorkload, Kits: []string{}, Message: "the composition has no workload; add the one workload kit the mixins compose onto"}}
	}
	return nil
}

func problem(e *spec.CompositionError) Problem {
	return Problem{ID: e.ID, Kits: e.Kits, Message: e.Msg}
}

func problemOf(err error) Problem {
	var ce *spec.CompositionError
	if errors.As(err, &ce) {
		return problem(ce)
	}
	return Problem{ID: "", Kits: []string{}, Message: err.Error()}
}

// mergeComposition merges the declarations of the ordered contributions,
// recording every capability entry that does not merge as a problem and
// the merges the rules allow as notes.
func mergeComposition(cs []spec.Contribution, r *Resolution) *spec.Descriptor {
	out := &spec.Descriptor{SchemaVersion: spec.SchemaVersion, Kind: spec.KindMixin}
	var m spec.CapabilityMerger
	npTypes := map[string][]string{}
	volumes := map[string][]string{}
	spec.MergeDeclarations(out, cs)
	for _, c := range cs {
		d := c.Descriptor
		if d.Kind == spec.KindWorkload {
			out.Kind = spec.KindWorkload
		}
		for _, e := range d.Capabilities {
			switch e.Type {
			case spec.TypeNetworkPolicy, spec.TypeNetworkPolicy2:
				if !slices.Contains(npTypes[e.Type], c.Who) {
					npTypes[e.Type] = append(npTypes[e.Type], c.Who)
				}
			case spec.TypeVolume:
				p, _ := e.Config["path"].(string)
				volumes[path.Clean(p)] = append(volumes[path.Clean(p)], c.Who)
			}
			if e.Type == spec.TypeAgentContext && spec.ContextProfile(e) == "" {
				m.Merged = append(m.Merged, e) // undirected bodies concatenate
				continue
			}
			if _, _, err := m.Add(c.Who, e); err != nil {
				r.Problems = append(r.Problems, problemOf(err))
			}
		}
	}
	out.Capabilities = m.Merged
	if len(npTypes[spec.TypeNetworkPolicy]) > 0 && len(npTypes[spec.TypeNetworkPolicy2]) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("network-policy@1 of %s and network-policy@2 of %s merge as one network-policy@2, allow and deny unioned per phase",
			strings.Join(npTypes[spec.TypeNetworkPolicy], ", "), strings.Join(npTypes[spec.TypeNetworkPolicy2], ", ")))
	}
	for _, p := range sortedKeys(volumes) {
		if who := volumes[p]; len(who) > 1 && !slices.ContainsFunc(r.Problems, func(x Problem) bool { return x.ID == spec.CaseVolumeNoMerge && strings.Contains(x.Message, p) }) {
			r.Notes = append(r.Notes, fmt.Sprintf("volume %s requested by %s merges into one (volume@1/matching-requests-merge)", p, strings.Join(who, ", ")))
		}
	}
	return out
}

package spec

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
)

// Conformance ids of the composition rules (SPEC-v3 §5.3, §9.5 and the
// capability pages) that CompositionError.ID takes.
const (
	CaseClosedSet         = "SPEC-v3 §5.3/closed-set"
	CaseConflictsFail     = "SPEC-v3 §5.3/conflicts-fail"
	CaseIntegrates        = "SPEC-v3 §5.3/integrates-violation-fails"
	CaseDependencyOrder   = "SPEC-v3 §5.3/dependency-order"
	CaseOneWorkload       = "SPEC-v3 §5.3/one-workload"
	CaseOneProvider       = "SPEC-v3 §5.3/one-provider-per-name"
	CaseVolumeNoMerge     = "volume@1/no-silent-merge"
	CaseHostMountNoMerge  = "host-mount@1/no-silent-merge"
	CaseLifecycleShared   = "lifecycle@1/shared-paths-avoided"
	CaseACPComposition    = "acp@1/composition"
	CaseDifferentConfigs  = "SPEC-v3 §9.5/instance-config-differs"
	CaseSingletonRestated = "SPEC-v3 §9.5/singleton-restated"
)

// Contribution is one kit of a composition: who it is, for messages, and
// its published (or effective) descriptor.
type Contribution struct {
	Who        string
	Descriptor *Descriptor
}

// CompositionError is a rule of composition (SPEC-v3 §5.3, §9.5) that a
// set of kits breaks. ID is the conformance case id of the rule (one of
// the Case constants); Kits names the contributions involved.
type CompositionError struct {
	ID   string
	Kits []string
	Msg  string
}

// Error returns the message.
func (e *CompositionError) Error() string { return e.Msg }

// VersionedProvides returns d's provides with the descriptor's version
// written into unversioned entries, as a composition sees them.
func VersionedProvides(d *Descriptor) []string {
	out := make([]string, 0, len(d.Provides))
	for _, s := range d.Provides {
		if p, err := ParseProvide(s); err == nil && p.Version == "" && d.Version != "" {
			s = p.Name + "@" + d.Version
		}
		out = append(out, s)
	}
	return out
}

// SatisfiedWithin reports whether a requires or integrates entry is met by
// one of the provides entries.
func SatisfiedWithin(provides []string, entry string) bool {
	r, err := ParseRequire(entry)
	if err != nil {
		return false
	}
	for _, s := range provides {
		if p, err := ParseProvide(s); err == nil && r.SatisfiedBy(p) {
			return true
		}
	}
	return false
}

// CheckRelations returns what makes a composition incoherent, in
// contribution order: one capability name provided by two kits, a
// conflict with something another kit provides, and a requires or
// integrates entry on a name another kit provides at a version that does
// not meet it. A requirement nothing provides is not judged here (see
// CheckClosed).
func CheckRelations(cs []Contribution) []*CompositionError {
	var errs []*CompositionError
	owner := map[string]string{}
	offers := map[string][]string{}
	for _, c := range cs {
		for _, s := range VersionedProvides(c.Descriptor) {
			p, err := ParseProvide(s)
			if err != nil {
				continue
			}
			n := NormalizeName(p.Name)
			if prev, dup := owner[n]; dup && prev != c.Who {
				errs = append(errs, &CompositionError{ID: CaseOneProvider, Kits: []string{prev, c.Who},
					Msg: fmt.Sprintf("%s and %s both provide %s; one capability has one owner in a kit, so drop one of them", prev, c.Who, p.Name)})
				continue
			}
			owner[n] = c.Who
			offers[n] = append(offers[n], s)
		}
	}
	for _, c := range cs {
		for _, name := range c.Descriptor.Conflicts {
			if o, ok := owner[NormalizeName(name)]; ok && o != c.Who {
				errs = append(errs, &CompositionError{ID: CaseConflictsFail, Kits: []string{c.Who, o},
					Msg: fmt.Sprintf("%s conflicts with %s, which %s provides; the merged kit would exclude itself", c.Who, name, o)})
			}
		}
		for _, entries := range [][]string{c.Descriptor.Requires, c.Descriptor.Integrates} {
			for _, s := range entries {
				r, err := ParseRequire(s)
				if err != nil {
					continue
				}
				n := NormalizeName(r.Name)
				if o, ok := owner[n]; !ok || o == c.Who || SatisfiedWithin(offers[n], s) {
					continue
				}
				id := CaseIntegrates
				if slices.Contains(c.Descriptor.Requires, s) {
					id = CaseClosedSet
				}
				errs = append(errs, &CompositionError{ID: id, Kits: []string{c.Who, owner[n]},
					Msg: fmt.Sprintf("%s states %q, but %s provides %s; the merged kit could never satisfy it", c.Who, s, owner[n], offers[n])})
			}
		}
	}
	return errs
}

// CheckClosed returns every requires entry whose name no other
// contribution provides (SPEC-v3 §5.3/closed-set): a kit cannot satisfy
// its own requirement. A name provided at a version that does not meet the
// entry is CheckRelations' to report.
func CheckClosed(cs []Contribution) []*CompositionError {
	var errs []*CompositionError
	for i, c := range cs {
		for _, s := range c.Descriptor.Requires {
			r, err := ParseRequire(s)
			if err != nil {
				continue
			}
			met := false
			for j, o := range cs {
				if j != i && SatisfiedWithin(VersionedProvides(o.Descriptor), r.Name) {
					met = true
					break
				}
			}
			if !met {
				errs = append(errs, &CompositionError{ID: CaseClosedSet, Kits: []string{c.Who},
					Msg: fmt.Sprintf("%s requires %q, which no other kit of the composition provides; add a kit that provides it", c.Who, s)})
			}
		}
	}
	return errs
}

// DependencyOrder returns the indexes of cs ordered so that providers come
// before the kits that require or integrate them (SPEC-v3
// §5.3/dependency-order); ties keep the given order. A dependency cycle is
// a *CompositionError.
func DependencyOrder(cs []Contribution) ([]int, error) {
	n := len(cs)
	after := make([][]int, n) // after[i]: kits that depend on i
	indeg := make([]int, n)
	for i, c := range cs {
		seen := map[int]bool{}
		for _, entries := range [][]string{c.Descriptor.Requires, c.Descriptor.Integrates} {
			for _, s := range entries {
				for j, o := range cs {
					if j == i || seen[j] || !SatisfiedWithin(VersionedProvides(o.Descriptor), s) {
						continue
					}
					seen[j] = true
					after[j] = append(after[j], i)
					indeg[i]++
				}
			}
		}
	}
	out := make([]int, 0, n)
	done := make([]bool, n)
	for len(out) < n {
		next := -1
		for i := range cs {
			if !done[i] && indeg[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 {
			var stuck []string
			for i, c := range cs {
				if !done[i] {
					stuck = append(stuck, c.Who)
				}
			}
			return nil, &CompositionError{ID: CaseDependencyOrder, Kits: stuck,
				Msg: fmt.Sprintf("the set's kits depend on each other in a circle (%v); one of those requires has to go", stuck)}
		}
		done[next] = true
		out = append(out, next)
		for _, j := range after[next] {
			indeg[j]--
		}
	}
	return out, nil
}

// CapabilityMerger merges the ordinary capability entries of a
// composition, in composition order, under the set merge rules (SPEC-v3
// §9.5): one entry per merge key; network policies union per phase, as @2
// when any input is @2; lifecycle configs concatenate; matching volume
// requests merge; everything else under one key must agree. The zero
// value is ready to use.
type CapabilityMerger struct {
	// Merged holds the merged entries in the order their keys first
	// appeared. Callers may edit the entries in place and append entries
	// that do not merge (groups, agent-context bodies).
	Merged   []Capability
	byKey    map[string]int    // merge key → index in Merged
	keyOwner map[string]string // merge key → first contributor
}

// Add merges entry e of contribution who. It returns the index of the
// merged entry and whether e started it. A rule e breaks is a
// *CompositionError; a config the key cannot be read from is an error.
func (m *CapabilityMerger) Add(who string, e Capability) (int, bool, error) {
	key, err := MergeKey(e)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %s: %w", who, e.Type, err)
	}
	if m.byKey == nil {
		m.byKey, m.keyOwner = map[string]int{}, map[string]string{}
	}
	i, seen := m.byKey[key]
	if !seen {
		m.byKey[key] = len(m.Merged)
		m.keyOwner[key] = who
		m.Merged = append(m.Merged, e)
		return len(m.Merged) - 1, true, nil
	}
	prev := &m.Merged[i]
	if err := m.mergeInto(prev, key, who, e); err != nil {
		return i, false, err
	}
	prev.Optional = prev.Optional && e.Optional // required wins
	if prev.Name == "" {
		prev.Name = e.Name
	}
	if prev.Description == "" {
		prev.Description = e.Description
	}
	prev.HasConfig = prev.HasConfig || e.HasConfig
	return i, false, nil
}

func (m *CapabilityMerger) mergeInto(prev *Capability, key, who string, e Capability) error {
	first := m.keyOwner[key]
	kits := []string{first, who}
	switch {
	case e.Type == TypeNetworkPolicy || e.Type == TypeNetworkPolicy2:
		prev.Config = MergeNetworkPolicy(prev.Config, e.Config)
		if e.Type == TypeNetworkPolicy2 {
			prev.Type = TypeNetworkPolicy2
		}
		return nil
	case e.Type == TypeLifecycle:
		cfg, err := MergeLifecycle(prev.Config, e.Config)
		if err != nil {
			return &CompositionError{ID: CaseLifecycleShared, Kits: kits, Msg: fmt.Sprintf("%s and %s: %v", first, who, err)}
		}
		prev.Config = cfg
		return nil
	case (e.Type == TypeHostMount || prev.Type == TypeHostMount) && first != who:
		p, _ := e.Config["path"].(string)
		return &CompositionError{ID: CaseHostMountNoMerge, Kits: kits, Msg: fmt.Sprintf(
			"%s (%s) and %s (%s) both declare the path %s; host-shared storage has one declaring kit, so drop one",
			first, shortType(prev.Type), who, shortType(e.Type), path.Clean(p))}
	case SameConfig(prev.Config, e.Config) || prev.Type == TypeVolume && e.Type == TypeVolume && sameVolumeConfig(prev.Config, e.Config):
		return nil
	}
	id := CaseDifferentConfigs
	switch {
	case e.Type == TypeVolume:
		id = CaseVolumeNoMerge
	case e.Type == TypeACP:
		id = CaseACPComposition
	case IsSingleton(e.Type):
		id = CaseSingletonRestated
	}
	return &CompositionError{ID: id, Kits: kits, Msg: fmt.Sprintf(
		"%s and %s both declare %s%s with different configs; a merged kit holds one, so make them agree or drop one",
		first, who, e.Type, describeKey(key))}
}

func shortType(t string) string {
	_, name, _ := strings.Cut(t, "/")
	return name
}

func describeKey(key string) string {
	_, k, _ := strings.Cut(key, "\x00")
	if k == "" || strings.HasPrefix(k, "{") {
		return ""
	}
	return " for " + k
}

// SameConfig compares two configs in the JSON data model.
func SameConfig(a, b map[string]any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// sameVolumeConfig reports two volume@1 configs that ask for the same
// volume.
func sameVolumeConfig(a, b map[string]any) bool {
	var va, vb Volume
	return DecodeConfig(a, &va) == nil && DecodeConfig(b, &vb) == nil && SameVolume(va, vb)
}

// MergeKey is the identity under which entries merge (SPEC-v3 §7.1 dedup
// keys): one key for both network policies, one per other singleton type,
// the type's key for instance types (volume@1 and host-mount@1 share the
// cleaned path), type plus config for the others.
func MergeKey(e Capability) (string, error) {
	switch {
	case e.Type == TypeNetworkPolicy || e.Type == TypeNetworkPolicy2:
		return "network-policy", nil
	case IsSingleton(e.Type):
		return e.Type, nil
	}
	cfg := e.Config
	str := func(k string) string { s, _ := cfg[k].(string); return s }
	var k string
	switch e.Type {
	case TypeCredential:
		var c Credential
		if err := DecodeConfig(cfg, &c); err != nil {
			return "", err
		}
		ph := slices.Clone([]string(c.Phase))
		slices.Sort(ph)
		k = c.Service + " (" + strings.Join(ph, ",") + ")"
	case TypeSSHAgent:
		k = fmt.Sprint(cfg["phase"])
	case TypeVolume, TypeHostMount:
		return "path\x00" + path.Clean(str("path")), nil
	case TypeAgentSkills:
		k = str("path")
	case TypeAgentSkill:
		var s AgentSkill
		if err := DecodeConfig(cfg, &s); err != nil {
			return "", err
		}
		k = s.EffectiveName()
	case TypePort:
		var p Port
		if err := DecodeConfig(cfg, &p); err != nil {
			return "", err
		}
		k = p.Key()
	case TypeACP:
		k = strings.ToLower(strings.TrimSpace(str("agent")))
	case TypeAgentContext:
		k = path.Join(str("directory"), str("filename"))
	default:
		b, _ := json.Marshal(cfg)
		k = string(b)
	}
	return e.Type + "\x00" + k, nil
}

// MergeNetworkPolicy unions two network policy configs per phase and
// list, keeping each entry once.
func MergeNetworkPolicy(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for _, phase := range []string{"install", "runtime"} {
		pa, _ := a[phase].(map[string]any)
		pb, _ := b[phase].(map[string]any)
		if pa == nil && pb == nil {
			continue
		}
		rules := map[string]any{}
		for _, list := range []string{"allow", "deny"} {
			var entries []any
			for _, p := range []map[string]any{pa, pb} {
				l, _ := p[list].([]any)
				for _, x := range l {
					if !slices.ContainsFunc(entries, func(y any) bool { return reflect.DeepEqual(x, y) }) {
						entries = append(entries, x)
					}
				}
			}
			if len(entries) > 0 {
				rules[list] = entries
			}
		}
		out[phase] = rules
	}
	return out
}

// MergeLifecycle concatenates two lifecycle configs: hooks in order, files
// with distinct paths, at most one interactive list.
func MergeLifecycle(a, b map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range []string{"install", "startup"} {
		la, _ := a[k].([]any)
		lb, _ := b[k].([]any)
		if all := append(slices.Clone(la), lb...); len(all) > 0 {
			out[k] = all
		}
	}
	fa, _ := a["files"].([]any)
	fb, _ := b["files"].([]any)
	paths := map[string]bool{}
	for _, f := range append(slices.Clone(fa), fb...) {
		m, _ := f.(map[string]any)
		p, _ := m["path"].(string)
		if paths[path.Clean(p)] {
			return nil, fmt.Errorf("both write the lifecycle file %s; a merged kit writes each file once", p)
		}
		paths[path.Clean(p)] = true
	}
	if all := append(slices.Clone(fa), fb...); len(all) > 0 {
		out["files"] = all
	}
	ia, okA := a["interactive"]
	ib, okB := b["interactive"]
	switch {
	case okA && okB && !reflect.DeepEqual(ia, ib):
		return nil, fmt.Errorf("both state a lifecycle interactive command; a merged kit has one")
	case okA:
		out["interactive"] = ia
	case okB:
		out["interactive"] = ib
	}
	return out, nil
}

package review

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

func capField(i int) string { return fmt.Sprintf("capabilities[%d]", i) }

// otherChanges lists the differences outside the permission surface:
// metadata, relations, args, the kits of a set, and the capabilities that
// grant nothing (hook commands, files, agent context, sessions…), plus
// the optional, name and description of every entry.
func otherChanges(old, new *Kit) []Change {
	od, nd := old.Descriptor, new.Descriptor
	out := []Change{}
	for _, f := range []struct{ name, o, n string }{
		{"kind", od.Kind, nd.Kind}, {"displayName", od.DisplayName, nd.DisplayName}, {"author", od.Author, nd.Author},
		{"description", od.Description, nd.Description}, {"sourceUrl", od.SourceURL, nd.SourceURL},
		{"iconUrl", od.IconURL, nd.IconURL}, {"version", od.Version, nd.Version},
		{"build", od.Build, nd.Build}, {"dockerfile", od.Dockerfile, nd.Dockerfile},
	} {
		if f.o != f.n {
			out = append(out, Change{Kind: KindChange, Category: "metadata." + f.name, Detail: f.name, Old: f.o, New: f.n, At: either(old, new, f.name, f.n == "")})
		}
	}
	for _, l := range []struct {
		name string
		o, n []string
	}{
		{"licenses", od.Licenses, nd.Licenses}, {"provides", od.Provides, nd.Provides}, {"requires", od.Requires, nd.Requires},
		{"integrates", od.Integrates, nd.Integrates}, {"conflicts", od.Conflicts, nd.Conflicts},
	} {
		out = append(out, listChanges(l.name, l.o, l.n, old, new)...)
	}
	out = append(out, argChanges(old, new)...)
	out = append(out, kitsChanges(old, new)...)
	return append(out, capabilityChanges(old, new)...)
}

// either returns the position of field in the new kit, or in the old one
// when the value was removed.
func either(old, new *Kit, field string, removed bool) *spec.Pos {
	if removed {
		return old.pos(field)
	}
	return new.pos(field)
}

// listChanges reports the entries of a list added and removed.
func listChanges(name string, o, n []string, old, new *Kit) []Change {
	var out []Change
	for i, x := range n {
		if !slices.Contains(o, x) {
			out = append(out, Change{Kind: KindChange, Category: name, Detail: x, New: x, At: new.pos(fmt.Sprintf("%s[%d]", name, i))})
		}
	}
	for i, x := range o {
		if !slices.Contains(n, x) {
			out = append(out, Change{Kind: KindChange, Category: name, Detail: x, Old: x, At: old.pos(fmt.Sprintf("%s[%d]", name, i))})
		}
	}
	return out
}

func argChanges(old, new *Kit) []Change {
	var out []Change
	oa, na := old.Descriptor.Args, new.Descriptor.Args
	names := slices.Sorted(maps.Keys(oa))
	for n := range na {
		if _, ok := oa[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		o, inOld := oa[n]
		nw, inNew := na[n]
		c := Change{Kind: KindChange, Category: "args", Detail: n}
		if inOld {
			c.Old = compact(o)
		}
		if inNew {
			c.New = compact(nw)
		}
		if c.Old != c.New {
			c.At = either(old, new, "args."+n, !inNew)
			out = append(out, c)
		}
	}
	return out
}

func kitsChanges(old, new *Kit) []Change {
	key := func(k spec.KitRef) string { return compact(k) }
	var o, n []string
	for _, k := range old.Descriptor.Kits {
		o = append(o, key(k))
	}
	for _, k := range new.Descriptor.Kits {
		n = append(n, key(k))
	}
	return listChanges("kits", o, n, old, new)
}

// compact renders v as one line of JSON, HTML characters unescaped.
func compact(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// keyed is a capability entry with its identity in the kit: the group it
// is in (by name) and its merge key.
type keyed struct {
	spec.Entry
	key string
}

func keyedEntries(d *spec.Descriptor) map[string]keyed {
	out := map[string]keyed{}
	for _, e := range d.Entries() {
		k, err := spec.MergeKey(e.Capability)
		if err != nil {
			k = e.Type + "\x00" + compact(e.Config)
		}
		if e.Type == spec.TypeAgentContext && k == e.Type+"\x00" {
			k += "body"
		}
		if e.InGroup {
			k = "group " + e.Group.Name + "\x00" + k
		}
		out[k] = keyed{Entry: e, key: k}
	}
	return out
}

// grantless reports a capability that adds nothing to the surface.
func grantless(c spec.Capability) bool {
	return len(spec.AtomsOf(&spec.Descriptor{Capabilities: []spec.Capability{c}})) == 0
}

// label names an entry in a change: its type without the namespace, and
// its key when it has one.
func label(e keyed) string {
	_, k, _ := strings.Cut(strings.TrimPrefix(e.key, "group "+groupName(e.Entry)+"\x00"), "\x00")
	t := shortType(e.Type)
	if k == "" || strings.HasPrefix(k, "{") || k == "body" {
		return t
	}
	return t + " " + k
}

func groupName(e spec.Entry) string {
	if e.Group == nil {
		return ""
	}
	return e.Group.Name
}

func shortType(t string) string {
	if ns, name, ok := strings.Cut(t, "/"); ok && ns == "com.docker.sandbox" {
		return name
	}
	return t
}

// capabilityChanges reports capabilities outside the surface added,
// removed or changed, and entry attributes (optional, name, description)
// changed on any entry.
func capabilityChanges(old, new *Kit) []Change {
	oe, ne := keyedEntries(old.Descriptor), keyedEntries(new.Descriptor)
	var out []Change
	for _, k := range slices.Sorted(maps.Keys(ne)) {
		n := ne[k]
		o, ok := oe[k]
		if !ok {
			if grantless(n.Capability) {
				out = append(out, Change{Kind: KindChange, Category: "capabilities", Detail: label(n), New: compact(n.Config), At: new.pos(n.Field())})
			}
			continue
		}
		out = append(out, attributeChanges(o, n, new)...)
		if grantless(n.Capability) && !spec.SameConfig(o.Config, n.Config) {
			out = append(out, configChanges(o, n, old, new)...)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(oe)) {
		if o := oe[k]; ne[k].Type == "" && grantless(o.Capability) {
			out = append(out, Change{Kind: KindChange, Category: "capabilities", Detail: label(o), Old: compact(o.Config), At: old.pos(o.Field())})
		}
	}
	return out
}

func attributeChanges(o, n keyed, new *Kit) []Change {
	var out []Change
	optional := func(e keyed) bool { return e.Optional || e.InGroup && e.Group.Optional }
	for _, a := range []struct{ name, o, n string }{
		{"optional", fmt.Sprint(optional(o)), fmt.Sprint(optional(n))},
		{"name", o.Name, n.Name}, {"description", o.Description, n.Description},
	} {
		if a.o != a.n {
			out = append(out, Change{Kind: KindChange, Category: "capability." + a.name, Detail: label(n), Old: a.o, New: a.n, At: new.pos(n.Field())})
		}
	}
	return out
}

// configChanges reports how the config of a grantless entry changed:
// hook by hook and file by file for lifecycle@1, field by field for
// agent-context@1, as a whole otherwise.
func configChanges(o, n keyed, old, new *Kit) []Change {
	if n.Type == spec.TypeLifecycle {
		return lifecycleChanges(o, n, old, new)
	}
	if n.Type == spec.TypeAgentContext {
		var out []Change
		for _, f := range []string{"filename", "directory", "content", "contentFile"} {
			ov, nv := fmt.Sprint(orEmpty(o.Config[f])), fmt.Sprint(orEmpty(n.Config[f]))
			if ov != nv {
				out = append(out, Change{Kind: KindChange, Category: "agent-context", Detail: f, Old: ov, New: nv, At: either(old, new, n.Field()+".config."+f, nv == "")})
			}
		}
		return out
	}
	return []Change{{Kind: KindChange, Category: shortType(n.Type), Detail: "config", Old: compact(o.Config), New: compact(n.Config), At: new.pos(n.Field() + ".config")}}
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

package build

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// contribution is one input of a set merge: a listed kit's published
// descriptor (its args answered by the set), or the set's own
// declarations.
type contribution struct {
	// who names it in messages: the kit reference, or "the set".
	who string
	d   *spec.Descriptor
	// body reads the agent-context body a contentFile of this
	// contribution names.
	body func(contentFile string) ([]byte, error)
}

// merged is a set merge's outcome.
type merged struct {
	d *spec.Descriptor
	// files are the agent-context bodies the set stages in its own
	// directory: the merged undirected body (context.md) and the bodies of
	// the listed kits' directed entries.
	files []stagedFile
}

// setContextName is the staged name of a merged agent-context body.
const setContextName = "context.md"

// mergeSet merges ordered contributions (the listed kits in dependency
// order, the set's own last) into one published descriptor (SPEC-v3
// §9.5). own is the set's own published descriptor: it supplies the
// display fields, args and kits list; kind is the derived one, checked
// against the authored kind.
func mergeSet(own *spec.Descriptor, authoredKind, stem string, cs []contribution) (*merged, error) {
	workloads := []string{}
	for _, c := range cs {
		if c.d.Kind == spec.KindWorkload {
			workloads = append(workloads, c.who)
		}
	}
	kind := spec.KindMixin
	switch len(workloads) {
	case 0:
	case 1:
		kind = spec.KindWorkload
	default:
		return nil, fmt.Errorf("the set lists two workloads, %s and %s; a kit has one root filesystem, so list one workload and mixins", workloads[0], workloads[1])
	}
	if authoredKind != spec.KindSet && authoredKind != kind {
		return nil, fmt.Errorf("the set declares kind: %s, but the kits it lists make it a %s; write kind: %s, or kind: set to derive it", authoredKind, kind, kind)
	}
	if err := checkRelations(cs); err != nil {
		return nil, err
	}
	out := &spec.Descriptor{
		SchemaVersion: spec.SchemaVersion, DisplayName: own.DisplayName, Author: own.Author,
		Description: own.Description, SourceURL: own.SourceURL, IconURL: own.IconURL, Version: own.Version,
		Kind: kind, Args: own.Args, Kits: own.Kits,
	}
	for _, c := range cs {
		out.Licenses = appendNew(out.Licenses, c.d.Licenses...)
		out.Provides = appendNew(out.Provides, versionedProvides(c.d)...)
		out.Conflicts = appendNew(out.Conflicts, c.d.Conflicts...)
	}
	for _, c := range cs {
		for _, r := range c.d.Requires {
			if !satisfiedWithin(out.Provides, r) {
				out.Requires = appendNew(out.Requires, r)
			}
		}
		for _, r := range c.d.Integrates {
			if !satisfiedWithin(out.Provides, r) {
				out.Integrates = appendNew(out.Integrates, r)
			}
		}
	}
	caps, files, err := mergeCapabilities(cs, stem)
	if err != nil {
		return nil, err
	}
	out.Capabilities = caps
	return &merged{d: out, files: files}, nil
}

// appendNew appends the values list lacks.
func appendNew(list []string, values ...string) []string {
	for _, v := range values {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// versionedProvides returns d's provides with the descriptor's version
// written into unversioned entries: in a merged kit the top-level version
// is the set's, no longer this kit's.
func versionedProvides(d *spec.Descriptor) []string {
	out := make([]string, 0, len(d.Provides))
	for _, s := range d.Provides {
		if p, err := spec.ParseProvide(s); err == nil && p.Version == "" && d.Version != "" {
			s = p.Name + "@" + d.Version
		}
		out = append(out, s)
	}
	return out
}

// satisfiedWithin reports whether a requires or integrates entry is met
// by one of the provides entries.
func satisfiedWithin(provides []string, entry string) bool {
	r, err := spec.ParseRequire(entry)
	if err != nil {
		return false
	}
	for _, s := range provides {
		if p, err := spec.ParseProvide(s); err == nil && r.SatisfiedBy(p) {
			return true
		}
	}
	return false
}

// checkRelations refuses what would make the merged kit incoherent: one
// capability name provided twice, a conflict with something another
// contribution provides, and a requirement on a name the set provides at a
// version that does not meet it.
func checkRelations(cs []contribution) error {
	owner := map[string]string{}
	offers := map[string][]spec.Provide{}
	for _, c := range cs {
		for _, s := range versionedProvides(c.d) {
			p, err := spec.ParseProvide(s)
			if err != nil {
				continue
			}
			n := spec.NormalizeName(p.Name)
			if prev, dup := owner[n]; dup && prev != c.who {
				return fmt.Errorf("%s and %s both provide %s; one capability has one owner in a kit, so drop one of them", prev, c.who, p.Name)
			}
			owner[n] = c.who
			offers[n] = append(offers[n], p)
		}
	}
	for _, c := range cs {
		for _, name := range c.d.Conflicts {
			if o, ok := owner[spec.NormalizeName(name)]; ok && o != c.who {
				return fmt.Errorf("%s conflicts with %s, which %s provides; the merged kit would exclude itself", c.who, name, o)
			}
		}
		for _, entries := range [][]string{c.d.Requires, c.d.Integrates} {
			for _, s := range entries {
				r, err := spec.ParseRequire(s)
				if err != nil {
					continue
				}
				n := spec.NormalizeName(r.Name)
				if o, ok := owner[n]; !ok || o == c.who || satisfiedWithin(provideStrings(offers[n]), s) {
					continue
				}
				return fmt.Errorf("%s states %q, but %s provides %s; the merged kit could never satisfy it", c.who, s, owner[n], provideStrings(offers[n]))
			}
		}
	}
	return nil
}

func provideStrings(ps []spec.Provide) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		s := p.Name
		if p.Version != "" {
			s += "@" + p.Version
		}
		out = append(out, s)
	}
	return out
}

// mergeCapabilities merges the capability entries of the contributions.
// Groups are carried through as they are (identical ones once). Every
// agent-context body a listed kit stages is staged again in the set's own
// directory, where a published contentFile points (SPEC-v3 §9.4).
func mergeCapabilities(cs []contribution, stem string) ([]spec.Capability, []stagedFile, error) {
	m := capMerger{byKey: map[string]int{}, keyOwner: map[string]string{}, from: map[int]contribution{}}
	var contexts []ctxEntry
	for _, c := range cs {
		for _, e := range c.d.Capabilities {
			if e.Group != nil {
				if !slices.ContainsFunc(m.out, func(x spec.Capability) bool { return reflect.DeepEqual(x, e) }) {
					m.out = append(m.out, e)
				}
				continue
			}
			if e.Type == spec.TypeAgentContext && contextKey(e) == "" {
				contexts = append(contexts, ctxEntry{c: c, e: e})
				continue
			}
			if err := m.add(c, e); err != nil {
				return nil, nil, err
			}
		}
	}
	files, err := m.restage(stem)
	if err != nil {
		return nil, nil, err
	}
	body, err := m.addContexts(contexts, stem)
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		files = append(files, stagedFile{Path: path.Join(spec.StagedDir(stem), setContextName), Data: body})
	}
	return m.out, files, nil
}

// restage stages again, in the set's directory, the bodies the merged
// directed agent-context entries name in a listed kit's directory, and
// points their contentFile there.
func (m *capMerger) restage(stem string) ([]stagedFile, error) {
	dir := spec.StagedDir(stem)
	var files []stagedFile
	for i := range m.out {
		e := &m.out[i]
		cf, _ := e.Config["contentFile"].(string)
		if e.Type != spec.TypeAgentContext || cf == "" || strings.HasPrefix(cf, dir+"/") {
			continue
		}
		body, err := m.from[i].body(cf)
		if err != nil {
			return nil, fmt.Errorf("%s: reading its agent context %s: %w", m.from[i].who, cf, err)
		}
		dst := path.Join(dir, fmt.Sprintf("context-%d", i), path.Base(cf))
		files = append(files, stagedFile{Path: dst, Data: body})
		cfg := maps.Clone(e.Config)
		cfg["contentFile"] = dst
		e.Config = cfg
	}
	return files, nil
}

type ctxEntry struct {
	c contribution
	e spec.Capability
}

// capMerger accumulates merged entries.
type capMerger struct {
	out      []spec.Capability
	byKey    map[string]int       // merge key → index in out
	keyOwner map[string]string    // merge key → first contributor
	from     map[int]contribution // index in out → first contributor
}

// add merges one ordinary entry.
func (m *capMerger) add(c contribution, e spec.Capability) error {
	who := c.who
	key, err := mergeKey(e)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", who, e.Type, err)
	}
	i, seen := m.byKey[key]
	if !seen {
		m.byKey[key] = len(m.out)
		m.keyOwner[key] = who
		m.from[len(m.out)] = c
		m.out = append(m.out, e)
		return nil
	}
	prev := &m.out[i]
	switch e.Type {
	case spec.TypeNetworkPolicy, spec.TypeNetworkPolicy2:
		prev.Config = mergeNetworkPolicy(prev.Config, e.Config)
		if e.Type == spec.TypeNetworkPolicy2 {
			prev.Type = spec.TypeNetworkPolicy2
		}
	case spec.TypeLifecycle:
		cfg, err := mergeLifecycle(prev.Config, e.Config)
		if err != nil {
			return fmt.Errorf("%s and %s: %w", m.keyOwner[key], who, err)
		}
		prev.Config = cfg
	default:
		if !sameConfig(prev.Config, e.Config) && !(prev.Type == e.Type && e.Type == spec.TypeVolume && sameVolume(prev.Config, e.Config)) {
			return fmt.Errorf("%s and %s both declare %s%s with different configs; a merged kit holds one, so make them agree or drop one",
				m.keyOwner[key], who, e.Type, describeKey(key))
		}
	}
	prev.Optional = prev.Optional && e.Optional // required wins
	if prev.Name == "" {
		prev.Name = e.Name
	}
	if prev.Description == "" {
		prev.Description = e.Description
	}
	prev.HasConfig = prev.HasConfig || e.HasConfig
	return nil
}

func describeKey(key string) string {
	_, k, _ := strings.Cut(key, "\x00")
	if k == "" || strings.HasPrefix(k, "{") {
		return ""
	}
	return " for " + k
}

// sameConfig compares two configs in the JSON data model.
func sameConfig(a, b map[string]any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// sameVolume reports two volume@1 configs that ask for the same volume.
func sameVolume(a, b map[string]any) bool {
	var va, vb spec.Volume
	return spec.DecodeConfig(a, &va) == nil && spec.DecodeConfig(b, &vb) == nil && spec.SameVolume(va, vb)
}

// mergeKey is the identity under which entries merge (SPEC-v3 §7.2 dedup
// keys): one key per singleton type, the type's key for instance types,
// the whole config for the others.
func mergeKey(e spec.Capability) (string, error) {
	switch {
	case e.Type == spec.TypeNetworkPolicy || e.Type == spec.TypeNetworkPolicy2:
		return "network-policy", nil
	case spec.IsSingleton(e.Type):
		return e.Type, nil
	}
	cfg := e.Config
	str := func(k string) string { s, _ := cfg[k].(string); return s }
	var k string
	switch e.Type {
	case spec.TypeCredential:
		var c spec.Credential
		if err := spec.DecodeConfig(cfg, &c); err != nil {
			return "", err
		}
		ph := slices.Clone([]string(c.Phase))
		slices.Sort(ph)
		k = c.Service + " (" + strings.Join(ph, ",") + ")"
	case spec.TypeSSHAgent:
		k = fmt.Sprint(cfg["phase"])
	case spec.TypeVolume, spec.TypeHostMount:
		return "path\x00" + path.Clean(str("path")), nil
	case spec.TypeAgentSkills:
		k = str("path")
	case spec.TypeAgentSkill:
		var s spec.AgentSkill
		if err := spec.DecodeConfig(cfg, &s); err != nil {
			return "", err
		}
		k = s.EffectiveName()
	case spec.TypePort:
		var p spec.Port
		if err := spec.DecodeConfig(cfg, &p); err != nil {
			return "", err
		}
		k = p.Key()
	case spec.TypeACP:
		k = strings.ToLower(strings.TrimSpace(str("agent")))
	case spec.TypeAgentContext:
		k = path.Join(str("directory"), str("filename"))
	default:
		b, _ := json.Marshal(cfg)
		k = string(b)
	}
	return e.Type + "\x00" + k, nil
}

// contextKey is an agent-context entry's profile: directory/filename, or
// "" for an undirected body.
func contextKey(e spec.Capability) string {
	dir, _ := e.Config["directory"].(string)
	file, _ := e.Config["filename"].(string)
	if dir == "" && file == "" {
		return ""
	}
	return path.Join(dir, file)
}

// addContexts adds the undirected agent-context bodies. One written
// inline in its entry (content:) is kept as it is; otherwise the bodies are
// concatenated, each under a note naming its kit, into context.md in the
// set's staged directory.
func (m *capMerger) addContexts(list []ctxEntry, stem string) ([]byte, error) {
	switch {
	case len(list) == 0:
		return nil, nil
	case len(list) == 1 && list[0].e.Config["contentFile"] == nil:
		m.out = append(m.out, list[0].e)
		return nil, nil
	}
	var body strings.Builder
	e := spec.Capability{Type: spec.TypeAgentContext, HasConfig: true, Optional: true}
	for _, x := range list {
		text, err := contextBody(x)
		if err != nil {
			return nil, err
		}
		e.Optional = e.Optional && x.e.Optional
		if e.Name == "" {
			e.Name = x.e.Name
		}
		if len(list) == 1 {
			e.Description = x.e.Description
			body.Write(text)
			continue
		}
		if strings.TrimSpace(string(text)) == "" {
			continue
		}
		if body.Len() > 0 {
			body.WriteString("\n")
		}
		fmt.Fprintf(&body, "<!-- from %s -->\n%s", x.c.who, text)
		if !strings.HasSuffix(string(text), "\n") {
			body.WriteString("\n")
		}
	}
	if e.Description == "" && len(list) > 1 {
		e.Description = "Agent guidance merged from the kits of the set"
	}
	e.Config = map[string]any{"contentFile": path.Join(spec.StagedDir(stem), setContextName)}
	m.out = append(m.out, e)
	return []byte(body.String()), nil
}

// contextBody returns an agent-context entry's body: its content, or the
// file its contentFile names.
func contextBody(x ctxEntry) ([]byte, error) {
	if s, ok := x.e.Config["content"].(string); ok && s != "" {
		return []byte(s), nil
	}
	cf, _ := x.e.Config["contentFile"].(string)
	if cf == "" {
		return nil, nil
	}
	b, err := x.c.body(cf)
	if err != nil {
		return nil, fmt.Errorf("%s: reading its agent context %s: %w", x.c.who, cf, err)
	}
	return b, nil
}

// mergeNetworkPolicy unions two network policies per phase and list,
// keeping each entry once.
func mergeNetworkPolicy(a, b map[string]any) map[string]any {
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

// mergeLifecycle concatenates two lifecycle configs: hooks in order, files
// with distinct paths, at most one interactive list.
func mergeLifecycle(a, b map[string]any) (map[string]any, error) {
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

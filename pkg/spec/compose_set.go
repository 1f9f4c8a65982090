package spec

import (
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// SetContextName is the staged name, in a set's own staged directory, of
// the agent-context body merged from the undirected bodies of its kits.
const SetContextName = "context.md"

// SetContribution is one input of MergeSet: a listed kit's published
// descriptor (its args answered by the set), or the set's own
// declarations.
type SetContribution struct {
	Contribution
	// Body reads the agent-context body a contentFile of this
	// contribution names. Nil reads every body as empty: a caller that
	// wants only the merged descriptor (a review) leaves it nil, since
	// the descriptor does not depend on the bodies.
	Body func(contentFile string) ([]byte, error)
}

// StagedBody is an agent-context body a merged set stages in its own
// directory.
type StagedBody struct {
	// Path is absolute, e.g. /usr/share/sandbox/kit/team/context.md.
	Path string
	Data []byte
}

// MergedSet is the outcome of MergeSet.
type MergedSet struct {
	// Descriptor is the merged published descriptor.
	Descriptor *Descriptor
	// Bodies are the agent-context bodies the set stages in its own
	// directory: the merged undirected body (SetContextName) and the
	// bodies of the listed kits' directed entries.
	Bodies []StagedBody
}

// PublishSet publishes the declarations of a kind: set source as the
// set's own contribution to MergeSet, as building the set does: kind
// replaced by the derived kind (workload or mixin), kits[i].digest pinned
// to digests[i] where that is not "", then Publish with buildArgs.
// Published is nil when there are errors.
func (k *Kit) PublishSet(kind string, digests []string, buildArgs map[string]string) (*Published, *Report) {
	r := &Report{}
	var doc yaml.Node
	if err := yaml.Unmarshal(k.Source, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		r.add(false, asError(fmt.Errorf("reading the set descriptor %s again: not a YAML mapping", k.Path), k.Path))
		return nil, r
	}
	root := doc.Content[0]
	setScalar(root, "kind", kind)
	if kits := mapValue(root, "kits"); kits != nil && kits.Kind == yaml.SequenceNode {
		for i, item := range kits.Content {
			if i < len(digests) && digests[i] != "" && item.Kind == yaml.MappingNode {
				setScalar(item, "digest", digests[i])
			}
		}
	}
	src, err := yaml.Marshal(&doc)
	if err != nil {
		r.add(false, asError(fmt.Errorf("encoding the set descriptor: %w", err), k.Path))
		return nil, r
	}
	pk, err := Parse(k.Path, append([]byte(SyntaxLine+"\n"), src...))
	if err != nil {
		r.add(false, asError(err, k.Path))
		return nil, r
	}
	pk.Files = k.Files
	return pk.Publish(buildArgs)
}

// setScalar sets key to a string value in a YAML mapping.
func setScalar(m *yaml.Node, key, value string) {
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// MergeSet merges the ordered contributions of a kind: set (the listed
// kits in dependency order, the set's own declarations last) into one
// published descriptor (SPEC-v3 §9.5), as building the set does. own is
// the set's own published descriptor: it supplies the display fields,
// args and kits list. The kind is derived from the contributions (one
// workload makes a workload) and must match authoredKind unless that is
// set. stem names the set's staged directory, where the merged entries'
// agent-context bodies are staged. A composition rule broken is a
// *CompositionError.
func MergeSet(own *Descriptor, authoredKind, stem string, cs []SetContribution) (*MergedSet, error) {
	workloads := []string{}
	plain := make([]Contribution, len(cs))
	for i, c := range cs {
		plain[i] = c.Contribution
		if c.Descriptor.Kind == KindWorkload {
			workloads = append(workloads, c.Who)
		}
	}
	kind := KindMixin
	switch len(workloads) {
	case 0:
	case 1:
		kind = KindWorkload
	default:
		return nil, &CompositionError{ID: CaseOneWorkload, Kits: workloads, Msg: fmt.Sprintf(
			"the set lists two workloads, %s and %s; a kit has one root filesystem, so list one workload and mixins", workloads[0], workloads[1])}
	}
	if authoredKind != KindSet && authoredKind != kind {
		return nil, fmt.Errorf("the set declares kind: %s, but the kits it lists make it a %s; write kind: %s, or kind: set to derive it", authoredKind, kind, kind)
	}
	if errs := CheckRelations(plain); len(errs) > 0 {
		return nil, errs[0]
	}
	out := &Descriptor{
		SchemaVersion: SchemaVersion, DisplayName: own.DisplayName, Author: own.Author,
		Description: own.Description, SourceURL: own.SourceURL, IconURL: own.IconURL, Version: own.Version,
		Kind: kind, Args: own.Args, Kits: own.Kits,
	}
	MergeDeclarations(out, plain)
	caps, bodies, err := mergeSetCapabilities(cs, stem)
	if err != nil {
		return nil, err
	}
	out.Capabilities = caps
	return &MergedSet{Descriptor: out, Bodies: bodies}, nil
}

// SetOwnName names a set's own declarations among the contributions a set
// merges.
const SetOwnName = "the set's own descriptor"

// SetOwnDeclarations returns what a set's own descriptor d contributes to
// its merge: a copy as a mixin, without the set's args and kits list.
func SetOwnDeclarations(d *Descriptor) *Descriptor {
	own := *d
	own.Kind, own.Args, own.Kits = KindMixin, nil, nil
	return &own
}

// MergeDeclarations sets out's licenses, versioned provides and conflicts
// to the union of the ordered contributions', and its requires and
// integrates to those the merged provides do not satisfy (SPEC-v3
// §9.5/internal-requires-dropped), as merging a set does.
func MergeDeclarations(out *Descriptor, cs []Contribution) {
	for _, c := range cs {
		out.Licenses = appendMissing(out.Licenses, c.Descriptor.Licenses...)
		out.Provides = appendMissing(out.Provides, VersionedProvides(c.Descriptor)...)
		out.Conflicts = appendMissing(out.Conflicts, c.Descriptor.Conflicts...)
	}
	for _, c := range cs {
		for _, r := range c.Descriptor.Requires {
			if !SatisfiedWithin(out.Provides, r) {
				out.Requires = appendMissing(out.Requires, r)
			}
		}
		for _, r := range c.Descriptor.Integrates {
			if !SatisfiedWithin(out.Provides, r) {
				out.Integrates = appendMissing(out.Integrates, r)
			}
		}
	}
}

// appendMissing appends the values list lacks.
func appendMissing(list []string, values ...string) []string {
	for _, v := range values {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// mergeSetCapabilities merges the capability entries of the
// contributions. Groups are carried through as they are (identical ones
// once). Every agent-context body a listed kit stages is staged again in
// the set's own directory, where a published contentFile points.
func mergeSetCapabilities(cs []SetContribution, stem string) ([]Capability, []StagedBody, error) {
	m := setMerger{from: map[int]SetContribution{}}
	var contexts []setContext
	for _, c := range cs {
		for _, e := range c.Descriptor.Capabilities {
			if e.Group != nil {
				if !slices.ContainsFunc(m.Merged, func(x Capability) bool { return reflect.DeepEqual(x, e) }) {
					m.Merged = append(m.Merged, e)
				}
				continue
			}
			if e.Type == TypeAgentContext && ContextProfile(e) == "" {
				contexts = append(contexts, setContext{c: c, e: e})
				continue
			}
			if err := m.add(c, e); err != nil {
				return nil, nil, err
			}
		}
	}
	bodies, err := m.restage(stem)
	if err != nil {
		return nil, nil, err
	}
	body, err := m.addContexts(contexts, stem)
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		bodies = append(bodies, StagedBody{Path: path.Join(StagedDir(stem), SetContextName), Data: body})
	}
	return m.Merged, bodies, nil
}

type setContext struct {
	c SetContribution
	e Capability
}

// setMerger accumulates merged entries: the capability merger, plus the
// contribution each entry came from first.
type setMerger struct {
	CapabilityMerger
	from map[int]SetContribution // index in Merged → first contributor
}

// add merges one ordinary entry.
func (m *setMerger) add(c SetContribution, e Capability) error {
	i, first, err := m.Add(c.Who, e)
	if err != nil {
		return err
	}
	if first {
		m.from[i] = c
	}
	return nil
}

// restage stages again, in the set's directory, the bodies the merged
// directed agent-context entries name in a listed kit's directory, and
// points their contentFile there.
func (m *setMerger) restage(stem string) ([]StagedBody, error) {
	dir := StagedDir(stem)
	var bodies []StagedBody
	for i := range m.Merged {
		e := &m.Merged[i]
		cf, _ := e.Config["contentFile"].(string)
		if e.Type != TypeAgentContext || cf == "" || strings.HasPrefix(cf, dir+"/") {
			continue
		}
		c := m.from[i]
		body, err := c.read(cf)
		if err != nil {
			return nil, err
		}
		dst := path.Join(dir, fmt.Sprintf("context-%d", i), path.Base(cf))
		bodies = append(bodies, StagedBody{Path: dst, Data: body})
		cfg := maps.Clone(e.Config)
		cfg["contentFile"] = dst
		e.Config = cfg
	}
	return bodies, nil
}

// read returns the body a contentFile of c names.
func (c SetContribution) read(cf string) ([]byte, error) {
	if c.Body == nil {
		return nil, nil
	}
	b, err := c.Body(cf)
	if err != nil {
		return nil, fmt.Errorf("%s: reading its agent context %s: %w", c.Who, cf, err)
	}
	return b, nil
}

// ContextProfile is an agent-context entry's explicit profile:
// directory/filename, or "" for an undirected body.
func ContextProfile(e Capability) string {
	dir, _ := e.Config["directory"].(string)
	file, _ := e.Config["filename"].(string)
	if dir == "" && file == "" {
		return ""
	}
	return path.Join(dir, file)
}

// addContexts adds the undirected agent-context bodies. One written
// inline in its entry (content:) is kept as it is; otherwise the bodies
// are concatenated, each under a note naming its kit, into
// SetContextName in the set's staged directory, and one entry points
// there.
func (m *setMerger) addContexts(list []setContext, stem string) ([]byte, error) {
	switch {
	case len(list) == 0:
		return nil, nil
	case len(list) == 1 && list[0].e.Config["contentFile"] == nil:
		m.Merged = append(m.Merged, list[0].e)
		return nil, nil
	}
	var body strings.Builder
	e := Capability{Type: TypeAgentContext, HasConfig: true, Optional: true}
	for _, x := range list {
		text, err := x.body()
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
		fmt.Fprintf(&body, "<!-- from %s -->\n%s", x.c.Who, text)
		if !strings.HasSuffix(string(text), "\n") {
			body.WriteString("\n")
		}
	}
	if e.Description == "" && len(list) > 1 {
		e.Description = "Agent guidance merged from the kits of the set"
	}
	e.Config = map[string]any{"contentFile": path.Join(StagedDir(stem), SetContextName)}
	m.Merged = append(m.Merged, e)
	return []byte(body.String()), nil
}

// body returns an undirected entry's body: its content, or the file its
// contentFile names.
func (x setContext) body() ([]byte, error) {
	if s, ok := x.e.Config["content"].(string); ok && s != "" {
		return []byte(s), nil
	}
	cf, _ := x.e.Config["contentFile"].(string)
	if cf == "" {
		return nil, nil
	}
	return x.c.read(cf)
}

package build

import (
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
	if errs := spec.CheckRelations(contributions(cs)); len(errs) > 0 {
		return nil, errs[0]
	}
	out := &spec.Descriptor{
		SchemaVersion: spec.SchemaVersion, DisplayName: own.DisplayName, Author: own.Author,
		Description: own.Description, SourceURL: own.SourceURL, IconURL: own.IconURL, Version: own.Version,
		Kind: kind, Args: own.Args, Kits: own.Kits,
	}
	for _, c := range cs {
		out.Licenses = appendNew(out.Licenses, c.d.Licenses...)
		out.Provides = appendNew(out.Provides, spec.VersionedProvides(c.d)...)
		out.Conflicts = appendNew(out.Conflicts, c.d.Conflicts...)
	}
	for _, c := range cs {
		for _, r := range c.d.Requires {
			if !spec.SatisfiedWithin(out.Provides, r) {
				out.Requires = appendNew(out.Requires, r)
			}
		}
		for _, r := range c.d.Integrates {
			if !spec.SatisfiedWithin(out.Provides, r) {
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

// contributions returns the descriptors of cs as spec contributions.
func contributions(cs []contribution) []spec.Contribution {
	out := make([]spec.Contribution, len(cs))
	for i, c := range cs {
		out[i] = spec.Contribution{Who: c.who, Descriptor: c.d}
	}
	return out
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

// mergeCapabilities merges the capability entries of the contributions.
// Groups are carried through as they are (identical ones once). Every
// agent-context body a listed kit stages is staged again in the set's own
// directory, where a published contentFile points (SPEC-v3 §9.4).
func mergeCapabilities(cs []contribution, stem string) ([]spec.Capability, []stagedFile, error) {
	m := capMerger{from: map[int]contribution{}}
	var contexts []ctxEntry
	for _, c := range cs {
		for _, e := range c.d.Capabilities {
			if e.Group != nil {
				if !slices.ContainsFunc(m.Merged, func(x spec.Capability) bool { return reflect.DeepEqual(x, e) }) {
					m.Merged = append(m.Merged, e)
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
	return m.Merged, files, nil
}

// restage stages again, in the set's directory, the bodies the merged
// directed agent-context entries name in a listed kit's directory, and
// points their contentFile there.
func (m *capMerger) restage(stem string) ([]stagedFile, error) {
	dir := spec.StagedDir(stem)
	var files []stagedFile
	for i := range m.Merged {
		e := &m.Merged[i]
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

// capMerger accumulates merged entries: spec's merger, plus the
// contribution each entry came from first.
type capMerger struct {
	spec.CapabilityMerger
	from map[int]contribution // index in Merged → first contributor
}

// add merges one ordinary entry.
func (m *capMerger) add(c contribution, e spec.Capability) error {
	i, first, err := m.Add(c.who, e)
	if err != nil {
		return err
	}
	if first {
		m.from[i] = c
	}
	return nil
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
		m.Merged = append(m.Merged, list[0].e)
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
	m.Merged = append(m.Merged, e)
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

package spec

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"
)

// StagedRoot is where a kit image stages its sources (SPEC-v3 §9).
const StagedRoot = "/usr/share/sandbox/kit"

// StagedDir returns the directory a kit's sources are staged in.
func StagedDir(stem string) string { return path.Join(StagedRoot, stem) }

// Published is a kit's descriptor in its published form: build-phase args
// expanded, agent-context contentFile rewritten to the staged path.
type Published struct {
	// Descriptor is the published descriptor, decoded.
	Descriptor *Descriptor
	// YAML is the published descriptor as staged in kit.yaml. Comments are
	// kept; formatting is yaml.v3's.
	YAML []byte
	// Staged maps the absolute staged path of every agent-context body to
	// the kit file it is read from (relative to the kit directory).
	Staged map[string]string
}

// Publish expands the kit's build-phase args (buildArgs by kit arg name,
// then defaults), rewrites agent-context contentFile paths to where the
// bodies are staged, and judges the result as a published descriptor. The
// report carries every problem; Published is nil when there are errors.
func (k *Kit) Publish(buildArgs map[string]string) (*Published, *Report) {
	r := &Report{}
	authored := k.Validate(WithMode(ModeAuthored))
	r.merge(authored)
	if !authored.OK() || k.doc == nil {
		return nil, r
	}
	d := k.Descriptor
	values, errs := ResolveArgs(d.Args, PhaseBuild, buildArgs)
	for _, e := range errs {
		e.Range = k.PosOf(e.Field)
		r.add(false, e)
	}
	if len(errs) > 0 {
		return nil, r
	}
	root := cloneNode(k.doc.root, 0)
	x := &expander{args: d.Args, values: values, phase: "build", owns: func(name string) bool {
		a, ok := d.Args[name]
		return ok && a.Phase() == PhaseBuild
	}}
	if err := expandNode(root, x, false, 0); err != nil {
		r.add(false, asError(err, k.Path))
		return nil, r
	}
	staged := map[string]string{}
	if err := stageContext(root, k.Stem, staged); err != nil {
		r.add(false, asError(err, k.Path))
		return nil, r
	}
	var body bytes.Buffer
	enc := yaml.NewEncoder(&body)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		r.add(false, asError(fmt.Errorf("encoding the published descriptor: %w", err), k.Path))
		return nil, r
	}
	var buf bytes.Buffer
	if !bytes.HasPrefix(body.Bytes(), []byte("# syntax=")) {
		buf.WriteString(SyntaxLine + "\n")
	}
	buf.Write(body.Bytes())
	pub, err := Parse(path.Join(StagedDir(k.Stem), "kit.yaml"), buf.Bytes())
	if err != nil {
		r.add(false, asError(err, k.Path))
		return nil, r
	}
	prep := pub.Validate(WithMode(ModePublished))
	r.merge(prep)
	if !prep.OK() {
		return nil, r
	}
	return &Published{Descriptor: pub.Descriptor, YAML: buf.Bytes(), Staged: staged}, r
}

func asError(err error, file string) *Error {
	if e, ok := err.(*Error); ok {
		if !e.Range.Start.IsValid() {
			e.Range.Start.File = file
		}
		return e
	}
	return &Error{Range: Range{Start: Pos{File: file}}, Code: "publish", Msg: err.Error(), Err: err}
}

// cloneNode deep-copies a YAML node tree, resolving nothing.
func cloneNode(n *yaml.Node, depth int) *yaml.Node {
	if n == nil || depth > maxDepth*2 {
		return n
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = cloneNode(ch, depth+1)
	}
	return &c
}

// stageContext rewrites each agent-context contentFile to its staged path
// and records what to stage. Grouped descriptors stage bodies under
// context-<i>/ so that two groups' bodies cannot collide.
func stageContext(root *yaml.Node, stem string, staged map[string]string) error {
	caps := mapValue(root, "capabilities")
	if caps == nil || caps.Kind != yaml.SequenceNode {
		return nil
	}
	grouped := false
	for _, item := range caps.Content {
		if mapValue(item, "group") != nil {
			grouped = true
		}
	}
	i := 0
	var visit func(item *yaml.Node) error
	visit = func(item *yaml.Node) error {
		if g := mapValue(item, "group"); g != nil {
			if members := mapValue(g, "capabilities"); members != nil {
				for _, m := range members.Content {
					if err := visit(m); err != nil {
						return err
					}
				}
			}
			return nil
		}
		idx := i
		i++
		if t := mapValue(item, "type"); t == nil || t.Value != TypeAgentContext {
			return nil
		}
		cf := mapValue(mapValue(item, "config"), "contentFile")
		if cf == nil || cf.Kind != yaml.ScalarNode || cf.Value == "" {
			return nil
		}
		rel, ok := cleanRel(strings.TrimPrefix(cf.Value, "./"))
		if !ok {
			return fmt.Errorf("contentFile %q is not a path inside the kit directory", cf.Value)
		}
		base := path.Base(rel)
		dst := path.Join(StagedDir(stem), base)
		if grouped {
			dst = path.Join(StagedDir(stem), fmt.Sprintf("context-%d", idx), base)
		} else if base == "kit.yaml" || base == "kit.dockerfile" {
			return fmt.Errorf("contentFile %s would be staged as %s, which is reserved for the kit's own sources", cf.Value, base)
		}
		if prev, dup := staged[dst]; dup && prev != rel {
			return fmt.Errorf("contentFile %s and %s would both be staged as %s; rename one", prev, rel, dst)
		}
		staged[dst] = rel
		*cf = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: dst, Line: cf.Line, Column: cf.Column}
		return nil
	}
	for _, item := range caps.Content {
		if err := visit(item); err != nil {
			return err
		}
	}
	return nil
}

// mapValue returns the value of key in a mapping node, following aliases.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	_, v := lookupKey(m, key, 0)
	return deref(v)
}

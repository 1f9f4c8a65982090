package migrate

import (
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// topKeys are the top-level fields of the v2 grammar.
var topKeys = []string{"schemaVersion", "kind", "name", "version", "displayName", "description", "sourceURL",
	"licenses", "locked", "security", "extends", "mixins", "requires", "args", "sandbox", "agentInstructions",
	"permissions", "ports", "credentials", "environment", "volumes", "setup"}

// capKeys are the v2 fields that become capabilities or recipe lines.
var capKeys = map[string]bool{"security": true, "sandbox": true, "agentInstructions": true, "permissions": true,
	"ports": true, "credentials": true, "environment": true, "volumes": true, "setup": true}

var (
	v2Name   = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)
	v3ArgKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// descriptor builds the v3 descriptor mapping from the v2 root mapping.
func (m *migrator) descriptor(root *yaml.Node) *yaml.Node {
	b := m.mapping(root, "", topKeys...)
	m.prepare(b)
	out := mapNode()
	var dropped *yaml.Node // a dropped key whose comments go to the next key
	emit := func(k, v *yaml.Node) {
		takeComments(k, dropped)
		dropped = nil
		out.Content = append(out.Content, k, v)
	}
	capsAt := -1
	for _, p := range b.order {
		k := p.key.Value
		if capKeys[k] {
			if capsAt < 0 {
				capsAt = len(out.Content)
			}
			continue
		}
		if v := m.topField(p); v != nil {
			emit(rekey(p.key, v3Key(k)), v)
			continue
		}
		if dropped == nil {
			dropped = scalar("")
		}
		takeComments(dropped, p.key)
	}
	m.derived(b, out)
	m.capabilities(b)
	if len(m.caps) == 0 {
		if dropped != nil {
			out.FootComment = joinComments(out.FootComment, dropped.HeadComment)
		}
		return out
	}
	caps := seqNode()
	for _, c := range m.caps {
		caps.Content = append(caps.Content, c.node)
	}
	key := scalar("capabilities")
	takeComments(key, dropped)
	if capsAt < 0 || capsAt > len(out.Content) {
		capsAt = len(out.Content)
	}
	out.Content = append(out.Content[:capsAt], append([]*yaml.Node{key, caps}, out.Content[capsAt:]...)...)
	return out
}

func v3Key(k string) string {
	if k == "sourceURL" {
		return "sourceUrl"
	}
	return k
}

// prepare reads what the rest of the mapping depends on: the stem, the
// kind, whether there are install hooks.
func (m *migrator) prepare(b *block) {
	m.stem = path.Base(path.Clean("/" + m.display))
	if m.stem == "/" || m.stem == "." {
		m.stem = "kit"
	}
	if n := b.val("name"); n != nil {
		if s, ok := m.str(n, "name"); ok && v2Name.MatchString(s) {
			m.stem = s
		}
	}
	if k := b.val("kind"); k != nil && k.Value == "sandbox" {
		m.workload = true
	}
	m.recipe.mixin = !m.workload
	if _, err := m.kfs.lstat("Dockerfile"); err == nil && !m.workload {
		m.notes = append(m.notes, Note{Pos: spec.Pos{File: path.Join(m.display, "Dockerfile")}, Code: "dockerfile-mixin",
			Message: "v2 mixins carried no content, so this Dockerfile was not used; a v3 mixin may ship an overlay recipe: move what its install hooks fetch into one if that suits"})
	}
	if s := b.val("setup"); s != nil {
		if in := deref(lookup(s, "install")); in != nil && in.Kind == yaml.SequenceNode && len(in.Content) > 0 {
			m.hasInstall = true
		}
	}
}

// topField maps one v2 top-level field that stays a top-level field, or
// returns nil when it is dropped.
func (m *migrator) topField(p pair) *yaml.Node {
	k, v := p.key.Value, p.val
	m.cur = nil
	switch k {
	case "schemaVersion":
		return withComments(quoted(spec.SchemaVersion), v)
	case "kind":
		switch v.Value {
		case "sandbox":
			return withComments(scalar(spec.KindWorkload), v)
		case "mixin":
			return withComments(scalar(spec.KindMixin), v)
		}
		m.invalid(v, "kind", `must be "sandbox" or "mixin"`)
		return nil
	case "name":
		m.note(p.key, "name", "name-dropped", "v3 has no kit name (identity is the reference a kit is used by); it names the files: "+m.stem)
		return nil
	case "version", "displayName", "description", "sourceURL":
		if _, ok := m.str(v, k); !ok {
			return nil
		}
		return v
	case "licenses":
		if _, ok := m.strs(v, k); !ok {
			return nil
		}
		return v
	case "requires":
		return m.requires(v)
	case "args":
		return m.argsBlock(v)
	case "locked":
		m.note(p.key, "locked", "locked-dropped", "v3 has no locked paths; dropped (nothing enforced them in a single kit)")
		return nil
	case "extends":
		m.action(p.key, "extends", "extends-unsupported",
			"v3 has no inheritance: copy the parent's declarations and recipe into this kit, or publish it as a mixin and compose both in a kind: set")
		return nil
	case "mixins":
		m.action(p.key, "mixins", "mixins-unsupported",
			"v3 kits do not list mixins: compose them with this kit in a kind: set (kits: with published references)")
		return nil
	}
	return nil
}

// withComments gives the new value node the comments of the old one.
func withComments(n, old *yaml.Node) *yaml.Node {
	n.HeadComment, n.LineComment, n.FootComment = old.HeadComment, old.LineComment, old.FootComment
	n.Line, n.Column = old.Line, old.Column
	return n
}

// requires maps {agent: x} to ["x"].
func (m *migrator) requires(v *yaml.Node) *yaml.Node {
	b := m.mapping(v, "requires", "agent")
	if b == nil {
		return nil
	}
	p, ok := b.get("agent")
	if !ok {
		return nil
	}
	agent, ok := m.str(p.val, "requires.agent")
	if !ok {
		return nil
	}
	item := withComments(quoted(agent), p.val)
	item.HeadComment = joinComments(p.key.HeadComment, item.HeadComment)
	out := seqNode(item)
	out.Style = yaml.FlowStyle
	if item.HeadComment != "" {
		out.Style = 0
	}
	return out
}

// argsBlock keeps the v2 args as they are (v3 has the same shape); only
// names v3 cannot spell are reported.
func (m *migrator) argsBlock(v *yaml.Node) *yaml.Node {
	if v.Kind != yaml.MappingNode {
		m.invalid(v, "args", "must be a mapping")
		return nil
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		name := v.Content[i].Value
		f := join("args", name)
		m.mapping(v.Content[i+1], f, "default", "required", "description", "enum", "pattern")
		if !v3ArgKey.MatchString(name) {
			m.cur = v.Content[i]
			m.action(v.Content[i], f, "arg-name", "v3 arg names match [A-Za-z_][A-Za-z0-9_]*: rename the arg here and in every reference to it")
			m.cur = nil
		}
	}
	m.args = v
	return v
}

// derived adds the fields v3 wants that can be derived, and asks for the
// others.
func (m *migrator) derived(b *block, out *yaml.Node) {
	m.cur = nil
	if !b.has("version") {
		m.note(nil, "", "missing-version", `the v2 kit has no version: add version: (e.g. "1.0.0"), it becomes org.opencontainers.image.version`)
	}
	if !b.has("sourceURL") {
		m.note(nil, "", "missing-source-url", "the v2 kit has no sourceURL: add sourceUrl:, it becomes org.opencontainers.image.source")
	}
	if b.has("licenses") {
		return
	}
	if id, file := m.license(); id != "" {
		k := add(out, "licenses", seqNode(scalar(id)))
		k.HeadComment = "# from " + file
		m.note(nil, "", "license-derived", "licenses: ["+id+"] was derived from "+file+": check it")
		return
	}
	m.note(nil, "", "missing-licenses", "the v2 kit has no licenses and no LICENSE file that says one: add licenses: (SPDX ids)")
}

// isProxyVar reports the proxy variables a kit must never set.
func isProxyVar(name string) bool {
	switch strings.ToLower(name) {
	case "http_proxy", "https_proxy", "no_proxy", "all_proxy", "ftp_proxy":
		return true
	}
	return false
}

package migrate

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// hooks maps one setup list (install, startup or files) entry by entry.
func (m *migrator) hooks(e pair, f string) *yaml.Node {
	items := m.seq(e.val, f)
	if items == nil {
		return nil
	}
	out := seqNode()
	out.Style = e.val.Style
	for i, x := range items {
		xf := index(f, i)
		var item *yaml.Node
		switch e.key.Value {
		case "install":
			item = m.installHook(x, xf)
		case "startup":
			item = m.startupHook(x, xf)
		case "files":
			item = m.setupFile(x, xf)
		}
		if item != nil {
			out.Content = append(out.Content, item)
		}
	}
	m.cur = nil
	if len(out.Content) == 0 {
		return nil
	}
	return out
}

// keep copies the entries of b except those named in skip.
func keep(b *block, skip ...string) *yaml.Node {
	out := mapNode()
	out.HeadComment, out.LineComment, out.FootComment = b.node.HeadComment, b.node.LineComment, b.node.FootComment
	out.Style = b.node.Style
	for _, e := range b.order {
		drop := false
		for _, s := range skip {
			drop = drop || e.key.Value == s
		}
		if !drop {
			out.Content = append(out.Content, e.key, e.val)
		}
	}
	return out
}

// anchor makes the first key of item the place for migrate comments.
func (m *migrator) anchor(item *yaml.Node) {
	m.cur = item
}

func (m *migrator) installHook(x *yaml.Node, f string) *yaml.Node {
	b := m.mapping(x, f, "command", "user", "description", "background")
	if b == nil {
		return nil
	}
	item := keep(b, "background")
	m.anchor(item)
	m.hookRefs["install"] = append(m.hookRefs["install"], hookRef{out: item, v2: x, field: f})
	if c, ok := b.get("command"); ok {
		m.str(c.val, join(f, "command"))
	}
	if bg, ok := b.get("background"); ok {
		m.action(bg.key, join(f, "background"), "background-install",
			"v3 install hooks cannot run in the background (background is startup-only); dropped, so this hook now holds up create: "+
				"make it a startup hook with background: true, or keep it in the foreground")
	}
	return item
}

func (m *migrator) startupHook(x *yaml.Node, f string) *yaml.Node {
	b := m.mapping(x, f, "command", "user", "background", "description")
	if b == nil {
		return nil
	}
	if c, ok := b.get("command"); ok {
		m.strs(c.val, join(f, "command"))
	}
	item := keep(b)
	m.anchor(item)
	m.hookRefs["startup"] = append(m.hookRefs["startup"], hookRef{out: item, v2: x, field: f})
	return item
}

// setupFile maps a v2 setup file: onlyIfMissing: true becomes
// overwrite: false, ${WORKDIR} becomes the workspace env reference.
func (m *migrator) setupFile(x *yaml.Node, f string) *yaml.Node {
	b := m.mapping(x, f, "path", "content", "mode", "onlyIfMissing", "description")
	if b == nil {
		return nil
	}
	item := keep(b, "onlyIfMissing")
	m.anchor(item)
	for _, k := range []string{"path", "content"} {
		if p, ok := b.get(k); ok {
			if s, ok := m.str(p.val, join(f, k)); ok && strings.Contains(s, workdirRef) {
				p.val.Value = strings.ReplaceAll(s, workdirRef, workspaceRef)
				m.note(p.val, join(f, k), "workdir", "${WORKDIR} became the WORKSPACE_DIR environment reference")
			}
		}
	}
	if o, ok := b.get("onlyIfMissing"); ok {
		if v, ok := m.boolean(o.val, join(f, "onlyIfMissing")); ok && v {
			item.Content = append(item.Content, rekey(o.key, "overwrite"), withComments(boolNode(false), o.val))
		}
	}
	return item
}

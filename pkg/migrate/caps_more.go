package migrate

import (
	"encoding/json"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// workdirRef is the one placeholder v2 file contents knew, and what v3
// writes instead.
const (
	workdirRef   = "${WORKDIR}"
	workspaceRef = "${{ kit.env.WORKSPACE_DIR }}"
)

// credentialFile maps template to structure when the template is a JSON
// object (its placeholders sit inside strings), and reports it otherwise.
func (m *migrator) credentialFile(v *yaml.Node, f string) *yaml.Node {
	b := m.mapping(v, f, "path", "template", "structure")
	if b == nil {
		return nil
	}
	out := mapNode()
	for _, e := range b.order {
		if e.key.Value != "template" {
			out.Content = append(out.Content, e.key, e.val)
			continue
		}
		tf := join(f, "template")
		if b.has("structure") {
			m.note(e.key, tf, "credential-template", "dropped: structure is given too, and v2 already preferred it")
			continue
		}
		s, _ := m.str(e.val, tf)
		var obj map[string]any
		if err := json.Unmarshal([]byte(s), &obj); err != nil {
			m.action(e.key, tf, "credential-template",
				"v3 has no template, only a declarative structure map, and this template is not a JSON object: write structure: by hand ({{.AccessToken}}, {{.RefreshToken}}, {{.ExpiresAt}}, {{.Scopes}})")
			continue
		}
		var n yaml.Node
		if err := n.Encode(obj); err != nil {
			m.action(e.key, tf, "credential-template", "could not be turned into structure: write structure: by hand")
			continue
		}
		takeComments(&n, e.val)
		out.Content = append(out.Content, rekey(e.key, "structure"), &n)
		m.note(e.key, tf, "credential-template", "the JSON template became structure; check each placeholder kept its type")
	}
	return out
}

// responseFields drops scope, which v3 does not have.
func (m *migrator) responseFields(v *yaml.Node, f string) *yaml.Node {
	b := m.mapping(v, f, "accessToken", "refreshToken", "expiresIn", "scope")
	if b == nil {
		return nil
	}
	out := mapNode()
	for _, e := range b.order {
		if e.key.Value == "scope" {
			m.action(e.key, join(f, "scope"), "oauth-response-scope", "v3 responseFields has no scope; dropped: check the token response still parses")
			continue
		}
		out.Content = append(out.Content, e.key, e.val)
	}
	if len(out.Content) == 0 {
		return nil
	}
	return out
}

// ports maps each v2 port to port@1, protocol becoming transport.
func (m *migrator) ports(p pair, order int) {
	for i, x := range m.seq(p.val, "ports") {
		f := index("ports", i)
		b := m.mapping(x, f, "container", "protocol", "name")
		if b == nil {
			continue
		}
		if pp, ok := b.get("protocol"); ok {
			v, ok := m.str(pp.val, join(f, "protocol"))
			if lower := strings.ToLower(v); !ok || v != "" && lower != "tcp" && lower != "udp" {
				if ok {
					m.invalid(pp.val, join(f, "protocol"), `must be "", "tcp" or "udp"; the port`)
				}
				continue // v2 refused the kit for it: grant nothing
			}
		}
		item := m.entry(order, spec.TypePort, nil)
		if i == 0 {
			takeComments(item, p.key)
		}
		item.HeadComment = joinComments(item.HeadComment, x.HeadComment)
		cfg := mapNode()
		for _, e := range b.order {
			switch e.key.Value {
			case "protocol":
				v := deref(e.val).Value // checked above
				if lower := strings.ToLower(v); v != "" {
					cfg.Content = append(cfg.Content, rekey(e.key, "transport"), withComments(scalar(lower), e.val))
					if lower != v {
						m.note(e.val, join(f, "protocol"), "port-protocol-case", "became transport: "+lower+" (v3 spells it in lower case)")
					}
				}
			default:
				cfg.Content = append(cfg.Content, e.key, e.val)
			}
		}
		add(item, "config", cfg)
	}
}

// volumes maps each v2 volume to volume@1, type: tmpfs becoming tmpfs: true.
func (m *migrator) volumes(p pair, order int) {
	for i, x := range m.seq(p.val, "volumes") {
		f := index("volumes", i)
		b := m.mapping(x, f, "path", "type", "size", "mode")
		if b == nil {
			continue
		}
		if tp, ok := b.get("type"); ok {
			if v := deref(tp.val); v.Kind != yaml.ScalarNode || v.Value != "" && v.Value != "tmpfs" {
				m.invalid(tp.val, join(f, "type"), `must be "" or "tmpfs"; the volume`)
				continue // v2 refused the kit for it: grant nothing
			}
		}
		item := m.entry(order, spec.TypeVolume, nil)
		if i == 0 {
			takeComments(item, p.key)
		}
		item.HeadComment = joinComments(item.HeadComment, x.HeadComment)
		cfg := mapNode()
		for _, e := range b.order {
			if e.key.Value != "type" {
				cfg.Content = append(cfg.Content, e.key, e.val)
				continue
			}
			if deref(e.val).Value == "tmpfs" {
				cfg.Content = append(cfg.Content, rekey(e.key, "tmpfs"), withComments(boolNode(true), e.val))
			}
		}
		if !b.has("size") {
			m.note(x, f, "unsized-volume", "has no size, so the runtime gives it 512 MiB: add size: if it needs more")
		}
		add(item, "config", cfg)
	}
}

// agentInstructions maps the v2 instructions to agent-context@1, the body
// going to <kit>-context.md unless it holds an arg reference (a staged
// body is never expanded, an inline one is).
func (m *migrator) agentInstructions(p pair, order int) {
	b := m.mapping(p.val, "agentInstructions", "filename", "content")
	if b == nil || len(b.order) == 0 {
		return
	}
	item := m.entry(order, spec.TypeAgentContext, p.key)
	cfg := mapNode()
	if fp, ok := b.get("filename"); ok {
		if !m.workload {
			m.note(fp.key, "agentInstructions.filename", "mixin-context-filename",
				"dropped: v2 ignored a mixin's filename, and v3 refuses one without a directory")
		} else if _, ok := m.str(fp.val, "agentInstructions.filename"); ok {
			cfg.Content = append(cfg.Content, fp.key, fp.val)
			m.note(fp.key, "agentInstructions.filename", "context-directory",
				"filename alone keeps the workspace-sibling profile; an agent that reads its profile elsewhere wants directory: too")
		}
	}
	if cp, ok := b.get("content"); ok {
		body, ok := m.str(cp.val, "agentInstructions.content")
		switch {
		case !ok:
		case strings.Contains(body, "${{"):
			cfg.Content = append(cfg.Content, cp.key, cp.val)
			m.note(cp.key, "agentInstructions.content", "context-inline",
				"kept inline: it holds a placeholder, which a staged contentFile would never expand")
		default:
			k := rekey(cp.key, "contentFile")
			cfg.Content = append(cfg.Content, k, scalar("./"+m.contextName()))
			m.context = []byte(body)
			if !strings.HasSuffix(body, "\n") {
				m.context = append(m.context, '\n')
			}
		}
	}
	if len(cfg.Content) == 0 {
		m.caps = m.caps[:len(m.caps)-1]
		return
	}
	add(item, "config", cfg)
}

// lifecycle maps setup (install, startup, files), the files/workspace tree
// and sandbox.command.interactive to lifecycle@1, hooks one to one.
func (m *migrator) lifecycle(setup pair, interactive pair, order int) {
	cfg := mapNode()
	var from *yaml.Node
	if setup.key != nil {
		from = setup.key
		b := m.mapping(setup.val, "setup", "install", "startup", "files")
		if b != nil {
			m.cur = nil
			for _, e := range b.order {
				if list := m.hooks(e, join("setup", e.key.Value)); list != nil {
					cfg.Content = append(cfg.Content, e.key, list)
				}
			}
		}
	}
	if len(m.workspaceFiles) > 0 {
		files := lookup(cfg, "files")
		if files == nil {
			files = seqNode()
			add(cfg, "files", files)
		}
		files.Content = append(files.Content, m.workspaceFiles...)
	}
	if interactive.key != nil {
		cfg.Content = append(cfg.Content, rekey(interactive.key, "interactive"), interactive.val)
	}
	if len(cfg.Content) == 0 {
		return
	}
	item := m.entry(order, spec.TypeLifecycle, from)
	add(item, "config", cfg)
}

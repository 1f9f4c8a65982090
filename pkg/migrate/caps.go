package migrate

import (
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// capabilities maps every v2 block that becomes a capability entry or a
// recipe line, in v2 order, behind sbx@1 on a workload.
func (m *migrator) capabilities(b *block) {
	order := map[string]int{}
	for i, p := range b.order {
		order[p.key.Value] = i
	}
	if m.workload {
		item := m.entry(-1, spec.TypeSBX, nil)
		comment(item, "migrated workloads are sbx-launched agents (v2 kind: sandbox)")
	}
	var interactive pair
	m.cur = nil
	if p, ok := b.get("sandbox"); ok {
		interactive = m.sandbox(p, order["sandbox"])
	} else if m.workload {
		m.action(nil, "sandbox", "no-image", "the v2 sandbox kit has no sandbox block (it inherits its image): write the recipe's FROM and ENTRYPOINT by hand")
	}
	m.cur = nil
	if p, ok := b.get("environment"); ok {
		m.environment(p)
	}
	m.cur = nil
	m.filesTree()
	blocks := []struct {
		key string
		fn  func(pair, int)
	}{
		{"security", m.security},
		{"permissions", m.permissions},
		{"credentials", m.credentials},
		{"ports", m.ports},
		{"volumes", m.volumes},
	}
	for _, bl := range blocks {
		if p, ok := b.get(bl.key); ok {
			m.cur = nil
			bl.fn(p, order[bl.key])
		}
	}
	lcOrder := order["sandbox"]
	setup, hasSetup := b.get("setup")
	if hasSetup {
		lcOrder = order["setup"]
	}
	m.cur = nil
	m.lifecycle(setup, interactive, lcOrder)
	if p, ok := b.get("agentInstructions"); ok {
		m.cur = nil
		m.agentInstructions(p, order["agentInstructions"])
	}
	m.cur = nil
	m.sessions(len(b.order))
	m.coverInjects()
	m.sortCaps()
	m.cur = nil
}

func (m *migrator) sortCaps() {
	// Stable insertion sort by v2 order: few entries.
	for i := 1; i < len(m.caps); i++ {
		for j := i; j > 0 && m.caps[j].order < m.caps[j-1].order; j-- {
			m.caps[j], m.caps[j-1] = m.caps[j-1], m.caps[j]
		}
	}
}

// entry starts a capability entry of type typ, taking the comments of the
// v2 node from, and makes it the anchor of migrate comments.
func (m *migrator) entry(order int, typ string, from *yaml.Node) *yaml.Node {
	item := mapNode()
	add(item, "type", scalar(typ))
	takeComments(item, from)
	m.caps = append(m.caps, capItem{order: order, node: item})
	m.cur = item
	return item
}

// security maps security.privileged: true to privileged@1.
func (m *migrator) security(p pair, order int) {
	b := m.mapping(p.val, "security", "privileged")
	if b == nil {
		return
	}
	pp, ok := b.get("privileged")
	if !ok {
		return
	}
	if v, ok := m.boolean(pp.val, "security.privileged"); ok && v {
		item := m.entry(order, spec.TypePrivileged, p.key)
		add(item, "description", scalar("v2 security.privileged: true"))
		m.note(pp.key, "security.privileged", "privileged", "became privileged@1: say in its description why the kit needs it")
	}
}

// permissions maps permissions.network to network-policy@1: allow
// entries verbatim into runtime, and into install too when the kit has
// install hooks (a tool cannot tell which hook reaches which host); deny
// entries into both phases always, since v2 had one list for everything
// and a deny only narrows.
func (m *migrator) permissions(p pair, order int) {
	b := m.mapping(p.val, "permissions", "network")
	if b == nil {
		return
	}
	np, ok := b.get("network")
	if !ok {
		return
	}
	nb := m.mapping(np.val, "permissions.network", "allow", "deny")
	if nb == nil {
		return
	}
	install, runtime := mapNode(), mapNode()
	var dropped []unenforced
	for _, r := range nb.order {
		f := join("permissions.network", r.key.Value)
		v := deref(r.val)
		if _, ok := m.strs(v, f); !ok || len(v.Content) == 0 {
			continue
		}
		list := *v
		list.Content, list.Anchor = nil, "" // an alias is written out (inlineAliases)
		for i, e := range v.Content {
			if why := v2Unenforced(m.withArgDefaults(deref(e).Value)); why != "" {
				dropped = append(dropped, unenforced{node: e, field: index(f, i), list: r.key.Value, why: why})
				continue
			}
			list.Content = append(list.Content, asString(e))
		}
		if len(list.Content) == 0 {
			continue
		}
		runtime.Content = append(runtime.Content, r.key, &list)
		if r.key.Value == "allow" {
			m.allow["runtime"] = &list
		}
		if r.key.Value == "deny" || m.hasInstall {
			c := clone(&list)
			install.Content = append(install.Content, scalar(r.key.Value), c)
			if r.key.Value == "allow" {
				m.allow["install"] = c
			}
		}
	}
	if len(runtime.Content) == 0 {
		m.cur = nil
		m.reportUnenforced(dropped)
		return
	}
	item := m.entry(order, spec.TypeNetworkPolicy, p.key)
	m.reportUnenforced(dropped)
	takeComments(item, np.key)
	cfg := mapNode()
	switch {
	case m.hasInstall:
		m.note(np.key, "permissions.network", "network-phases",
			"every entry went into both install and runtime, as v2 allowed it in both; narrowing a phase to the hosts its hooks reach is a human's call")
	case lookup(install, "deny") != nil:
		m.note(np.key, "permissions.network", "network-deny-phases",
			"the deny entries went into install and runtime: v2 denied them everywhere, install hooks of the kits composed with this one included")
	}
	if len(install.Content) > 0 {
		add(cfg, "install", install)
	}
	add(cfg, "runtime", runtime)
	add(item, "config", cfg)
}

// credentials maps each v2 credential to credential@1, optional because v2
// credentials were not required by default.
func (m *migrator) credentials(p pair, order int) {
	for i, c := range m.seq(p.val, "credentials") {
		f := index("credentials", i)
		b := m.mapping(c, f, "service", "description", "required", "provider", "apiKey", "oauth")
		if b == nil {
			continue
		}
		item := m.entry(order, spec.TypeCredential, nil)
		if i == 0 {
			takeComments(item, p.key)
		}
		item.HeadComment = joinComments(item.HeadComment, c.HeadComment)
		c.HeadComment = ""
		required := false
		if r, ok := b.get("required"); ok {
			required, _ = m.boolean(r.val, join(f, "required"))
		}
		if !required {
			add(item, "optional", boolNode(true))
		}
		if d, ok := b.get("description"); ok {
			if _, ok := m.str(d.val, join(f, "description")); ok {
				item.Content = append(item.Content, d.key, d.val)
			}
		}
		cfg := mapNode()
		ref := credRef{v2: c, field: f}
		for _, e := range b.order {
			switch e.key.Value {
			case "service":
				if _, ok := m.str(e.val, join(f, "service")); ok {
					cfg.Content = append(cfg.Content, e.key, e.val)
					ref.phase = scalar("runtime")
					add(cfg, "phase", ref.phase)
				}
			case "provider":
				m.action(e.key, join(f, "provider"), "credential-provider",
					"v3 has no credential provider (it had no effect in v2 either); dropped: delete this note once checked")
			case "apiKey":
				if v := m.apiKey(e.val, join(f, "apiKey")); v != nil {
					cfg.Content = append(cfg.Content, e.key, v)
					ref.name, ref.injects = apiKeyParts(v)
				}
			case "oauth":
				if v := m.oauth(e.val, join(f, "oauth")); v != nil {
					cfg.Content = append(cfg.Content, e.key, v)
				}
			}
		}
		add(item, "config", cfg)
		if ref.phase != nil {
			m.creds = append(m.creds, ref)
		}
	}
}

func (m *migrator) apiKey(v *yaml.Node, f string) *yaml.Node {
	b := m.mapping(v, f, "name", "proxyManaged", "inject")
	if b == nil {
		return nil
	}
	if inj, ok := b.get("inject"); ok {
		for i, x := range m.seq(inj.val, join(f, "inject")) {
			m.mapping(x, index(join(f, "inject"), i), "domain", "header", "format", "username", "scheme")
		}
	}
	return v
}

func (m *migrator) oauth(v *yaml.Node, f string) *yaml.Node {
	b := m.mapping(v, f, "tokenEndpoint", "resourceHosts", "sentinels", "credentialFile", "skipIfEnv",
		"responseFields", "passthrough")
	if b == nil {
		return nil
	}
	out := mapNode()
	for _, e := range b.order {
		ef := join(f, e.key.Value)
		switch e.key.Value {
		case "skipIfEnv":
			m.action(e.key, ef, "oauth-skip-if-env",
				"v3 removed skipIfEnv (v2 never consulted it); dropped: to prefer an API key, declare apiKey beside oauth")
			continue
		case "credentialFile":
			if cf := m.credentialFile(e.val, ef); cf != nil {
				out.Content = append(out.Content, e.key, cf)
			}
			continue
		case "responseFields":
			if rf := m.responseFields(e.val, ef); rf != nil {
				out.Content = append(out.Content, e.key, rf)
			}
			continue
		}
		out.Content = append(out.Content, e.key, e.val)
	}
	return out
}

package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

var (
	typeRE      = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?/[a-z0-9]([a-z0-9-]*[a-z0-9])?@[1-9][0-9]*$`)
	envOpenerRE = regexp.MustCompile(`\$\{\{\s*kit\.env\b`)
)

// blockEntry is an ordinary entry of a block with its real path.
type blockEntry struct {
	c Capability
	f string // e.g. "capabilities[3]" or "capabilities[1].group.capabilities[0]"
	// group is the group the entry is a member of, and groupF its field
	// ("capabilities[1].group"); nil and "" for a top-level entry.
	group  *Group
	groupF string
	// raw is the config encoded as JSON (object keys sorted), nil when it
	// is empty or cannot be encoded.
	raw []byte
}

// decode decodes the entry's config into its typed form; an entry
// without config decodes to the zero value.
func (e blockEntry) decode(out any) error {
	if e.raw == nil {
		if len(e.c.Config) > 0 {
			return fmt.Errorf("config of %s cannot be encoded", e.c.Type)
		}
		return decodeConfigJSON([]byte("null"), out)
	}
	return decodeConfigJSON(e.raw, out)
}

// decodeLenient decodes like decode, and when that fails only because of
// unknown keys (which the schema reports on its own), decodes what it
// knows, so that one misspelt key does not hide the config's other
// errors.
func (e blockEntry) decodeLenient(out any) error {
	err := e.decode(out)
	if err == nil || e.raw == nil || !strings.Contains(err.Error(), "unknown field") {
		return err
	}
	if json.Unmarshal(e.raw, out) != nil {
		return err
	}
	return nil
}

// withRaw encodes the entry's config once for the checks that need it.
func (e blockEntry) withRaw() blockEntry {
	if len(e.c.Config) > 0 {
		e.raw, _ = json.Marshal(e.c.Config)
	}
	return e
}

// block is one arity scope: the top-level ordinary entries, or one group.
type block struct {
	entries []blockEntry
	// state gathered while walking the block
	defer_       bool
	invalidCred  map[int]bool
	singletons   map[string]string
	exact        map[string]string
	sshPhases    map[string]string
	credKeys     map[string]string
	acpAgents    map[string]string
	ctxUndir     string
	ctxBody      string
	ctxProfiles  map[string]string
	pathKeys     map[string]string
	skillsPaths  map[string]string
	skillNames   map[string]string
	ports        map[string]string
	interactive  []string
	interactiveF string
	newSession   []string
	newSessionF  string
	sessionsList []string
	aisList      []string
	aisListF     string
}

func (v *validator) checkCapabilities(declOnly bool) {
	grouped := false
	var top []blockEntry
	var groups [][]blockEntry
	v.checkRuntimeVocabulary()
	for i, c := range v.d.Capabilities {
		at := field("capabilities", i)
		if c.Group == nil {
			c.Type = CanonicalType(c.Type) // checked as its com.docker.sandbox spelling
			top = append(top, blockEntry{c: c, f: at})
			continue
		}
		grouped = true
		var members []blockEntry
		for j, m := range c.Group.Capabilities {
			m.Type = CanonicalType(m.Type)
			members = append(members, blockEntry{c: m, f: field(at, "group", "capabilities", j), group: c.Group, groupF: field(at, "group")})
		}
		groups = append(groups, members)
	}
	v.checkGroupGrammar()
	// Grouped descriptors are judged per block, declarations only: the
	// cross-entry inject check waits for the selected composition.
	declOnly = declOnly || grouped
	v.checkBlock(top, declOnly)
	for _, g := range groups {
		v.checkBlock(g, declOnly)
	}
}

// checkGroupGrammar applies the group rules (SPEC-v3 §7.1.1/group-grammar)
// with messages that say what to write: a group is an object with at
// least one member, a group item states nothing but group and source,
// groups do not nest, members do not state optional. The schema's
// restatements of the same problems are suppressed.
func (v *validator) checkGroupGrammar() {
	root, _ := v.value.(map[string]any)
	items, _ := root["capabilities"].([]any)
	const ref = "SPEC-v3 §7.1.1/group-grammar"
	for i, it := range items {
		m, _ := it.(map[string]any)
		g, has := m["group"]
		if !has {
			continue
		}
		at := field("capabilities", i)
		if g == nil {
			v.errorf(field(at, "group"), "group-grammar", ref, "group must be an object listing its members: write group: {capabilities: [...]}")
			v.suppress(at)
			continue
		}
		for _, k := range []string{"type", "name", "description", "optional", "config"} {
			if _, ok := m[k]; ok {
				v.keyErrorf(field(at, k), "group-grammar", ref, "a group item states only group (and source); move %s into a member of the group or into an entry of its own", k)
			}
		}
		gm, _ := g.(map[string]any)
		members, isList := gm["capabilities"].([]any)
		if isList && len(members) == 0 {
			v.errorf(field(at, "group", "capabilities"), "group-grammar", ref, "group lists no members; add its entries under capabilities:, or remove the group")
		}
		for j, mem := range members {
			mm, _ := mem.(map[string]any)
			mf := field(at, "group", "capabilities", j)
			if _, nested := mm["group"]; nested {
				v.keyErrorf(field(mf, "group"), "group-grammar", ref, "groups do not nest: list this group's entries directly in the enclosing group, or make it a top-level group")
				v.suppress(mf)
				continue
			}
			if _, ok := mm["optional"]; ok {
				v.keyErrorf(field(mf, "optional"), "group-grammar", ref, "a group member must not state optional, not even false; set optional on the group")
			}
		}
	}
}

func newBlock(entries []blockEntry) *block {
	return &block{
		entries: entries, invalidCred: map[int]bool{}, singletons: map[string]string{}, exact: map[string]string{},
		sshPhases: map[string]string{}, credKeys: map[string]string{}, acpAgents: map[string]string{},
		ctxProfiles: map[string]string{}, pathKeys: map[string]string{}, skillsPaths: map[string]string{},
		skillNames: map[string]string{}, ports: map[string]string{},
	}
}

func (v *validator) checkBlock(entries []blockEntry, declOnly bool) {
	for i := range entries {
		entries[i] = entries[i].withRaw()
	}
	b := newBlock(entries)
	if v.d.Kind == KindMixin {
		for _, e := range entries {
			if e.c.Type == TypeSBX {
				v.errorf(field(e.f, "type"), "sbx-workload-only", "",
					"%s is workload-only: a mixin's image config never becomes the composed image's; remove it or make the kit a workload", TypeSBX)
			}
		}
	}
	skip := map[int]bool{}
	for i, e := range entries {
		if !v.checkEntryHead(b, i, e) {
			skip[i] = true
			continue
		}
		v.checkDedupKeys(b, e)
		if parameterized(e) {
			b.defer_ = true
			v.checkPresence(b, e)
			continue
		}
		v.checkTyped(b, i, e)
	}
	v.checkBlockTail(b, skip, declOnly)
}

// checkEntryHead runs the checks every entry gets; it reports false when
// the entry must not be judged further.
func (v *validator) checkEntryHead(b *block, i int, e blockEntry) bool {
	c := e.c
	if e.raw != nil && envOpenerRE.Match(e.raw) {
		if k := envKeyIn(c.Config, field(e.f, "config"), 0); k != "" {
			v.keyErrorf(k, "env-ref-in-key", "", "${{ kit.env }} references are not allowed in mapping keys; write the key literally (only config values are expanded)")
		}
	}
	if c.Source != nil && c.Source.Path == "" {
		v.errorf(field(e.f, "source", "path"), "source-path", "", "source.path is empty; write where the entry was declared in the contributing kit, as in capabilities[2], or remove source")
	}
	if c.Type == "" {
		return false // the schema reports the missing type
	}
	if !typeRE.MatchString(c.Type) {
		hint, alt := typeHint(c.Type)
		v.suggest(alt).errorf(field(e.f, "type"), "type-grammar", "", "type %q is not <namespace>/<name>@<version>%s", c.Type, hint)
		return false
	}
	if strings.HasPrefix(c.Type, sandboxNamespace) && !slices.Contains(knownTypes, c.Type) {
		v.unknownSandboxType(e)
	}
	if c.Type == TypePrivileged && c.Description == "" {
		v.warnf(e.f, "privileged-description", "privileged@1/description-says-why",
			"privileged@1 should say why the kit needs elevated execution; add a description, which is shown when the user is asked to grant it")
	}
	dupSingleton := false
	if IsSingleton(c.Type) {
		if prev, ok := b.singletons[c.Type]; ok {
			v.errorf(field(e.f, "type"), "singleton", "", "%s is already declared at %s; it may be declared once per block, so merge the two entries or remove one", c.Type, prev)
			dupSingleton = true
			if c.Type == TypeNetworkPolicy || c.Type == TypeNetworkPolicy2 {
				b.defer_ = true
			}
		} else {
			b.singletons[c.Type] = e.f
		}
	}
	key := exactKey(e)
	if prev, ok := b.exact[key]; ok {
		if !dupSingleton {
			v.errorf(e.f, "duplicate-entry", "", "this entry is identical to %s (type and config); remove one", prev)
		}
		b.invalidCred[i] = true
		return false
	}
	b.exact[key] = e.f
	if IsConfigless(c.Type) && c.HasConfig {
		ref := ""
		switch c.Type {
		case TypeLongRunning:
			ref = "long-running@1/no-config"
		case TypeGitIdentity:
			ref = "git-identity@1/no-config"
		}
		v.keyErrorf(field(e.f, "config"), "configless", ref, "%s takes no config; remove the config key (even config: {} or null is refused)", c.Type)
	}
	return true
}

// exactKey identifies an entry for exact-duplicate detection: its type and
// a digest of its config. Labels do not count.
func exactKey(e blockEntry) string {
	if len(e.c.Config) == 0 {
		return e.c.Type
	}
	if e.raw == nil {
		return e.c.Type + "+unencodable"
	}
	sum := sha256.Sum256(e.raw)
	return e.c.Type + "+" + hex.EncodeToString(sum[:6])
}

// parameterized reports an entry whose config holds an arg reference
// anywhere, or an env reference in a value; its typed checks wait for the
// effective form.
func parameterized(e blockEntry) bool {
	if e.raw == nil {
		return false
	}
	if argRef.Match(e.raw) {
		return true
	}
	if !envOpenerRE.Match(e.raw) {
		return false
	}
	found := false
	walkStrings(e.c.Config, func(s string) {
		if envOpenerRE.MatchString(s) {
			found = true
		}
	})
	return found
}

func walkStrings(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case map[string]any:
		for _, x := range v {
			walkStrings(x, fn)
		}
	case []any:
		for _, x := range v {
			walkStrings(x, fn)
		}
	}
}

// envKeyIn returns the path of the first mapping key under v (at path p)
// that holds a kit.env reference, or "".
func envKeyIn(v any, p string, depth int) string {
	if depth > maxDepth {
		return ""
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if envOpenerRE.MatchString(k) {
				return field(p, k)
			}
			if f := envKeyIn(v[k], field(p, k), depth+1); f != "" {
				return f
			}
		}
	case []any:
		for i, x := range v {
			if f := envKeyIn(x, field(p, i), depth+1); f != "" {
				return f
			}
		}
	}
	return ""
}

// typeHint suggests the well-known type a malformed type means, and
// names it when it finds one.
func typeHint(typ string) (hint, alt string) {
	name := typ
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name, _, _ = strings.Cut(name, "@")
	for _, known := range knownTypes {
		if strings.TrimSuffix(strings.TrimPrefix(known, "com.docker.sandbox/"), known[strings.LastIndex(known, "@"):]) == name {
			return "; did you mean " + known + "?", known
		}
	}
	return "; write it as in com.docker.sandbox/network-policy@1 (the version is a whole number from 1)", ""
}

func literal(s string) bool { return !argRef.MatchString(s) && !envOpenerRE.MatchString(s) }

// checkDedupKeys applies the identity keys judged on literal values before
// parameterized entries are set aside.
func (v *validator) checkDedupKeys(b *block, e blockEntry) {
	c, cfg := e.c, e.c.Config
	switch c.Type {
	case TypeSSHAgent:
		phases, ok := phasesOf(cfg["phase"])
		if !ok {
			return
		}
		for _, p := range phases {
			if !literal(p) {
				continue
			}
			if prev, ok := b.sshPhases[p]; ok && prev != e.f {
				v.errorf(field(e.f, "config", "phase"), "ssh-agent-unique", "", "an ssh-agent for phase %q is already declared at %s; keep one entry per phase", p, prev)
			} else {
				b.sshPhases[p] = e.f
			}
		}
	case TypeCredential:
		svc, ok := cfg["service"].(string)
		if !ok || !literal(svc) {
			return
		}
		phases, ok := phasesOf(cfg["phase"])
		if !ok {
			return
		}
		for _, p := range phases {
			if !literal(p) {
				continue
			}
			k := svc + "\x00" + p
			if prev, ok := b.credKeys[k]; ok && prev != e.f {
				v.errorf(field(e.f, "config", "service"), "credential-unique", "", "a credential for service %q in phase %q is already declared at %s; keep one entry per service and phase", svc, p, prev)
			} else {
				b.credKeys[k] = e.f
			}
		}
	case TypeACP:
		agent, ok := cfg["agent"].(string)
		if !ok || !literal(agent) {
			return
		}
		k := NormalizeName(agent)
		if prev, ok := b.acpAgents[k]; ok {
			v.errorf(field(e.f, "config", "agent"), "acp-agent-unique", "acp@1/agent-unique", "an acp@1 entry for agent %q is already declared at %s; keep one entry per agent", agent, prev)
		} else {
			b.acpAgents[k] = e.f
		}
	case TypeAgentContext:
		v.checkContextArity(b, e)
	case TypeVolume, TypeHostMount:
		v.checkPathUnique(b, e)
	}
}

// checkPathUnique applies volume@1/no-silent-merge and
// host-mount@1/no-silent-merge: one request per cleaned path, in one key
// space shared by both types.
func (v *validator) checkPathUnique(b *block, e blockEntry) {
	p, ok := e.c.Config["path"].(string)
	if !ok || !literal(p) {
		return
	}
	label, other, ref := "volume", "host mount", "volume@1/no-silent-merge"
	if e.c.Type == TypeHostMount {
		label, other, ref = "host mount", "volume", "host-mount@1/no-silent-merge"
	}
	f := field(e.f, "config", "path")
	k := path.Clean(p)
	if prev, ok := b.pathKeys[label+"\x00"+k]; ok {
		v.errorf(f, "path-unique", ref, "a %s for %q is already declared at %s; keep one entry per path", label, p, prev)
	} else {
		b.pathKeys[label+"\x00"+k] = e.f
	}
	if prev, ok := b.pathKeys[other+"\x00"+k]; ok {
		v.errorf(f, "path-unique", ref, "%s path %q conflicts with the %s at %s; a path is one or the other", label, p, other, prev)
	}
}

func (v *validator) checkContextArity(b *block, e blockEntry) {
	cfg := e.c.Config
	f := field(e.f, "config")
	dir, hasDir := cfg["directory"]
	filename, _ := cfg["filename"].(string)
	if !hasDir {
		if filename != "" && v.d.Kind == KindMixin {
			v.errorf(field(f, "filename"), "agent-context-directory", "",
				"an agent-context filename without a directory is workload-only; an agent mixin states the directory its profile goes in, as in directory: /home/agent/.claude")
		}
		if b.ctxUndir != "" {
			v.errorf(field(e.f, "type"), "agent-context-unique", "", "an agent-context without a directory is already declared at %s; only explicit profiles (directory + filename) may repeat", b.ctxUndir)
		} else {
			b.ctxUndir = e.f
		}
	} else {
		ds, ok := dir.(string)
		switch {
		case !ok:
		case literal(ds) && (!strings.HasPrefix(ds, "/") || path.Clean(ds) != ds || strings.ContainsAny(ds, "\\\x00")):
			v.errorf(field(f, "directory"), "agent-context-directory", "", "agent-context directory %q must be an absolute, canonical path; write it from / without a trailing slash or . and .. segments", ds)
		}
		switch {
		case filename == "":
			v.errorf(field(f, "filename"), "agent-context-directory", "", "agent-context directory requires a filename in the same entry; add one, as in filename: AGENTS.md")
		case literal(filename) && (filename == "." || filename == ".." || strings.ContainsAny(filename, "/\\\x00")):
			v.errorf(field(f, "filename"), "agent-context-directory", "", "agent-context filename %q must be a single file name when directory is stated, as in AGENTS.md", filename)
		}
		if ok && filename != "" && literal(ds+filename) {
			k := path.Join(ds, filename)
			if prev, dup := b.ctxProfiles[k]; dup {
				v.errorf(field(f, "directory"), "agent-context-unique", "", "agent-context profile %s is already declared at %s; keep one entry per profile", k, prev)
			} else {
				b.ctxProfiles[k] = e.f
			}
		}
	}
	_, hasContent := cfg["content"]
	_, hasFile := cfg["contentFile"]
	if hasContent || hasFile {
		if b.ctxBody != "" {
			v.errorf(f, "agent-context-unique", "", "an agent-context body is already declared at %s; a kit contributes one body, which every profile indexes", b.ctxBody)
		} else {
			b.ctxBody = e.f
		}
	}
	if hasContent && hasFile {
		v.errorf(f, "agent-context-body", "", "agent-context states both content and contentFile; keep one")
	}
}

// checkPresence applies the rules that hold before expansion to a
// parameterized entry: whether fields are present, null or empty, and
// the values that hold no reference.
func (v *validator) checkPresence(b *block, e blockEntry) {
	c, cfg := e.c, e.c.Config
	cf := field(e.f, "config")
	switch c.Type {
	case TypeCredential:
		if phases, ok := phasesOf(cfg["phase"]); ok {
			v.checkPhases(field(cf, "phase"), phases)
		}
		if !stated(e, "apiKey") && !stated(e, "oauth") {
			v.errorf(cf, "credential", "credential@1/one-of-apikey-oauth", "credential declares neither apiKey nor oauth; declare one (or both)")
		}
	case TypeAgentSkill:
		if p, ok := cfg["path"].(string); ok && literal(p) && !canonicalNonRoot(p) {
			v.errorf(field(cf, "path"), "agent-skill", "", "skill path %q must be absolute and canonical (no . or .. segments, no trailing slash), not the root", p)
		}
	case TypeACP:
		v.checkACPAuthored(e)
	case TypeNetworkPolicy2:
		var np NetworkPolicy
		if e.decode(&np) == nil {
			v.checkNetworkEntries(cf, &np, true)
		}
	case TypeSSHAgent:
		v.checkSSHAgentPresence(e)
	}
}

// checkSSHAgentPresence judges a parameterized ssh-agent@1 entry: an
// unrestricted flag still written as a reference is taken to mean what
// the lists imply, and values holding references skip their grammar.
func (v *validator) checkSSHAgentPresence(e blockEntry) {
	cfg := make(map[string]any, len(e.c.Config))
	for k, x := range e.c.Config {
		cfg[k] = x
	}
	if u, ok := cfg["unrestricted"].(string); ok && !literal(u) {
		_, sign := cfg["sign"]
		_, auth := cfg["authenticate"]
		cfg["unrestricted"] = !(sign || auth)
	}
	var s SSHAgent
	if DecodeConfig(cfg, &s) == nil {
		v.checkSSHAgent(field(e.f, "config"), s)
	}
}

func canonicalNonRoot(p string) bool {
	return strings.HasPrefix(p, "/") && p != "/" && path.Clean(p) == p && !strings.ContainsRune(p, 0)
}

// checkBlockTail runs the cross-entry checks of a block.
func (v *validator) checkBlockTail(b *block, skip map[int]bool, declOnly bool) {
	one, two := b.singletons[TypeNetworkPolicy], b.singletons[TypeNetworkPolicy2]
	if one != "" && two != "" {
		v.errorf(field(two, "type"), "network-policy-version", "", "%s cannot be declared beside %s at %s; a kit states one network-policy version, so move the rules into one entry", TypeNetworkPolicy2, TypeNetworkPolicy, one)
		b.defer_ = true
	}
	if b.newSession != nil && b.interactive != nil && !slices.Equal(b.newSession, b.interactive) {
		v.errorf(field(b.newSessionF, "config", "newSession"), "new-session-matches-lifecycle-interactive", "agent-interactive-sessions@1/new-session-matches-lifecycle-interactive",
			"newSession %q disagrees with lifecycle interactive %q at %s; they name the same launch, so make them equal or omit newSession", b.newSession, b.interactive, b.interactiveF)
	}
	if len(b.sessionsList) > 0 && len(b.aisList) > 0 && !slices.Equal(b.sessionsList, b.aisList) {
		v.errorf(field(b.aisListF, "config", "list"), "sessions-list-agree", "",
			"list %q differs from the agent-sessions list %q; both enumerate the same sessions, so they name one command", b.aisList, b.sessionsList)
	}
	if !b.defer_ && !declOnly {
		v.checkInjectAllowed(b, skip)
	}
}

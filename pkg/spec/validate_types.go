package spec

import (
	"net"
	"path"
	"regexp"
	"strings"
)

var (
	sizeRE   = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?\s*([kKmMgGtT]i?[bB]?)?$`)
	octalRE  = regexp.MustCompile(`^[0-7]{3,4}$`)
	signRE   = regexp.MustCompile(`^[!-~]+$`)
	authRE   = regexp.MustCompile(`^([a-z_][a-z0-9_.-]*@)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)
	skillRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	methodOK = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true, "TRACE": true, "CONNECT": true}
)

// typedCheck applies the literal-value rules of one well-known type to an
// entry whose config holds no reference.
type typedCheck func(v *validator, b *block, i int, e blockEntry)

// typedChecks holds the checks of the well-known types that have value
// rules. Config-less types and unknown types have none.
var typedChecks = map[string]typedCheck{
	TypeNetworkPolicy:            (*validator).checkNetworkPolicy,
	TypeNetworkPolicy2:           (*validator).checkNetworkPolicy,
	TypeCredential:               (*validator).checkCredentialEntry,
	TypeSSHAgent:                 (*validator).checkSSHAgentEntry,
	TypeVolume:                   (*validator).checkVolume,
	TypeHostMount:                (*validator).checkHostMount,
	TypeAgentSkill:               (*validator).checkAgentSkillEntry,
	TypeAgentSkills:              (*validator).checkAgentSkills,
	TypePort:                     (*validator).checkPort,
	TypeUSBDevice:                (*validator).checkUSBDevice,
	TypeResources:                (*validator).checkResources,
	TypeACP:                      (*validator).checkACP,
	TypeAgentSessions:            (*validator).checkAgentSessions,
	TypeAgentInteractiveSessions: (*validator).checkAgentInteractiveSessions,
	TypeLifecycle:                (*validator).checkLifecycleEntry,
	TypeAgentContext:             (*validator).checkAgentContext,
}

// checkTyped applies the per-type rules to a literal entry.
func (v *validator) checkTyped(b *block, i int, e blockEntry) {
	check, ok := typedChecks[e.c.Type]
	if !ok {
		return
	}
	v.typed = append(v.typed, e.f)
	check(v, b, i, e)
}

// decodeEntry decodes an entry's config into its typed form. A config
// that does not decode has schema errors already (an unknown field, a
// wrong type); otherwise the decode error itself is reported.
func (v *validator) decodeEntry(e blockEntry, out any) bool {
	cf := field(e.f, "config")
	if err := e.decode(out); err != nil {
		if len(v.schemaErrsUnder(cf)) == 0 {
			v.errorf(cf, "config", "", "%s config does not decode: %v; fix the field it names", e.c.Type, err)
			return false
		}
		// The schema reported the problem; judge the rest of the config.
		return e.decodeLenient(out) == nil
	}
	return true
}

// stated reports whether the entry's config writes key at all.
func stated(e blockEntry, key string) bool {
	_, ok := e.c.Config[key]
	return ok
}

// schemaErrsUnder returns the schema errors at or under field f.
func (v *validator) schemaErrsUnder(f string) Errors {
	var out Errors
	for _, e := range v.schema {
		if underField(e.Field, f) {
			out = append(out, e)
		}
	}
	return out
}

func anyContains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

func (v *validator) checkNetworkPolicy(b *block, _ int, e blockEntry) {
	var np NetworkPolicy
	if !v.decodeEntry(e, &np) {
		b.defer_ = true
		return
	}
	if e.c.Type == TypeNetworkPolicy2 && !v.checkNetworkEntries(field(e.f, "config"), &np, false) {
		b.defer_ = true
	}
}

func (v *validator) checkCredentialEntry(b *block, i int, e blockEntry) {
	var cr Credential
	if !v.decodeEntry(e, &cr) || !v.checkCredential(field(e.f, "config"), cr) {
		b.invalidCred[i] = true
	}
}

func (v *validator) checkSSHAgentEntry(_ *block, _ int, e blockEntry) {
	var s SSHAgent
	if v.decodeEntry(e, &s) {
		v.checkSSHAgent(field(e.f, "config"), s)
	}
}

func (v *validator) checkVolume(_ *block, _ int, e blockEntry) {
	var vol Volume
	if !v.decodeEntry(e, &vol) {
		return
	}
	cf := field(e.f, "config")
	switch {
	case !stated(e, "path"):
		v.errorf(field(cf, "path"), "volume", "", "volume@1 needs path: the absolute path the volume is mounted at")
	case !strings.HasPrefix(vol.Path, "/"):
		v.errorf(field(cf, "path"), "volume", "", "volume path %q must be absolute; write it from /", vol.Path)
	}
	if vol.Size != "" && !sizeRE.MatchString(vol.Size) {
		v.errorf(field(cf, "size"), "volume", "", "invalid volume size %q: write a number with an optional unit, as in 10GiB or 512m", vol.Size)
	}
	if vol.Mode != "" && !octalRE.MatchString(vol.Mode) {
		v.errorf(field(cf, "mode"), "volume", "", "invalid octal mode %q: write three or four octal digits as a string, as in \"0755\"", vol.Mode)
	}
}

func (v *validator) checkHostMount(_ *block, _ int, e blockEntry) {
	var hm HostMount
	if !v.decodeEntry(e, &hm) {
		return
	}
	cf := field(e.f, "config")
	switch {
	case !stated(e, "path"):
		v.errorf(field(cf, "path"), "host-mount", "", "host-mount@1 needs path: the absolute path the host directory is mounted at")
	case hm.Path == "/" || !strings.HasPrefix(hm.Path, "/") || path.Clean(hm.Path) != hm.Path || strings.ContainsRune(hm.Path, 0):
		v.errorf(field(cf, "path"), "host-mount", "", "host mount path %q must be absolute and canonical (no . or .. segments, no trailing slash), and not the root /", hm.Path)
	}
	if hm.Mode != nil && !octalRE.MatchString(*hm.Mode) {
		v.errorf(field(cf, "mode"), "host-mount", "", "invalid octal mode %q: write three or four octal digits as a string, as in \"0755\", or remove mode", *hm.Mode)
	}
}

func (v *validator) checkAgentSkills(b *block, _ int, e blockEntry) {
	var s AgentSkills
	if !v.decodeEntry(e, &s) {
		return
	}
	cf := field(e.f, "config")
	switch {
	case !stated(e, "path"):
		v.errorf(field(cf, "path"), "agent-skills", "", "agent-skills@1 needs path: the absolute path the agent reads skills from")
	case !canonicalNonRoot(s.Path):
		v.errorf(field(cf, "path"), "agent-skills", "", "skills path %q must be absolute and canonical (no . or .. segments, no trailing slash) and not the root", s.Path)
	}
	if s.Mode != "" && s.Mode != "readonly" && s.Mode != "readwrite" {
		v.errorf(field(cf, "mode"), "agent-skills", "", "mode must be readonly or readwrite, not %q", s.Mode)
	}
	if prev, ok := b.skillsPaths[s.Path]; ok {
		v.errorf(field(cf, "path"), "agent-skills", "", "skills for %q are already declared at %s; keep one entry per path", s.Path, prev)
	} else {
		b.skillsPaths[s.Path] = e.f
	}
}

func (v *validator) checkPort(b *block, _ int, e blockEntry) {
	var p Port
	if !v.decodeEntry(e, &p) {
		return
	}
	cf := field(e.f, "config")
	switch {
	case !stated(e, "container"):
		v.errorf(field(cf, "container"), "port", "", "port@1 needs container: the port number the service listens on inside the sandbox")
	case p.Container < 1 || p.Container > 65535:
		v.errorf(field(cf, "container"), "port", "", "container port %d is out of range; write a port from 1 to 65535", p.Container)
	}
	if p.Transport != "" && p.Transport != "tcp" && p.Transport != "udp" {
		v.errorf(field(cf, "transport"), "port", "", "transport must be tcp or udp, not %q", p.Transport)
	}
	if prev, ok := b.ports[p.Key()]; ok {
		v.errorf(field(cf, "container"), "port", "", "port %s is already declared at %s; keep one entry per port and transport", p.Key(), prev)
	} else {
		b.ports[p.Key()] = e.f
	}
}

func (v *validator) checkUSBDevice(_ *block, _ int, e blockEntry) {
	var u USBDevice
	if !v.decodeEntry(e, &u) {
		return
	}
	cf := field(e.f, "config")
	hasID := u.VendorID != "" || u.ProductID != ""
	if hasID == (u.Class != "") {
		v.errorf(cf, "usb-device", "", "declare either vendorId and productId, or class: not both and not neither")
	} else if (u.VendorID != "") != (u.ProductID != "") {
		v.errorf(cf, "usb-device", "", "vendorId and productId go together; state both")
	}
}

func (v *validator) checkResources(_ *block, _ int, e blockEntry) {
	var r Resources
	if !v.decodeEntry(e, &r) {
		return
	}
	cf := field(e.f, "config")
	if r.CPU != nil && *r.CPU < 0 {
		v.errorf(field(cf, "cpu"), "resources", "", "cpu must be 0 or more")
	}
	if r.Memory != "" && !sizeRE.MatchString(r.Memory) {
		v.errorf(field(cf, "memory"), "resources", "", "invalid memory %q: write a number with an optional unit, as in 4GiB", r.Memory)
	}
}

func (v *validator) checkAgentSessions(b *block, _ int, e blockEntry) {
	var s AgentSessions
	if !v.decodeEntry(e, &s) {
		return
	}
	cf := field(e.f, "config")
	if len(s.Prompt) == 0 && len(s.Resume) == 0 && len(s.Continue) == 0 && (s.List == nil || s.List.Empty()) {
		v.errorf(cf, "agent-sessions", "", "agent-sessions declares no verbs; state prompt, resume, continue or list, or remove the entry")
	}
	if len(s.Prompt) > 0 && !anyContains(s.Prompt, "{{.Prompt}}") {
		v.errorf(field(cf, "prompt"), "agent-sessions", "agent-sessions@1/prompt-placeholder-required", "prompt must reference {{.Prompt}}; add it where the prompt text goes")
	}
	if len(s.Resume) > 0 && !anyContains(s.Resume, "{{.SessionID}}") {
		v.errorf(field(cf, "resume"), "agent-sessions", "agent-sessions@1/session-id-placeholder-required", "resume must reference {{.SessionID}}; add it where the session id goes")
	}
	if s.List != nil {
		b.sessionsList = s.List.Args()
	}
}

func (v *validator) checkAgentInteractiveSessions(b *block, _ int, e blockEntry) {
	var s AgentInteractiveSessions
	if !v.decodeEntry(e, &s) {
		return
	}
	cf := field(e.f, "config")
	if s.Prompt == nil && s.Resume == nil && s.Continue == nil && s.NewSession == nil && s.SessionPicker == nil && (s.List == nil || s.List.Empty()) {
		v.errorf(cf, "agent-interactive-sessions", "", "agent-interactive-sessions declares no verbs; state prompt, resume, continue, newSession, sessionPicker or list, or remove the entry")
	}
	if s.Prompt != nil && !anyContains(s.Prompt, "{{.Prompt}}") {
		v.errorf(field(cf, "prompt"), "agent-interactive-sessions", "agent-interactive-sessions@1/prompt-placeholder-required", "prompt must reference {{.Prompt}}; add it where the prompt text goes")
	}
	if s.Resume != nil && !anyContains(s.Resume, "{{.SessionID}}") {
		v.errorf(field(cf, "resume"), "agent-interactive-sessions", "agent-interactive-sessions@1/session-id-placeholder-required", "resume must reference {{.SessionID}}; add it where the session id goes")
	}
	if s.NewSession != nil {
		b.newSession, b.newSessionF = s.NewSession, e.f
	}
	if s.List != nil {
		b.aisList, b.aisListF = s.List.Args(), e.f
	}
}

func (v *validator) checkLifecycleEntry(b *block, _ int, e blockEntry) {
	var l Lifecycle
	if !v.decodeEntry(e, &l) {
		return
	}
	v.checkLifecycle(field(e.f, "config"), l)
	if l.Interactive != nil {
		b.interactive, b.interactiveF = l.Interactive, e.f
	}
}

func (v *validator) checkAgentContext(_ *block, _ int, e blockEntry) {
	var a AgentContext
	if v.decodeEntry(e, &a) && len(e.c.Config) == 0 {
		v.errorf(field(e.f, "config"), "agent-context", "", "agent-context states nothing; give it content, contentFile, filename or directory, or remove the entry")
	}
}

func (v *validator) checkAgentSkillEntry(b *block, _ int, e blockEntry) {
	var s AgentSkill
	if v.decodeEntry(e, &s) {
		v.checkAgentSkill(b, e, s)
	}
}

// checkNetworkEntries applies the network-policy@2 entry rules; it reports
// whether the policy is sound. shapeOnly limits them to the shape of each
// entry (hosts present, no empty lists, paths bounded by methods), as for
// a parameterized policy whose values are judged once expanded.
func (v *validator) checkNetworkEntries(cf string, np *NetworkPolicy, shapeOnly bool) bool {
	n := len(v.semantic.Errors)
	for _, phase := range []string{"install", "runtime"} {
		rules := np.Phase(phase)
		if rules == nil {
			continue
		}
		for _, list := range []struct {
			name    string
			entries []NetworkEntry
		}{{"allow", rules.Allow}, {"deny", rules.Deny}} {
			for j, en := range list.entries {
				ef := field(cf, phase, list.name, j)
				v.checkNetworkEntryShape(ef, phase, en)
				if !shapeOnly {
					v.checkNetworkEntryValues(ef, phase, list.name == "allow", en)
				}
			}
		}
	}
	return len(v.semantic.Errors) == n
}

func (v *validator) checkNetworkEntryShape(ef, phase string, en NetworkEntry) {
	if len(en.Hosts) == 0 {
		v.errorf(field(ef, "hosts"), "network-entry", "", "%s entry declares no hosts; list at least one host", phase)
	}
	for k, h := range en.Hosts {
		if h == "" {
			v.errorf(field(ef, "hosts", k), "network-entry", "", "%s entry has an empty host; write the host name or remove the item", phase)
		}
	}
	if en.MethodsStated && len(en.Methods) == 0 {
		remedy := "omit the field to leave the entry unbounded, or name the methods"
		if len(en.Paths) > 0 {
			remedy = "name the methods the paths bound, or omit paths too to leave the entry unbounded"
		}
		v.errorf(field(ef, "methods"), "network-entry", "", "%s entry states an empty methods list; %s", phase, remedy)
	}
	if en.PathsStated && len(en.Paths) == 0 {
		v.errorf(field(ef, "paths"), "network-entry", "", "%s entry states an empty paths list; omit the field for every path, or name the paths", phase)
	}
	if len(en.Paths) > 0 && len(en.Methods) == 0 {
		v.errorf(field(ef, "paths"), "network-entry", "", "%s entry states paths without methods; name the methods the paths bound, or methods: [ANY] for every method", phase)
	}
}

func (v *validator) checkNetworkEntryValues(ef, phase string, allow bool, en NetworkEntry) {
	seen := map[string]bool{}
	for k, m := range en.Methods {
		if m != "ANY" && !methodOK[m] {
			v.errorf(field(ef, "methods", k), "network-entry", "", "%s entry method %q is not an uppercase HTTP method or ANY", phase, m)
		}
		if seen[m] {
			v.errorf(field(ef, "methods", k), "network-entry", "", "%s entry repeats method %q; list it once", phase, m)
		}
		seen[m] = true
	}
	if seen["ANY"] && len(en.Methods) > 1 {
		v.errorf(field(ef, "methods"), "network-entry", "", "%s entry names ANY beside a specific method; ANY already covers every method, so keep it alone", phase)
	}
	for k, h := range en.Hosts {
		hf := ef
		if en.Object {
			hf = field(ef, "hosts", k)
		}
		v.checkHost(hf, phase+" entry host", h)
	}
	for k, p := range en.Paths {
		if !strings.HasPrefix(p, "/") {
			v.errorf(field(ef, "paths", k), "network-entry", "", "%s entry path %q must start with \"/\"", phase, p)
		}
	}
	if !allow || !en.Bounded() {
		return
	}
	for k, h := range en.Hosts {
		if strings.Contains(h, "*") {
			v.errorf(field(ef, "hosts", k), "network-entry", "network-policy@2/bounded-allow-hosts-literal",
				"%s allow entry bounds the pattern %q; an entry stating methods or paths names its hosts exactly, or the pattern would be bounded and unbounded at once", phase, h)
		}
	}
}

// checkHost refuses a literal host that is not a host pattern
// (ParseHost), naming the field, and warns on a wildcard outside the
// specification's portable patterns (host, host:port, *.domain, * and
// **), naming the nearest legal form. Values holding references are
// judged once expanded.
func (v *validator) checkHost(f, what, h string) {
	if h == "" || !literal(h) {
		return
	}
	ph, err := ParseHost(h)
	switch {
	case err != nil:
		v.errorf(f, "network-host", "", "%s %v; write a host name or IPv4 address, optionally :port, or *.domain, **.domain, * or **", what, err)
	case ph.Kind == HostGlob:
		v.warnf(f, "host-wildcard", "", "%s %q has a wildcard inside the name, which the specification's patterns (host, host:port, *.domain for one label, * and **) do not define: what it matches is up to the runtime's matcher, and kitsmith's gates judge it as matching any text; the nearest legal form is %q, or list the hosts", what, h, ph.NearestLegal().String())
	}
}

// checkSSHAgent applies the ssh-agent@1 rules, stopping at the first
// problem of the phase and bound rules.
func (v *validator) checkSSHAgent(cf string, s SSHAgent) {
	if !v.checkPhases(field(cf, "phase"), s.Phase) {
		return
	}
	bounded := s.Unrestricted != nil && !*s.Unrestricted
	switch {
	case bounded && s.Sign == nil && s.Authenticate == nil:
		v.errorf(field(cf, "unrestricted"), "ssh-agent", "", "unrestricted: false requires sign or authenticate; list what the agent may sign or whom it may authenticate to")
		return
	case !bounded && (s.Sign != nil || s.Authenticate != nil):
		v.errorf(field(cf, "unrestricted"), "ssh-agent", "", "sign and authenticate require unrestricted: false; add it to bound the agent, or remove the lists")
		return
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"sign", s.Sign}, {"authenticate", s.Authenticate}} {
		if l.list != nil && len(l.list) == 0 {
			v.errorf(field(cf, l.name), "ssh-agent", "", "ssh-agent entry states an empty %s list; list its values, or remove %s", l.name, l.name)
		}
	}
	seen := map[string]bool{}
	for k, x := range s.Sign {
		f := field(cf, "sign", k)
		if literal(x) && !signRE.MatchString(x) {
			v.errorf(f, "ssh-agent", "", "ssh-agent sign value %q is invalid: a namespace is printable ASCII without spaces", x)
		}
		if seen[x] {
			v.errorf(f, "ssh-agent", "", "ssh-agent sign lists %q twice; list it once", x)
		}
		seen[x] = true
	}
	seen = map[string]bool{}
	for k, x := range s.Authenticate {
		f := field(cf, "authenticate", k)
		if seen[x] {
			v.errorf(f, "ssh-agent", "", "ssh-agent authenticate lists %q twice; list it once", x)
		}
		seen[x] = true
		if !literal(x) {
			continue
		}
		host := x[strings.LastIndex(x, "@")+1:]
		switch {
		case !authRE.MatchString(x):
			v.errorf(f, "ssh-agent", "", "ssh-agent authenticate value %q is invalid: write host or user@host, a lowercase DNS name without wildcard, port or IP address", x)
		case net.ParseIP(host) != nil || strings.Trim(host, "0123456789.") == "":
			v.errorf(f, "ssh-agent", "", "ssh-agent destination %q names an IP address; name the server by its DNS name", x)
		}
	}
}

func (v *validator) checkAgentSkill(b *block, e blockEntry, s AgentSkill) {
	cf := field(e.f, "config")
	if s.Name != nil && *s.Name == "" {
		v.errorf(field(cf, "name"), "agent-skill", "", "omit name to use the base name of path; an explicit name must not be empty")
		return
	}
	if !stated(e, "path") {
		v.errorf(field(cf, "path"), "agent-skill", "", "agent-skill@1 needs path: the absolute path of the skill's directory in the image")
		return
	}
	name := s.EffectiveName()
	if !skillRE.MatchString(name) || len(name) > 255 {
		f := field(cf, "name")
		if s.Name == nil {
			f = field(cf, "path")
		}
		v.errorf(f, "agent-skill", "agent-skill@1/name-valid", "effective skill name %q must match ^[A-Za-z0-9][A-Za-z0-9._-]*$ and be at most 255 bytes; rename it with name:", name)
		return
	}
	if !canonicalNonRoot(s.Path) {
		v.errorf(field(cf, "path"), "agent-skill", "", "skill path %q must be absolute and canonical (no . or .. segments, no trailing slash), not the root", s.Path)
		return
	}
	if prev, ok := b.skillNames[name]; ok {
		v.errorf(cf, "agent-skill", "", "%s %q is already declared at %s; give one of them another name:", TypeAgentSkill, name, prev)
	} else {
		b.skillNames[name] = e.f
	}
}

func (v *validator) checkLifecycle(cf string, l Lifecycle) {
	if len(l.Install) == 0 && len(l.Startup) == 0 && len(l.Files) == 0 && len(l.Interactive) == 0 {
		v.errorf(cf, "lifecycle", "", "lifecycle declares no hooks, files or interactive tail; remove the entry instead")
	}
	for _, hooks := range []struct {
		name string
		list []Hook
	}{{"install", l.Install}, {"startup", l.Startup}} {
		for j, h := range hooks.list {
			hf := field(cf, hooks.name, j)
			if h.Command.Empty() {
				v.errorf(field(hf, "command"), "lifecycle", "", "%s[%d]: command is required: a shell string or an argv list", hooks.name, j)
			}
			for k, name := range h.Env {
				if !identRE.MatchString(name) {
					v.errorf(field(hf, "env", k), "lifecycle", "", "%s[%d]: env entry %q is not a valid environment variable name", hooks.name, j, name)
				}
			}
		}
	}
	for j, f := range l.Files {
		ff := field(cf, "files", j)
		if !strings.HasPrefix(f.Path, "/") {
			v.errorf(field(ff, "path"), "lifecycle", "", "files[%d]: path %q must be absolute; write it from /", j, f.Path)
		}
		if f.Mode != "" && !octalRE.MatchString(f.Mode) {
			v.errorf(field(ff, "mode"), "lifecycle", "", "files[%d]: invalid octal mode %q: write three or four octal digits as a string, as in \"0644\"", j, f.Mode)
		}
	}
}

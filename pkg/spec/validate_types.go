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

// checkTyped decodes a literal entry's config into its typed form and
// applies the per-type rules. A config that does not decode has schema
// errors already; its value checks are skipped.
func (v *validator) checkTyped(b *block, i int, e blockEntry) {
	c := e.c
	cf := field(e.f, "config")
	decode := func(out any) bool {
		if err := DecodeConfig(c.Config, out); err != nil {
			if len(v.schemaErrsUnder(cf)) == 0 {
				v.errorf(cf, "config", "", "%s config does not decode: %v", c.Type, err)
			}
			return false
		}
		return true
	}
	switch c.Type {
	case TypeNetworkPolicy, TypeNetworkPolicy2:
		var np NetworkPolicy
		if !decode(&np) {
			b.defer_ = true
			return
		}
		if c.Type == TypeNetworkPolicy2 && !v.checkNetworkEntries(cf, &np) {
			b.defer_ = true
		}
	case TypeCredential:
		var cr Credential
		if !decode(&cr) || !v.checkCredential(cf, cr) {
			b.invalidCred[i] = true
		}
	case TypeSSHAgent:
		var s SSHAgent
		if decode(&s) {
			v.checkSSHAgent(cf, s)
		}
	case TypeVolume:
		var vol Volume
		if !decode(&vol) {
			return
		}
		if !strings.HasPrefix(vol.Path, "/") {
			v.errorf(field(cf, "path"), "volume", "", "volume path %q must be absolute", vol.Path)
		}
		if vol.Size != "" && !sizeRE.MatchString(vol.Size) {
			v.errorf(field(cf, "size"), "volume", "", "invalid volume size %q: write a number with an optional unit, as in 10GiB or 512m", vol.Size)
		}
		if vol.Mode != "" && !octalRE.MatchString(vol.Mode) {
			v.errorf(field(cf, "mode"), "volume", "", "invalid octal mode %q: write three or four octal digits as a string, as in \"0755\"", vol.Mode)
		}
	case TypeHostMount:
		var hm HostMount
		if !decode(&hm) {
			return
		}
		if hm.Path == "/" || !strings.HasPrefix(hm.Path, "/") || path.Clean(hm.Path) != hm.Path || strings.ContainsRune(hm.Path, 0) {
			v.errorf(field(cf, "path"), "host-mount", "", "host mount path %q must be absolute and canonical, and not the root /", hm.Path)
		}
		if hm.Mode != nil && !octalRE.MatchString(*hm.Mode) {
			v.errorf(field(cf, "mode"), "host-mount", "", "invalid octal mode %q", *hm.Mode)
		}
	case TypeAgentSkill:
		var s AgentSkill
		if decode(&s) {
			v.checkAgentSkill(b, cf, s)
		}
	case TypeAgentSkills:
		var s AgentSkills
		if !decode(&s) {
			return
		}
		if !canonicalNonRoot(s.Path) {
			v.errorf(field(cf, "path"), "agent-skills", "", "skills path %q must be absolute and canonical (no . or .. segments, no trailing slash) and not the root", s.Path)
		}
		if s.Mode != "" && s.Mode != "readonly" && s.Mode != "readwrite" {
			v.errorf(field(cf, "mode"), "agent-skills", "", "mode must be readonly or readwrite, not %q", s.Mode)
		}
		if prev, ok := b.skillsPaths[s.Path]; ok {
			v.errorf(field(cf, "path"), "agent-skills", "", "skills for %q are already declared at %s", s.Path, prev)
		} else {
			b.skillsPaths[s.Path] = e.f
		}
	case TypePort:
		var p Port
		if !decode(&p) {
			return
		}
		if p.Container < 1 || p.Container > 65535 {
			v.errorf(field(cf, "container"), "port", "", "container port %d is out of range 1-65535", p.Container)
		}
		if p.Transport != "" && p.Transport != "tcp" && p.Transport != "udp" {
			v.errorf(field(cf, "transport"), "port", "", "transport must be tcp or udp, not %q", p.Transport)
		}
		if prev, ok := b.ports[p.Key()]; ok {
			v.errorf(field(cf, "container"), "port", "", "port %s is already declared at %s", p.Key(), prev)
		} else {
			b.ports[p.Key()] = e.f
		}
	case TypeUSBDevice:
		var u USBDevice
		if !decode(&u) {
			return
		}
		hasID := u.VendorID != "" || u.ProductID != ""
		if hasID == (u.Class != "") {
			v.errorf(cf, "usb-device", "", "declare either vendorId and productId, or class: not both and not neither")
		} else if (u.VendorID != "") != (u.ProductID != "") {
			v.errorf(cf, "usb-device", "", "vendorId and productId go together")
		}
	case TypeResources:
		var r Resources
		if !decode(&r) {
			return
		}
		if r.CPU != nil && *r.CPU < 0 {
			v.errorf(field(cf, "cpu"), "resources", "", "cpu must be 0 or more")
		}
		if r.Memory != "" && !sizeRE.MatchString(r.Memory) {
			v.errorf(field(cf, "memory"), "resources", "", "invalid memory %q: write a number with an optional unit, as in 4GiB", r.Memory)
		}
	case TypeACP:
		var a ACP
		if !decode(&a) {
			return
		}
		if err := CheckName(a.Agent); err != nil {
			v.errorf(field(cf, "agent"), "acp", "acp@1/config-valid", "agent must be an unversioned provides name: %v", err)
		}
		if a.ProtocolVersion != nil && *a.ProtocolVersion < 1 {
			v.errorf(field(cf, "protocolVersion"), "acp", "acp@1/config-valid", "protocolVersion must be 1 or more")
		}
		if c.Optional == false {
			v.warnf(e.f, "acp-optional", "acp@1/optional-for-compatibility", "an acp@1 entry should be optional: true, so hosts without ACP still accept the kit")
		}
	case TypeAgentSessions:
		var s AgentSessions
		if !decode(&s) {
			return
		}
		if len(s.Prompt) == 0 && len(s.Resume) == 0 && len(s.Continue) == 0 && (s.List == nil || s.List.Empty()) {
			v.errorf(cf, "agent-sessions", "", "agent-sessions declares no verbs; remove the entry instead")
		}
		if len(s.Prompt) > 0 && !anyContains(s.Prompt, "{{.Prompt}}") {
			v.errorf(field(cf, "prompt"), "agent-sessions", "agent-sessions@1/prompt-placeholder-required", "prompt must reference {{.Prompt}}")
		}
		if len(s.Resume) > 0 && !anyContains(s.Resume, "{{.SessionID}}") {
			v.errorf(field(cf, "resume"), "agent-sessions", "agent-sessions@1/session-id-placeholder-required", "resume must reference {{.SessionID}}")
		}
		if s.List != nil {
			b.sessionsList = s.List.Args()
		}
	case TypeAgentInteractiveSessions:
		var s AgentInteractiveSessions
		if !decode(&s) {
			return
		}
		if s.Prompt != nil && !anyContains(s.Prompt, "{{.Prompt}}") {
			v.errorf(field(cf, "prompt"), "agent-interactive-sessions", "agent-interactive-sessions@1/prompt-placeholder-required", "prompt must reference {{.Prompt}}")
		}
		if s.Resume != nil && !anyContains(s.Resume, "{{.SessionID}}") {
			v.errorf(field(cf, "resume"), "agent-interactive-sessions", "agent-interactive-sessions@1/session-id-placeholder-required", "resume must reference {{.SessionID}}")
		}
		if s.NewSession != nil {
			b.newSession, b.newSessionF = s.NewSession, e.f
		}
		if s.List != nil {
			b.aisList, b.aisListF = s.List.Args(), e.f
		}
	case TypeLifecycle:
		var l Lifecycle
		if !decode(&l) {
			return
		}
		v.checkLifecycle(cf, l)
		if l.Interactive != nil {
			b.interactive, b.interactiveF = l.Interactive, e.f
		}
	case TypeAgentContext:
		var a AgentContext
		decode(&a)
	}
}

// schemaErrsUnder returns the schema errors at or under field f.
func (v *validator) schemaErrsUnder(f string) Errors {
	var out Errors
	for _, e := range v.schema {
		if e.Field == f || strings.HasPrefix(e.Field, f+".") || strings.HasPrefix(e.Field, f+"[") {
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

// checkNetworkEntries applies the network-policy@2 entry rules; it reports
// whether the policy is sound.
func (v *validator) checkNetworkEntries(cf string, np *NetworkPolicy) bool {
	ok := true
	fail := func(f, code, ref, format string, args ...any) {
		v.errorf(f, code, ref, format, args...)
		ok = false
	}
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
				if len(en.Hosts) == 0 {
					fail(field(ef, "hosts"), "network-entry", "", "%s entry declares no hosts", phase)
				}
				for _, h := range en.Hosts {
					if h == "" {
						fail(field(ef, "hosts"), "network-entry", "", "%s entry has an empty host", phase)
					}
				}
				if en.MethodsStated && len(en.Methods) == 0 {
					fail(field(ef, "methods"), "network-entry", "", "%s entry states an empty methods list; omit it for every method, or name the methods", phase)
				}
				if en.PathsStated && len(en.Paths) == 0 {
					fail(field(ef, "paths"), "network-entry", "", "%s entry states an empty paths list; omit it for every path, or name the paths", phase)
				}
				if len(en.Paths) > 0 && len(en.Methods) == 0 {
					fail(field(ef, "paths"), "network-entry", "", "%s entry states paths without methods; name the methods the paths bound, or methods: [ANY]", phase)
				}
				seen := map[string]bool{}
				for _, m := range en.Methods {
					if m != "ANY" && !methodOK[m] {
						fail(field(ef, "methods"), "network-entry", "", "%s entry method %q is not an uppercase HTTP method or ANY", phase, m)
					}
					if seen[m] {
						fail(field(ef, "methods"), "network-entry", "", "%s entry repeats method %q", phase, m)
					}
					seen[m] = true
				}
				if seen["ANY"] && len(en.Methods) > 1 {
					fail(field(ef, "methods"), "network-entry", "", "%s entry names ANY beside a specific method; ANY already covers every method", phase)
				}
				for _, p := range en.Paths {
					if !strings.HasPrefix(p, "/") {
						fail(field(ef, "paths"), "network-entry", "", "%s entry path %q must start with /", phase, p)
					}
				}
				if list.name == "allow" && en.Bounded() {
					for _, h := range en.Hosts {
						if strings.Contains(h, "*") {
							fail(field(ef, "hosts"), "network-entry", "network-policy@2/bounded-allow-hosts-literal",
								"%s allow entry bounds the pattern %q; an entry with methods or paths names its hosts exactly", phase, h)
						}
					}
				}
			}
		}
	}
	return ok
}

// checkCredential applies the credential@1 rules; it reports whether the
// entry is sound enough for the inject check.
func (v *validator) checkCredential(cf string, c Credential) bool {
	n := len(v.semantic.Errors)
	if c.Service == "" {
		v.errorf(field(cf, "service"), "credential", "", "credential service is required")
	} else if literal(c.Service) && !serviceRE.MatchString(c.Service) {
		v.errorf(field(cf, "service"), "credential", "", "invalid service name %q: lowercase letters, digits and dashes", c.Service)
	}
	v.checkPhases(field(cf, "phase"), c.Phase)
	if c.APIKey == nil && c.OAuth == nil {
		v.errorf(cf, "credential", "credential@1/one-of-apikey-oauth", "credential %q declares neither apiKey nor oauth; declare one", c.Service)
	}
	if k := c.APIKey; k != nil {
		if k.Name == "" && len(k.Inject) == 0 {
			v.errorf(field(cf, "apiKey"), "credential", "credential@1/name-or-inject", "apiKey needs a name (the env var holding the placeholder), inject rules, or both")
		}
		if k.Name != "" && !identRE.MatchString(k.Name) {
			v.errorf(field(cf, "apiKey", "name"), "credential", "", "apiKey.name %q is not a valid environment variable name", k.Name)
		}
		for j, in := range k.Inject {
			if in.Domain == "" {
				v.errorf(field(cf, "apiKey", "inject", j), "credential", "", "inject[%d]: domain is required", j)
			}
		}
	}
	if o := c.OAuth; o != nil {
		if o.TokenEndpoint != nil && o.TokenEndpoint.Host == "" {
			v.errorf(field(cf, "oauth", "tokenEndpoint"), "credential", "", "oauth.tokenEndpoint.host is required")
		}
		if cfile := o.CredentialFile; cfile != nil && cfile.Format != nil {
			switch *cfile.Format {
			case "json", "toml":
			case "":
				v.errorf(field(cf, "oauth", "credentialFile", "format"), "credential", "", "credentialFile.format is empty; omit it for json or name an encoding")
			default:
				v.errorf(field(cf, "oauth", "credentialFile", "format"), "credential", "", "credentialFile.format %q is not json or toml", *cfile.Format)
			}
		}
	}
	return len(v.semantic.Errors) == n
}

func (v *validator) checkSSHAgent(cf string, s SSHAgent) {
	if !v.checkPhases(field(cf, "phase"), s.Phase) {
		return
	}
	bounded := s.Unrestricted != nil && !*s.Unrestricted
	switch {
	case bounded && s.Sign == nil && s.Authenticate == nil:
		v.errorf(field(cf, "unrestricted"), "ssh-agent", "", "unrestricted: false requires sign or authenticate")
		return
	case !bounded && (s.Sign != nil || s.Authenticate != nil):
		v.errorf(field(cf, "unrestricted"), "ssh-agent", "", "sign and authenticate require unrestricted: false")
		return
	}
	seen := map[string]bool{}
	for _, x := range s.Sign {
		if literal(x) && !signRE.MatchString(x) {
			v.errorf(field(cf, "sign"), "ssh-agent", "", "ssh-agent sign value %q is invalid: a namespace is printable ASCII without spaces", x)
		}
		if seen[x] {
			v.errorf(field(cf, "sign"), "ssh-agent", "", "ssh-agent sign lists %q twice", x)
		}
		seen[x] = true
	}
	seen = map[string]bool{}
	for _, x := range s.Authenticate {
		if seen[x] {
			v.errorf(field(cf, "authenticate"), "ssh-agent", "", "ssh-agent authenticate lists %q twice", x)
		}
		seen[x] = true
		if !literal(x) {
			continue
		}
		host := x[strings.LastIndex(x, "@")+1:]
		switch {
		case !authRE.MatchString(x):
			v.errorf(field(cf, "authenticate"), "ssh-agent", "", "ssh-agent authenticate value %q is invalid: write host or user@host, a lowercase DNS name without wildcard, port or IP address", x)
		case net.ParseIP(host) != nil || strings.Trim(host, "0123456789.") == "":
			v.errorf(field(cf, "authenticate"), "ssh-agent", "", "ssh-agent destination %q names an IP address; name the server by its DNS name", x)
		}
	}
}

func (v *validator) checkAgentSkill(b *block, cf string, s AgentSkill) {
	if s.Name != nil && *s.Name == "" {
		v.errorf(field(cf, "name"), "agent-skill", "", "omit name to use the base name of path; an explicit name must not be empty")
		return
	}
	name := s.EffectiveName()
	if !skillRE.MatchString(name) || len(name) > 255 {
		v.errorf(field(cf, "name"), "agent-skill", "agent-skill@1/name-valid", "effective skill name %q must match ^[A-Za-z0-9][A-Za-z0-9._-]*$ and be at most 255 bytes", name)
		return
	}
	if !canonicalNonRoot(s.Path) {
		v.errorf(field(cf, "path"), "agent-skill", "", "skill path %q must be absolute and canonical, not the root", s.Path)
		return
	}
	if prev, ok := b.skillNames[name]; ok {
		v.errorf(cf, "agent-skill", "agent-skill@1/name-valid", "%s %q is already declared at %s", TypeAgentSkill, name, prev)
	} else {
		b.skillNames[name] = cf
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
				v.errorf(field(hf, "command"), "lifecycle", "", "%s[%d]: command is required", hooks.name, j)
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
			v.errorf(field(ff, "path"), "lifecycle", "", "files[%d]: path %q must be absolute", j, f.Path)
		}
		if f.Mode != "" && !octalRE.MatchString(f.Mode) {
			v.errorf(field(ff, "mode"), "lifecycle", "", "files[%d]: invalid octal mode %q", j, f.Mode)
		}
	}
}

package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
)

// httpMethodRE is what an HTTP grant's method may be: an upper-case
// token (validation holds it to the method list).
var httpMethodRE = regexp.MustCompile(`^[A-Z]+$`)

// Surface is a descriptor's permission surface (SPEC-v3 §7.4): everything a
// user approves when a kit is granted, normalized (deduplicated, sorted) so
// two surfaces compare with ==-like equality and diff by category. Each
// list holds the canonical text of typed atoms (see Atom and Atoms):
// hosts parsed and lower-cased, paths cleaned, bounded HTTP grants as
// "METHOD host/path". Capability names and optional flags never change
// it; every group member counts, selected or not.
type Surface struct {
	NetworkInstallAllow     []string `json:"networkInstallAllow,omitempty"`
	NetworkInstallDeny      []string `json:"networkInstallDeny,omitempty"`
	NetworkRuntimeAllow     []string `json:"networkRuntimeAllow,omitempty"`
	NetworkRuntimeDeny      []string `json:"networkRuntimeDeny,omitempty"`
	NetworkInstallHTTPAllow []string `json:"networkInstallHTTPAllow,omitempty"`
	NetworkInstallHTTPDeny  []string `json:"networkInstallHTTPDeny,omitempty"`
	NetworkRuntimeHTTPAllow []string `json:"networkRuntimeHTTPAllow,omitempty"`
	NetworkRuntimeHTTPDeny  []string `json:"networkRuntimeHTTPDeny,omitempty"`
	CredentialsInstall      []string `json:"credentialsInstall,omitempty"`
	CredentialsRuntime      []string `json:"credentialsRuntime,omitempty"`
	// CredentialsInstallInject and CredentialsRuntimeInject are the hosts
	// a credential's secret is presented to, as "service host": its
	// inject domains, OAuth token endpoint and resource hosts.
	CredentialsInstallInject []string `json:"credentialsInstallInject,omitempty"`
	CredentialsRuntimeInject []string `json:"credentialsRuntimeInject,omitempty"`
	// CredentialsInstallRaw and CredentialsRuntimeRaw are the services
	// whose secret itself enters the sandbox: an apiKey with a name and
	// without proxyManaged: true.
	CredentialsInstallRaw []string `json:"credentialsInstallRaw,omitempty"`
	CredentialsRuntimeRaw []string `json:"credentialsRuntimeRaw,omitempty"`
	SSHAgent              []string `json:"sshAgent,omitempty"`
	StoragePaths          []string `json:"storagePaths,omitempty"`
	HostMountPaths        []string `json:"hostMountPaths,omitempty"`
	SkillsPaths           []string `json:"skillsPaths,omitempty"`
	SkillsWritePaths      []string `json:"skillsWritePaths,omitempty"`
	Ports                 []string `json:"ports,omitempty"`
	USB                   []string `json:"usb,omitempty"`
	Privileged            bool     `json:"privileged,omitempty"`
	// Services holds one entry per other request: its type, plus a digest
	// of its config when it has one, so any config change is a new entry.
	Services []string `json:"services,omitempty"`
	// Invalid holds the grants whose value is not what its field takes (a
	// host that is not a host pattern), as "category: value". No ceiling
	// covers them and a diff reports each new one: a gate fails closed on
	// what it cannot read.
	Invalid []string `json:"invalid,omitempty"`
}

// SurfaceOf computes the permission surface of d, every group member
// counted. Each well-known type that grants something lands in its
// category; a known entry whose config does not decode, and every type
// the specification does not know, lands in Services as its type plus a
// config digest, so nothing a kit requests escapes the surface. A value
// that does not parse as its field's type (a host, say) lands in
// Invalid. The types SPEC-v3 §7.4 says grant nothing (resources@1,
// long-running@1, lifecycle@1, agent-context@1, agent-sessions@1,
// agent-interactive-sessions@1, agent-skill@1, sbx@1 and acp@1) add
// nothing, whatever their config.
func SurfaceOf(d *Descriptor) *Surface {
	var b atomBuilder
	for _, e := range d.Entries() {
		b.add(e.Capability)
	}
	return b.surface()
}

// atomBuilder collects the atoms of a surface.
type atomBuilder struct {
	atoms      []Atom
	privileged bool
}

func (b *atomBuilder) put(a Atom) { b.atoms = append(b.atoms, a) }

func (b *atomBuilder) service(c Capability) {
	b.put(serviceAtom(c))
}

func (b *atomBuilder) add(c Capability) {
	switch c.Type {
	case TypeNetworkPolicy, TypeNetworkPolicy2:
		b.addNetwork(c)
	case TypeCredential:
		b.addCredential(c)
	case TypeSSHAgent:
		b.addSSHAgent(c)
	case TypeVolume:
		var v Volume
		if DecodeConfig(c.Config, &v) != nil {
			b.service(c)
			return
		}
		// volume@1 identity is the cleaned path
		b.put(Atom{Category: CatStorage, Path: cleanPath(v.Path)})
	case TypeHostMount:
		var m HostMount
		if DecodeConfig(c.Config, &m) != nil {
			b.service(c)
			return
		}
		b.put(Atom{Category: CatHostMount, Path: cleanPath(m.Path)})
	case TypeAgentSkills:
		var sk AgentSkills
		if DecodeConfig(c.Config, &sk) != nil {
			b.service(c)
			return
		}
		b.put(Atom{Category: CatSkills, Path: cleanPath(sk.Path)})
		if sk.Mode == "readwrite" {
			b.put(Atom{Category: CatSkillsWrite, Path: cleanPath(sk.Path)})
		}
	case TypePort:
		var p Port
		if DecodeConfig(c.Config, &p) == nil {
			b.put(Atom{Category: CatPorts, Value: p.Key()})
		} else {
			b.service(c)
		}
	case TypeUSBDevice:
		b.addUSB(c)
	case TypePrivileged:
		b.privileged = true
	case TypeResources, TypeLongRunning, TypeAgentSkill, TypeAgentSessions, TypeAgentInteractiveSessions,
		TypeLifecycle, TypeAgentContext, TypeSBX, TypeACP:
		// Not permissions (SPEC-v3 §7.4): limits, in-sandbox declarations
		// on the entrypoint's trust plane, content the image already
		// carries. acp@1 teaches the host how to drive an agent already
		// installed (acp@1/declaration-grants-nothing).
	default:
		b.service(c)
	}
}

// cleanPath cleans an absolute path; a path that is not absolute stays as
// written (validation refuses it, and no path pattern covers it).
func cleanPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		return p
	}
	return path.Clean(p)
}

// addNetwork adds a network policy: connection grants from unbounded
// entries, HTTP grants from every entry.
func (b *atomBuilder) addNetwork(c Capability) {
	var np NetworkPolicy
	if DecodeConfig(c.Config, &np) != nil {
		b.service(c)
		return
	}
	for _, phase := range []string{"install", "runtime"} {
		rules := np.Phase(phase)
		if rules == nil {
			continue
		}
		for _, l := range []struct {
			entries []NetworkEntry
			list    string
		}{{rules.Allow, "allow"}, {rules.Deny, "deny"}} {
			conn, http := "network."+phase+"."+l.list, "network."+phase+".http."+l.list
			for _, e := range l.entries {
				for _, hs := range e.Hosts {
					h, err := ParseHost(hs)
					if err != nil {
						b.put(invalidAtom(map[bool]string{true: http, false: conn}[e.Bounded()], hs))
						continue
					}
					if !e.Bounded() {
						b.put(Atom{Category: conn, Host: h})
					}
					b.httpAtoms(http, h, e)
				}
			}
		}
	}
}

// httpAtoms adds an entry's "<METHOD> <host><path>" grants for one host:
// ANY for no methods, /** for no paths, each path cleaned.
func (b *atomBuilder) httpAtoms(category string, h Host, e NetworkEntry) {
	methods := e.Methods
	if len(methods) == 0 || slices.Contains(methods, "ANY") {
		methods = []string{"ANY"}
	}
	paths := e.Paths
	if len(paths) == 0 {
		paths = []string{"/**"}
	}
	for _, m := range methods {
		for _, p := range paths {
			if !httpMethodRE.MatchString(m) || !strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t\n") {
				b.put(invalidAtom(category, m+" "+h.String()+p))
				continue
			}
			b.put(Atom{Category: category, Method: m, Host: h, Path: cleanHTTPPath(p)})
		}
	}
}

// cleanHTTPPath cleans a path glob, keeping a trailing "/" (a prefix
// boundary some matchers read) as written.
func cleanHTTPPath(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// addCredential adds a credential per phase: the service, every host its
// secret is presented to, and whether the secret enters the sandbox.
func (b *atomBuilder) addCredential(c Capability) {
	var cr Credential
	if DecodeConfig(c.Config, &cr) != nil {
		b.service(c)
		return
	}
	var hosts []string
	raw := false
	if k := cr.APIKey; k != nil {
		for _, in := range k.Inject {
			hosts = append(hosts, in.Domain)
		}
		raw = k.Name != "" && (k.ProxyManaged == nil || !*k.ProxyManaged)
	}
	if o := cr.OAuth; o != nil {
		if o.TokenEndpoint != nil {
			hosts = append(hosts, o.TokenEndpoint.Host)
		}
		hosts = append(hosts, o.ResourceHosts...)
	}
	for _, p := range cr.Phase {
		if p != "install" {
			p = "runtime"
		}
		b.put(Atom{Category: "credentials." + p, Value: cr.Service})
		if raw {
			b.put(Atom{Category: "credentials." + p + ".raw", Value: cr.Service})
		}
		for _, hs := range hosts {
			h, err := ParseHost(hs)
			if err != nil || strings.ContainsAny(cr.Service, " ") {
				b.put(invalidAtom("credentials."+p+".inject", cr.Service+" "+hs))
				continue
			}
			b.put(Atom{Category: "credentials." + p + ".inject", Value: cr.Service, Host: h})
		}
	}
}

// addSSHAgent adds what the agent may do per phase: everything
// ("<phase>"), or each namespace it signs and destination it
// authenticates to.
func (b *atomBuilder) addSSHAgent(c Capability) {
	var sa SSHAgent
	if DecodeConfig(c.Config, &sa) != nil {
		b.service(c)
		return
	}
	for _, p := range sa.Phase {
		if sa.Unrestricted == nil || *sa.Unrestricted {
			b.put(Atom{Category: CatSSHAgent, Value: p})
			continue
		}
		for _, ns := range sa.Sign {
			b.put(Atom{Category: CatSSHAgent, Value: p + " sign " + ns})
		}
		for _, dst := range sa.Authenticate {
			b.put(Atom{Category: CatSSHAgent, Value: p + " authenticate " + dst})
		}
	}
}

func (b *atomBuilder) addUSB(c Capability) {
	var u USBDevice
	if DecodeConfig(c.Config, &u) != nil {
		b.service(c)
		return
	}
	if u.Class != "" {
		b.put(Atom{Category: CatUSB, Value: "class:" + u.Class})
	} else {
		b.put(Atom{Category: CatUSB, Value: u.VendorID + ":" + u.ProductID})
	}
}

func serviceAtom(c Capability) Atom {
	a := Atom{Category: CatServices, Value: c.Type}
	if len(c.Config) == 0 {
		return a
	}
	bs, err := json.Marshal(c.Config)
	if err != nil {
		a.Config = "unencodable-config"
		return a
	}
	sum := sha256.Sum256(bs)
	a.Config = hex.EncodeToString(sum[:6])
	return a
}

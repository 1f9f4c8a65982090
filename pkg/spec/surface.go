package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
)

// Surface is a descriptor's permission surface (SPEC-v3 §7.4): everything a
// user approves when a kit is granted, normalized (deduplicated, sorted) so
// two surfaces compare with ==-like equality and diff by category.
// Capability names and optional flags never change it; every group member
// counts, selected or not.
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
	SSHAgent                []string `json:"sshAgent,omitempty"`
	StoragePaths            []string `json:"storagePaths,omitempty"`
	HostMountPaths          []string `json:"hostMountPaths,omitempty"`
	SkillsPaths             []string `json:"skillsPaths,omitempty"`
	SkillsWritePaths        []string `json:"skillsWritePaths,omitempty"`
	Ports                   []string `json:"ports,omitempty"`
	USB                     []string `json:"usb,omitempty"`
	Privileged              bool     `json:"privileged,omitempty"`
	// Services holds one entry per other request: its type, plus a digest
	// of its config when it has one, so any config change is a new entry.
	Services []string `json:"services,omitempty"`
}

// SurfaceOf computes the permission surface of d, every group member
// counted. Each well-known type that grants something lands in its
// category; a known entry whose config does not decode, and every type
// the specification does not know, lands in Services as its type plus a
// config digest, so nothing a kit requests escapes the surface. The types
// SPEC-v3 §7.4 says grant nothing (resources@1, long-running@1,
// lifecycle@1, agent-context@1, agent-sessions@1,
// agent-interactive-sessions@1, agent-skill@1, sbx@1 and acp@1) add
// nothing, whatever their config.
func SurfaceOf(d *Descriptor) *Surface {
	s := &Surface{}
	for _, e := range d.Entries() {
		s.add(e.Capability)
	}
	s.normalize()
	return s
}

func (s *Surface) add(c Capability) {
	switch c.Type {
	case TypeNetworkPolicy, TypeNetworkPolicy2:
		s.addNetwork(c)
	case TypeCredential:
		var cr Credential
		if DecodeConfig(c.Config, &cr) != nil {
			s.Services = append(s.Services, serviceEntry(c))
			return
		}
		for _, p := range cr.Phase {
			if p == "install" {
				s.CredentialsInstall = append(s.CredentialsInstall, cr.Service)
			} else {
				s.CredentialsRuntime = append(s.CredentialsRuntime, cr.Service)
			}
		}
	case TypeSSHAgent:
		s.addSSHAgent(c)
	case TypeVolume:
		var v Volume
		if DecodeConfig(c.Config, &v) != nil {
			s.Services = append(s.Services, serviceEntry(c))
			return
		}
		// volume@1 identity is the cleaned path
		s.StoragePaths = append(s.StoragePaths, path.Clean(v.Path))
	case TypeHostMount:
		var m HostMount
		if DecodeConfig(c.Config, &m) != nil {
			s.Services = append(s.Services, serviceEntry(c))
			return
		}
		s.HostMountPaths = append(s.HostMountPaths, m.Path)
	case TypeAgentSkills:
		var sk AgentSkills
		if DecodeConfig(c.Config, &sk) != nil {
			s.Services = append(s.Services, serviceEntry(c))
			return
		}
		s.SkillsPaths = append(s.SkillsPaths, sk.Path)
		if sk.Mode == "readwrite" {
			s.SkillsWritePaths = append(s.SkillsWritePaths, sk.Path)
		}
	case TypePort:
		var p Port
		if DecodeConfig(c.Config, &p) == nil {
			s.Ports = append(s.Ports, p.Key())
		} else {
			s.Services = append(s.Services, serviceEntry(c))
		}
	case TypeUSBDevice:
		s.addUSB(c)
	case TypePrivileged:
		s.Privileged = true
	case TypeResources, TypeLongRunning, TypeAgentSkill, TypeAgentSessions, TypeAgentInteractiveSessions,
		TypeLifecycle, TypeAgentContext, TypeSBX, TypeACP:
		// Not permissions (SPEC-v3 §7.4): limits, in-sandbox declarations
		// on the entrypoint's trust plane, content the image already
		// carries. acp@1 teaches the host how to drive an agent already
		// installed (acp@1/declaration-grants-nothing).
	default:
		s.Services = append(s.Services, serviceEntry(c))
	}
}

// addNetwork adds a network policy: connection grants from unbounded
// entries, HTTP grants from every entry.
func (s *Surface) addNetwork(c Capability) {
	var np NetworkPolicy
	if DecodeConfig(c.Config, &np) != nil {
		s.Services = append(s.Services, serviceEntry(c))
		return
	}
	for _, ph := range []struct {
		rules                            *NetworkRules
		allow, deny, httpAllow, httpDeny *[]string
	}{
		{np.Install, &s.NetworkInstallAllow, &s.NetworkInstallDeny, &s.NetworkInstallHTTPAllow, &s.NetworkInstallHTTPDeny},
		{np.Runtime, &s.NetworkRuntimeAllow, &s.NetworkRuntimeDeny, &s.NetworkRuntimeHTTPAllow, &s.NetworkRuntimeHTTPDeny},
	} {
		if ph.rules == nil {
			continue
		}
		for _, e := range ph.rules.Allow {
			if !e.Bounded() {
				*ph.allow = append(*ph.allow, e.Hosts...)
			}
			*ph.httpAllow = append(*ph.httpAllow, httpAtoms(e)...)
		}
		for _, e := range ph.rules.Deny {
			if !e.Bounded() {
				*ph.deny = append(*ph.deny, e.Hosts...)
			}
			*ph.httpDeny = append(*ph.httpDeny, httpAtoms(e)...)
		}
	}
}

// addSSHAgent adds what the agent may do per phase: everything
// ("<phase>"), or each namespace it signs and destination it
// authenticates to.
func (s *Surface) addSSHAgent(c Capability) {
	var sa SSHAgent
	if DecodeConfig(c.Config, &sa) != nil {
		s.Services = append(s.Services, serviceEntry(c))
		return
	}
	for _, p := range sa.Phase {
		if sa.Unrestricted == nil || *sa.Unrestricted {
			s.SSHAgent = append(s.SSHAgent, p)
			continue
		}
		for _, ns := range sa.Sign {
			s.SSHAgent = append(s.SSHAgent, p+" sign "+ns)
		}
		for _, dst := range sa.Authenticate {
			s.SSHAgent = append(s.SSHAgent, p+" authenticate "+dst)
		}
	}
}

func (s *Surface) addUSB(c Capability) {
	var u USBDevice
	if DecodeConfig(c.Config, &u) != nil {
		s.Services = append(s.Services, serviceEntry(c))
		return
	}
	if u.Class != "" {
		s.USB = append(s.USB, "class:"+u.Class)
	} else {
		s.USB = append(s.USB, u.VendorID+":"+u.ProductID)
	}
}

// httpAtoms renders an entry as "<METHOD> <host><path>" grants.
func httpAtoms(e NetworkEntry) []string {
	methods := e.Methods
	if len(methods) == 0 || containsStr(methods, "ANY") {
		methods = []string{"ANY"}
	}
	paths := e.Paths
	if len(paths) == 0 {
		paths = []string{"/**"}
	}
	var out []string
	for _, h := range e.Hosts {
		for _, m := range methods {
			for _, p := range paths {
				out = append(out, m+" "+h+p)
			}
		}
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func serviceEntry(c Capability) string {
	if len(c.Config) == 0 {
		return c.Type
	}
	b, err := json.Marshal(c.Config)
	if err != nil {
		return c.Type + "+unencodable-config"
	}
	sum := sha256.Sum256(b)
	return c.Type + "+" + hex.EncodeToString(sum[:6])
}

func (s *Surface) lists() []struct {
	name string
	list *[]string
} {
	return []struct {
		name string
		list *[]string
	}{
		{"network.install.allow", &s.NetworkInstallAllow}, {"network.install.deny", &s.NetworkInstallDeny},
		{"network.runtime.allow", &s.NetworkRuntimeAllow}, {"network.runtime.deny", &s.NetworkRuntimeDeny},
		{"network.install.http.allow", &s.NetworkInstallHTTPAllow}, {"network.install.http.deny", &s.NetworkInstallHTTPDeny},
		{"network.runtime.http.allow", &s.NetworkRuntimeHTTPAllow}, {"network.runtime.http.deny", &s.NetworkRuntimeHTTPDeny},
		{"credentials.install", &s.CredentialsInstall}, {"credentials.runtime", &s.CredentialsRuntime},
		{"ssh-agent", &s.SSHAgent}, {"storage", &s.StoragePaths}, {"host-mount", &s.HostMountPaths},
		{"skills", &s.SkillsPaths}, {"skills.write", &s.SkillsWritePaths},
		{"ports", &s.Ports}, {"usb", &s.USB}, {"services", &s.Services},
	}
}

func (s *Surface) normalize() {
	for _, l := range s.lists() {
		*l.list = normalized(*l.list)
	}
}

func normalized(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	sort.Strings(in)
	out := in[:0]
	for i, v := range in {
		if i == 0 || v != in[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// Widening is one permission a candidate surface grants beyond another.
type Widening struct {
	Category string `json:"category"`
	Detail   string `json:"detail"`
}

// String formats w as "category: detail".
func (w Widening) String() string { return w.Category + ": " + w.Detail }

// Widenings lists what candidate grants beyond s (SPEC-v3
// §7.4/widenings-gate), in this order: new connection allow hosts
// (install, runtime), removed deny hosts, new HTTP grants not covered by a
// granted one (a grant whose host is itself newly allowed is not repeated),
// removed HTTP deny rules not covered by a remaining one, new credentials
// (install, runtime), new SSH agent grants, storage, host mount, skills
// and skills-write paths, ports, USB devices, privileged execution, and
// other requests (services). Narrowings are not reported.
func (s *Surface) Widenings(candidate *Surface) []Widening {
	g, c := s, candidate
	var out []Widening
	add := func(category string, details []string) {
		for _, d := range details {
			out = append(out, Widening{Category: category, Detail: d})
		}
	}
	newInstall := setDiff(c.NetworkInstallAllow, g.NetworkInstallAllow)
	newRuntime := setDiff(c.NetworkRuntimeAllow, g.NetworkRuntimeAllow)
	droppedInstall := setDiff(g.NetworkInstallDeny, c.NetworkInstallDeny)
	droppedRuntime := setDiff(g.NetworkRuntimeDeny, c.NetworkRuntimeDeny)
	add("network.install.allow", newInstall)
	add("network.runtime.allow", newRuntime)
	add("network.install.deny-removed", droppedInstall)
	add("network.runtime.deny-removed", droppedRuntime)
	add("network.install.http.allow", httpWidenings(completeHTTP(g.NetworkInstallHTTPAllow, g.NetworkInstallAllow), c.NetworkInstallHTTPAllow, c.NetworkInstallAllow, newInstall))
	add("network.runtime.http.allow", httpWidenings(completeHTTP(g.NetworkRuntimeHTTPAllow, g.NetworkRuntimeAllow), c.NetworkRuntimeHTTPAllow, c.NetworkRuntimeAllow, newRuntime))
	add("network.install.http.deny-removed", httpDenyRemovals(g.NetworkInstallHTTPDeny, c.NetworkInstallHTTPDeny, droppedInstall))
	add("network.runtime.http.deny-removed", httpDenyRemovals(g.NetworkRuntimeHTTPDeny, c.NetworkRuntimeHTTPDeny, droppedRuntime))
	add("credentials.install", setDiff(c.CredentialsInstall, g.CredentialsInstall))
	add("credentials.runtime", setDiff(c.CredentialsRuntime, g.CredentialsRuntime))
	add("ssh-agent", sshWidenings(g.SSHAgent, c.SSHAgent))
	add("storage", setDiff(c.StoragePaths, g.StoragePaths))
	add("host-mount", setDiff(c.HostMountPaths, g.HostMountPaths))
	add("skills", setDiff(c.SkillsPaths, g.SkillsPaths))
	add("skills.write", setDiff(c.SkillsWritePaths, g.SkillsWritePaths))
	add("ports", setDiff(c.Ports, g.Ports))
	add("usb", setDiff(c.USB, g.USB))
	if c.Privileged && !g.Privileged {
		out = append(out, Widening{Category: "privileged", Detail: PrivilegedGrant})
	}
	add("services", setDiff(c.Services, g.Services))
	return out
}

// setDiff returns the elements of a missing from b.
func setDiff(a, b []string) []string {
	have := make(map[string]bool, len(b))
	for _, x := range b {
		have[x] = true
	}
	var out []string
	for _, x := range a {
		if !have[x] {
			out = append(out, x)
		}
	}
	return out
}

// completeHTTP adds the unbounded HTTP grant of every connection host no
// HTTP grant mentions, for surfaces recorded without HTTP grants.
func completeHTTP(atoms, hosts []string) []string {
	named := map[string]bool{}
	for _, a := range atoms {
		_, h, _ := parseAtom(a)
		named[stripPort(h)] = true
	}
	out := append([]string(nil), atoms...)
	for _, h := range hosts {
		if !named[stripPort(h)] {
			out = append(out, "ANY "+h+"/**")
		}
	}
	return out
}

// httpWidenings returns the candidate HTTP grants no granted one covers,
// leaving out those whose host is itself a new connection grant.
func httpWidenings(granted, candidate, candHosts, newHosts []string) []string {
	isNew := map[string]bool{}
	for _, h := range newHosts {
		isNew[h] = true
	}
	var out []string
	for _, a := range candidate {
		if coveredHTTP(a, granted) {
			continue
		}
		_, h, _ := parseAtom(a)
		if hostIsNew(h, candHosts, isNew) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// hostIsNew reports whether an HTTP grant's host was newly allowed as a
// connection: a host:port by that host or its bare name, a bare name when
// every allowed host of that name is new.
func hostIsNew(h string, candHosts []string, isNew map[string]bool) bool {
	if strings.Contains(h, ":") {
		return isNew[h] || isNew[stripPort(h)]
	}
	n := 0
	for _, c := range candHosts {
		if stripPort(c) != h {
			continue
		}
		if !isNew[c] {
			return false
		}
		n++
	}
	return n > 0
}

// httpDenyRemovals returns the granted HTTP deny rules the candidate no
// longer covers, leaving out those whose host left the connection deny
// list (already reported).
func httpDenyRemovals(granted, candidate, droppedHosts []string) []string {
	dropped := map[string]bool{}
	for _, h := range droppedHosts {
		dropped[h] = true
	}
	var out []string
	for _, a := range granted {
		_, h, _ := parseAtom(a)
		if dropped[h] || coveredHTTP(a, candidate) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// sshWidenings returns the candidate SSH agent grants the granted ones do
// not cover: an unbounded phase covers everything in it, and
// "authenticate host" covers "authenticate user@host".
func sshWidenings(granted, candidate []string) []string {
	have := map[string]bool{}
	for _, x := range granted {
		have[x] = true
	}
	var out []string
	for _, x := range candidate {
		phase, rest, _ := strings.Cut(x, " ")
		if have[x] || have[phase] {
			continue
		}
		if verb, dst, ok := strings.Cut(rest, " "); ok && verb == "authenticate" {
			if _, host, hasUser := strings.Cut(dst, "@"); hasUser && have[phase+" authenticate "+host] {
				continue
			}
		}
		out = append(out, x)
	}
	return out
}

// coveredHTTP reports whether a granted HTTP grant covers atom: a host
// that is the same name (with no port or the same port) or a bare * or
// **, the same method or ANY, and the same path or a /** prefix of it.
func coveredHTTP(atom string, granted []string) bool {
	m, host, p := parseAtom(atom)
	for _, g := range granted {
		gm, gh, gp := parseAtom(g)
		if !hostCovers(gh, host) || gm != m && gm != "ANY" {
			continue
		}
		if gp == p || strings.HasSuffix(gp, "/**") && (strings.HasPrefix(p, strings.TrimSuffix(gp, "**")) || p+"/" == strings.TrimSuffix(gp, "**")) {
			return true
		}
	}
	return false
}

func hostCovers(granted, host string) bool {
	if granted == "*" || granted == "**" {
		return true
	}
	gname, gport, _ := strings.Cut(granted, ":")
	name, port, _ := strings.Cut(host, ":")
	return gname == name && (gport == "" || gport == port)
}

// parseAtom splits "<METHOD> <host><path>".
func parseAtom(a string) (method, host, path string) {
	method, rest, _ := strings.Cut(a, " ")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return method, rest[:i], rest[i:]
	}
	return method, rest, ""
}

// String renders the surface one grant per line, for reviews.
func (s *Surface) String() string {
	var b strings.Builder
	for _, l := range s.lists() {
		for _, x := range *l.list {
			fmt.Fprintf(&b, "%s: %s\n", l.name, x)
		}
	}
	if s.Privileged {
		b.WriteString("privileged: true\n")
	}
	return b.String()
}

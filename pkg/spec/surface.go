package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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

// SurfaceOf computes the permission surface of d.
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
	case TypeVolume:
		if p, ok := c.Config["path"].(string); ok {
			s.StoragePaths = append(s.StoragePaths, p)
		}
	case TypeHostMount:
		if p, ok := c.Config["path"].(string); ok {
			s.HostMountPaths = append(s.HostMountPaths, p)
		}
	case TypeAgentSkills:
		var sk AgentSkills
		if DecodeConfig(c.Config, &sk) == nil {
			s.SkillsPaths = append(s.SkillsPaths, sk.Path)
			if sk.Mode == "readwrite" {
				s.SkillsWritePaths = append(s.SkillsWritePaths, sk.Path)
			}
		}
	case TypePort:
		var p Port
		if DecodeConfig(c.Config, &p) == nil {
			s.Ports = append(s.Ports, p.Key())
		} else {
			s.Services = append(s.Services, serviceEntry(c))
		}
	case TypeUSBDevice:
		var u USBDevice
		if DecodeConfig(c.Config, &u) == nil {
			if u.Class != "" {
				s.USB = append(s.USB, "class:"+u.Class)
			} else {
				s.USB = append(s.USB, u.VendorID+":"+u.ProductID)
			}
		}
	case TypePrivileged:
		s.Privileged = true
	case TypeResources, TypeLongRunning, TypeAgentSkill, TypeAgentSessions, TypeAgentInteractiveSessions,
		TypeLifecycle, TypeAgentContext, TypeSBX:
		// not permissions
	default:
		s.Services = append(s.Services, serviceEntry(c))
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
		{"ssh-agent", &s.SSHAgent}, {"storage", &s.StoragePaths}, {"host-mounts", &s.HostMountPaths},
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

func (w Widening) String() string { return w.Category + ": " + w.Detail }

// Widenings lists what candidate grants beyond s: new allow hosts and
// grants, removed deny rules, new credentials, paths, ports, devices,
// services, and privileged execution. Narrowings are not reported.
func (s *Surface) Widenings(candidate *Surface) []Widening {
	var out []Widening
	granted := s.lists()
	for i, c := range candidate.lists() {
		g := granted[i]
		if strings.HasSuffix(c.name, ".deny") {
			for _, d := range setDiff(*g.list, *c.list) {
				out = append(out, Widening{Category: c.name + "-removed", Detail: d})
			}
			continue
		}
		if strings.Contains(c.name, ".http.allow") {
			for _, a := range setDiff(*c.list, *g.list) {
				if !coveredHTTP(a, *g.list) {
					out = append(out, Widening{Category: c.name, Detail: a})
				}
			}
			continue
		}
		for _, a := range setDiff(*c.list, *g.list) {
			out = append(out, Widening{Category: c.name, Detail: a})
		}
	}
	if candidate.Privileged && !s.Privileged {
		out = append(out, Widening{Category: "privileged", Detail: "requests privileged execution"})
	}
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

// coveredHTTP reports whether a granted HTTP atom covers atom: the same
// host (or a granted * / **), the same method or ANY, and a path the
// granted one covers (equal, or under a granted /** prefix).
func coveredHTTP(atom string, granted []string) bool {
	m, rest, _ := strings.Cut(atom, " ")
	host, p := splitHostPath(rest)
	for _, g := range granted {
		gm, grest, _ := strings.Cut(g, " ")
		gh, gp := splitHostPath(grest)
		if gh != host && gh != "*" && gh != "**" {
			continue
		}
		if gm != m && gm != "ANY" {
			continue
		}
		if gp == p || strings.HasSuffix(gp, "/**") && strings.HasPrefix(p, strings.TrimSuffix(gp, "**")) {
			return true
		}
	}
	return false
}

func splitHostPath(s string) (host, p string) {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
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

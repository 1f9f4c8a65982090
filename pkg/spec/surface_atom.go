package spec

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Surface categories that are not per phase.
const (
	CatSSHAgent    = "ssh-agent"
	CatStorage     = "storage"
	CatHostMount   = "host-mount"
	CatSkills      = "skills"
	CatSkillsWrite = "skills.write"
	CatPorts       = "ports"
	CatUSB         = "usb"
	CatServices    = "services"
	// CatInvalid holds grants whose value does not parse (Surface.Invalid).
	CatInvalid = "invalid"
)

// Atom is one typed grant of a permission surface. Category names the
// surface list it is in ("network.runtime.allow",
// "network.runtime.http.allow", "credentials.runtime.inject",
// "storage"…); the other fields hold its value by kind:
//
//   - network.<phase>.allow and .deny: Host;
//   - network.<phase>.http.allow and .deny: Method, Host and a cleaned
//     Path, kept apart;
//   - credentials.<phase> and credentials.<phase>.raw: the service in
//     Value; credentials.<phase>.inject: the service in Value, the host
//     its secret is presented to in Host;
//   - storage, host-mount, skills, skills.write: the cleaned Path;
//   - services: the type in Value, the config digest (or "") in Config;
//   - ssh-agent, ports, usb, invalid: Value.
//
// Diff and the permission ceiling both judge atoms, so that what one
// sees the other sees.
type Atom struct {
	Category string
	Host     Host
	Method   string
	Path     string
	Value    string
	Config   string
}

// atomKind is how a category's atoms are written.
type atomKind uint8

const (
	kindValue atomKind = iota
	kindHost
	kindHTTP
	kindInject
	kindPath
	kindService
)

func kindOf(category string) atomKind {
	switch {
	case strings.HasPrefix(category, "network.") && strings.Contains(category, ".http."):
		return kindHTTP
	case strings.HasPrefix(category, "network."):
		return kindHost
	case strings.HasPrefix(category, "credentials.") && strings.HasSuffix(category, ".inject"):
		return kindInject
	case category == CatStorage || category == CatHostMount || category == CatSkills || category == CatSkillsWrite:
		return kindPath
	case category == CatServices:
		return kindService
	}
	return kindValue
}

// Detail is the atom's canonical text, as the surface lists, a diff and
// a ceiling violation write it.
func (a Atom) Detail() string {
	switch kindOf(a.Category) {
	case kindHost:
		return a.Host.String()
	case kindHTTP:
		return a.Method + " " + a.Host.String() + a.Path
	case kindInject:
		return a.Value + " " + a.Host.String()
	case kindPath:
		return a.Path
	case kindService:
		if a.Config != "" {
			return a.Value + "+" + a.Config
		}
	}
	return a.Value
}

// ParseAtom reads the canonical text of an atom of category, as the
// surface lists hold it (a surface recorded as JSON, say). Text that does
// not parse as the category's kind is an error.
func ParseAtom(category, text string) (Atom, error) {
	a := Atom{Category: category}
	var err error
	switch kindOf(category) {
	case kindHost:
		a.Host, err = ParseHost(text)
	case kindHTTP:
		m, rest, _ := strings.Cut(text, " ")
		i := strings.IndexByte(rest, '/')
		if i < 0 || !httpMethodRE.MatchString(m) {
			return a, fmt.Errorf("%s: %q is not METHOD host/path", category, text)
		}
		a.Method, a.Path = m, cleanHTTPPath(rest[i:])
		a.Host, err = ParseHost(rest[:i])
	case kindInject:
		svc, h, ok := strings.Cut(text, " ")
		if !ok || svc == "" {
			return a, fmt.Errorf("%s: %q is not service host", category, text)
		}
		a.Value = svc
		a.Host, err = ParseHost(h)
	case kindPath:
		if !strings.HasPrefix(text, "/") {
			return a, fmt.Errorf("%s: %q is not an absolute path", category, text)
		}
		a.Path = cleanPath(text)
	case kindService:
		a.Value = text
		if i := strings.LastIndexByte(text, '+'); i >= 0 && configDigestRE.MatchString(text[i+1:]) {
			a.Value, a.Config = text[:i], text[i+1:]
		}
	default:
		a.Value = text
	}
	if err != nil {
		return a, fmt.Errorf("%s: %w", category, err)
	}
	return a, nil
}

// configDigestRE is the config part of a services atom.
var configDigestRE = regexp.MustCompile(`^([0-9a-f]{12}|unencodable-config)$`)

// ValidType reports whether t is a capability type name,
// <namespace>/<name>@<version>.
func ValidType(t string) bool { return typeRE.MatchString(t) }

func invalidAtom(category, text string) Atom {
	return Atom{Category: CatInvalid, Value: category + ": " + text}
}

// categories are the surface's categories in list order (the order of
// Surface's fields), privileged last.
var categories = []string{
	"network.install.allow", "network.install.deny", "network.runtime.allow", "network.runtime.deny",
	"network.install.http.allow", "network.install.http.deny", "network.runtime.http.allow", "network.runtime.http.deny",
	"credentials.install", "credentials.runtime", "credentials.install.inject", "credentials.runtime.inject",
	"credentials.install.raw", "credentials.runtime.raw",
	CatSSHAgent, CatStorage, CatHostMount, CatSkills, CatSkillsWrite, CatPorts, CatUSB, CatServices, CatInvalid,
	CatPrivileged,
}

// CatPrivileged is the category of privileged@1's one atom.
const CatPrivileged = "privileged"

func catIndex(cat string) int {
	for i, c := range categories {
		if c == cat {
			return i
		}
	}
	return len(categories)
}

// sorted sorts atoms in list order, each category by canonical text,
// and drops duplicates; details are the atoms' canonical texts.
func sorted(atoms []Atom) (out []Atom, details []string) {
	type keyed struct {
		cat    int
		detail string
		a      Atom
	}
	keys := make([]keyed, len(atoms))
	for i, a := range atoms {
		keys[i] = keyed{catIndex(a.Category), a.Detail(), a}
	}
	slices.SortFunc(keys, func(x, y keyed) int {
		return cmp.Or(cmp.Compare(x.cat, y.cat), strings.Compare(x.detail, y.detail))
	})
	out, details = atoms[:0], make([]string, 0, len(keys))
	for i, k := range keys {
		if i > 0 && keys[i-1].cat == k.cat && keys[i-1].detail == k.detail {
			continue
		}
		out = append(out, k.a)
		details = append(details, k.detail)
	}
	return out, details
}

// surface normalizes the atoms and renders them into a Surface.
func (b *atomBuilder) surface() *Surface {
	s := &Surface{}
	atoms, details := b.normalized()
	for i, a := range atoms {
		if a.Category == CatPrivileged {
			s.Privileged = true
		} else if l := s.list(a.Category); l != nil {
			*l = append(*l, details[i])
		}
	}
	return s
}

func (b *atomBuilder) normalized() ([]Atom, []string) {
	if b.privileged {
		b.atoms = append(b.atoms, Atom{Category: CatPrivileged, Value: PrivilegedGrant})
		b.privileged = false
	}
	var details []string
	b.atoms, details = sorted(b.atoms)
	return b.atoms, details
}

// AtomsOf returns the atoms of SurfaceOf(d), in the order Surface.Atoms
// returns them, without rendering and reparsing their text.
func AtomsOf(d *Descriptor) []Atom {
	var b atomBuilder
	for _, e := range d.Entries() {
		b.add(e.Capability)
	}
	atoms, _ := b.normalized()
	return atoms
}

// Atoms returns the surface's grants as typed atoms, in list order (the
// order of Surface's fields), privileged last. A list item that does not
// parse (a hand-edited recording) comes back as an invalid atom, which
// nothing covers.
func (s *Surface) Atoms() []Atom {
	var out []Atom
	for _, l := range s.lists() {
		for _, x := range *l.list {
			a, err := ParseAtom(l.name, x)
			if err != nil {
				a = invalidAtom(l.name, x)
			}
			out = append(out, a)
		}
	}
	if s.Privileged {
		out = append(out, Atom{Category: CatPrivileged, Value: PrivilegedGrant})
	}
	return out
}

// Check reports the first list item of a surface recorded elsewhere (a
// JSON file) that does not parse as its category's kind.
func (s *Surface) Check() error {
	for _, l := range s.lists() {
		if l.name == CatInvalid && len(*l.list) > 0 {
			return fmt.Errorf("the surface records invalid grants (%s)", (*l.list)[0])
		}
		for _, x := range *l.list {
			if _, err := ParseAtom(l.name, x); err != nil {
				return err
			}
		}
	}
	return nil
}

type namedList struct {
	name string
	list *[]string
}

func (s *Surface) lists() []namedList {
	out := make([]namedList, 0, len(categories)-1)
	for _, c := range categories[:len(categories)-1] {
		out = append(out, namedList{c, s.list(c)})
	}
	return out
}

// list returns the list of category, or nil.
func (s *Surface) list(category string) *[]string {
	switch category {
	case "network.install.allow":
		return &s.NetworkInstallAllow
	case "network.install.deny":
		return &s.NetworkInstallDeny
	case "network.runtime.allow":
		return &s.NetworkRuntimeAllow
	case "network.runtime.deny":
		return &s.NetworkRuntimeDeny
	case "network.install.http.allow":
		return &s.NetworkInstallHTTPAllow
	case "network.install.http.deny":
		return &s.NetworkInstallHTTPDeny
	case "network.runtime.http.allow":
		return &s.NetworkRuntimeHTTPAllow
	case "network.runtime.http.deny":
		return &s.NetworkRuntimeHTTPDeny
	case "credentials.install":
		return &s.CredentialsInstall
	case "credentials.runtime":
		return &s.CredentialsRuntime
	case "credentials.install.inject":
		return &s.CredentialsInstallInject
	case "credentials.runtime.inject":
		return &s.CredentialsRuntimeInject
	case "credentials.install.raw":
		return &s.CredentialsInstallRaw
	case "credentials.runtime.raw":
		return &s.CredentialsRuntimeRaw
	case CatSSHAgent:
		return &s.SSHAgent
	case CatStorage:
		return &s.StoragePaths
	case CatHostMount:
		return &s.HostMountPaths
	case CatSkills:
		return &s.SkillsPaths
	case CatSkillsWrite:
		return &s.SkillsWritePaths
	case CatPorts:
		return &s.Ports
	case CatUSB:
		return &s.USB
	case CatServices:
		return &s.Services
	case CatInvalid:
		return &s.Invalid
	}
	return nil
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

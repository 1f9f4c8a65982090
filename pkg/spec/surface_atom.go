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

// surface normalizes the atoms (sorted by category and text,
// deduplicated) and renders them into a Surface.
func (b *atomBuilder) surface() *Surface {
	s := &Surface{Privileged: b.privileged}
	lists := s.byCategory()
	type keyed struct {
		cat, detail string
	}
	keys := make([]keyed, len(b.atoms))
	for i, a := range b.atoms {
		keys[i] = keyed{a.Category, a.Detail()}
	}
	slices.SortFunc(keys, func(x, y keyed) int {
		return cmp.Or(strings.Compare(x.cat, y.cat), strings.Compare(x.detail, y.detail))
	})
	for i, k := range keys {
		if i > 0 && keys[i-1] == k {
			continue
		}
		if l := lists[k.cat]; l != nil {
			*l = append(*l, k.detail)
		}
	}
	return s
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
		out = append(out, Atom{Category: "privileged", Value: PrivilegedGrant})
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
	return []namedList{
		{"network.install.allow", &s.NetworkInstallAllow}, {"network.install.deny", &s.NetworkInstallDeny},
		{"network.runtime.allow", &s.NetworkRuntimeAllow}, {"network.runtime.deny", &s.NetworkRuntimeDeny},
		{"network.install.http.allow", &s.NetworkInstallHTTPAllow}, {"network.install.http.deny", &s.NetworkInstallHTTPDeny},
		{"network.runtime.http.allow", &s.NetworkRuntimeHTTPAllow}, {"network.runtime.http.deny", &s.NetworkRuntimeHTTPDeny},
		{"credentials.install", &s.CredentialsInstall}, {"credentials.runtime", &s.CredentialsRuntime},
		{"credentials.install.inject", &s.CredentialsInstallInject}, {"credentials.runtime.inject", &s.CredentialsRuntimeInject},
		{"credentials.install.raw", &s.CredentialsInstallRaw}, {"credentials.runtime.raw", &s.CredentialsRuntimeRaw},
		{CatSSHAgent, &s.SSHAgent}, {CatStorage, &s.StoragePaths}, {CatHostMount, &s.HostMountPaths},
		{CatSkills, &s.SkillsPaths}, {CatSkillsWrite, &s.SkillsWritePaths},
		{CatPorts, &s.Ports}, {CatUSB, &s.USB}, {CatServices, &s.Services}, {CatInvalid, &s.Invalid},
	}
}

func (s *Surface) byCategory() map[string]*[]string {
	m := map[string]*[]string{}
	for _, l := range s.lists() {
		m[l.name] = l.list
	}
	return m
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

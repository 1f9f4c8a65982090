package spec

import "strings"

// Widening is one permission a candidate surface grants beyond another.
type Widening struct {
	Category string `json:"category"`
	Detail   string `json:"detail"`
}

// String formats w as "category: detail".
func (w Widening) String() string { return w.Category + ": " + w.Detail }

// atomSet is a surface's atoms by category.
type atomSet map[string][]Atom

func atomsByCategory(atoms []Atom) atomSet {
	m := atomSet{}
	for _, a := range atoms {
		m[a.Category] = append(m[a.Category], a)
	}
	return m
}

// details returns the canonical texts of a category's atoms.
func (m atomSet) details(category string) map[string]bool {
	out := make(map[string]bool, len(m[category]))
	for _, a := range m[category] {
		out[a.Detail()] = true
	}
	return out
}

// missing returns the atoms of category in a that b does not hold.
func missing(a, b atomSet, category string) []Atom {
	have := b.details(category)
	var out []Atom
	for _, x := range a[category] {
		if !have[x.Detail()] {
			out = append(out, x)
		}
	}
	return out
}

// Widenings lists what candidate grants beyond s (SPEC-v3
// §7.4/widenings-gate), atom by atom (see Atom), in this order: new
// connection allow hosts (install, runtime), removed deny hosts, new HTTP
// grants not covered by a granted one (a grant whose host is itself newly
// allowed is not repeated), removed HTTP deny rules not covered by a
// remaining one, new credentials (install, runtime), new hosts a
// credential is presented to, credentials newly entering the sandbox
// raw, new SSH agent grants, storage, host mount, skills and skills-write
// paths, ports, USB devices, privileged execution, other requests
// (services), and grants that do not parse (invalid). Hosts compare as
// parsed (case and a trailing dot do not count); narrower globs are not
// expanded, so a host newly written under an already granted pattern is
// reported. Narrowings are not reported.
func (s *Surface) Widenings(candidate *Surface) []Widening {
	return Widenings(s.Atoms(), candidate.Atoms())
}

// Widenings is Surface.Widenings on atoms (AtomsOf, Surface.Atoms): what
// the candidate atoms grant beyond the granted ones.
func Widenings(granted, candidate []Atom) []Widening {
	g, c := atomsByCategory(granted), atomsByCategory(candidate)
	var out []Widening
	add := func(category string, atoms []Atom) {
		for _, a := range atoms {
			out = append(out, Widening{Category: category, Detail: a.Detail()})
		}
	}
	newHosts := map[string][]Atom{}
	dropped := map[string][]Atom{}
	for _, ph := range []string{"install", "runtime"} {
		newHosts[ph] = missing(c, g, "network."+ph+".allow")
		add("network."+ph+".allow", newHosts[ph])
	}
	for _, ph := range []string{"install", "runtime"} {
		dropped[ph] = missing(g, c, "network."+ph+".deny")
		add("network."+ph+".deny-removed", dropped[ph])
	}
	for _, ph := range []string{"install", "runtime"} {
		granted := completeHTTP(g["network."+ph+".http.allow"], g["network."+ph+".allow"])
		add("network."+ph+".http.allow", httpWidenings(granted, c["network."+ph+".http.allow"], c["network."+ph+".allow"], newHosts[ph]))
	}
	for _, ph := range []string{"install", "runtime"} {
		add("network."+ph+".http.deny-removed", httpDenyRemovals(g["network."+ph+".http.deny"], c["network."+ph+".http.deny"], dropped[ph]))
	}
	for _, cat := range []string{"credentials.install", "credentials.runtime", "credentials.install.inject",
		"credentials.runtime.inject", "credentials.install.raw", "credentials.runtime.raw"} {
		add(cat, missing(c, g, cat))
	}
	add(CatSSHAgent, sshWidenings(g[CatSSHAgent], c[CatSSHAgent]))
	for _, cat := range []string{CatStorage, CatHostMount, CatSkills, CatSkillsWrite, CatPorts, CatUSB} {
		add(cat, missing(c, g, cat))
	}
	add(CatPrivileged, missing(c, g, CatPrivileged))
	add(CatServices, missing(c, g, CatServices))
	add(CatInvalid, missing(c, g, CatInvalid))
	return out
}

// completeHTTP adds the unbounded HTTP grant of every connection host no
// HTTP grant names, for surfaces recorded without HTTP grants.
func completeHTTP(atoms, hosts []Atom) []Atom {
	named := map[string]bool{}
	for _, a := range atoms {
		named[portless(a.Host)] = true
	}
	out := append([]Atom(nil), atoms...)
	for _, h := range hosts {
		if !named[portless(h.Host)] {
			out = append(out, Atom{Method: "ANY", Host: h.Host, Path: "/**"})
		}
	}
	return out
}

func portless(h Host) string {
	h.Port = 0
	return h.String()
}

// httpWidenings returns the candidate HTTP grants no granted one covers,
// leaving out those whose host is itself a new connection grant.
func httpWidenings(granted, candidate, candHosts, newHosts []Atom) []Atom {
	isNew := map[string]bool{}
	for _, h := range newHosts {
		isNew[h.Host.String()] = true
	}
	var out []Atom
	for _, a := range candidate {
		if coveredHTTP(a, granted) || hostIsNew(a.Host, candHosts, isNew) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// hostIsNew reports whether an HTTP grant's host was newly allowed as a
// connection: a host:port by that host or its bare name, a bare name when
// every allowed host of that name is new.
func hostIsNew(h Host, candHosts []Atom, isNew map[string]bool) bool {
	if h.Port != 0 {
		return isNew[h.String()] || isNew[portless(h)]
	}
	n := 0
	for _, c := range candHosts {
		if portless(c.Host) != h.String() {
			continue
		}
		if !isNew[c.Host.String()] {
			return false
		}
		n++
	}
	return n > 0
}

// httpDenyRemovals returns the granted HTTP deny rules the candidate no
// longer covers, leaving out those whose host left the connection deny
// list (already reported).
func httpDenyRemovals(granted, candidate, droppedHosts []Atom) []Atom {
	dropped := map[string]bool{}
	for _, h := range droppedHosts {
		dropped[h.Host.String()] = true
	}
	var out []Atom
	for _, a := range granted {
		if dropped[a.Host.String()] || coveredHTTP(a, candidate) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// sshWidenings returns the candidate SSH agent grants the granted ones do
// not cover: an unbounded phase covers everything in it, and
// "authenticate host" covers "authenticate user@host".
func sshWidenings(granted, candidate []Atom) []Atom {
	have := map[string]bool{}
	for _, x := range granted {
		have[x.Value] = true
	}
	var out []Atom
	for _, a := range candidate {
		x := a.Value
		phase, rest, _ := strings.Cut(x, " ")
		if have[x] || have[phase] {
			continue
		}
		if verb, dst, ok := strings.Cut(rest, " "); ok && verb == "authenticate" {
			if _, host, hasUser := strings.Cut(dst, "@"); hasUser && have[phase+" authenticate "+host] {
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// coveredHTTP reports whether a granted HTTP grant covers a: a host that
// is the same pattern (with no port or the same port) or one for every
// host, the same method or ANY, and the same cleaned path or a /** prefix
// of it.
func coveredHTTP(a Atom, granted []Atom) bool {
	for _, g := range granted {
		if !httpHostCovers(g.Host, a.Host) || g.Method != a.Method && g.Method != "ANY" {
			continue
		}
		if PathGlobCovers(g.Path, a.Path) {
			return true
		}
	}
	return false
}

func httpHostCovers(g, h Host) bool {
	if g.Port != 0 && g.Port != h.Port {
		return false
	}
	return g.Kind == HostAny || g.Kind == h.Kind && g.Name == h.Name
}

// PathGlobCovers reports whether the path pattern pattern covers p, both
// absolute and cleaned: the same path, or dir/** for dir and everything
// under it (/** for every path).
func PathGlobCovers(pattern, p string) bool {
	if pattern == p {
		return true
	}
	dir, ok := strings.CutSuffix(pattern, "/**")
	if !ok || !strings.HasPrefix(p, "/") {
		return false
	}
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

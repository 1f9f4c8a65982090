package review

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// FuzzGates feeds random descriptors through the surface, the ceiling and
// diff, and holds them to the gates' invariant: when the ceiling passes a
// kit, every atom of its surface is covered by the ceiling (judged again
// here, hosts by an independent matcher on concrete names the atom
// grants); and diff(A, B) lists every atom of B that A does not hold
// (unless a granted HTTP grant covers it or its host is listed), and
// every deny atom of A that B drops. Seeded from the repository's kit
// testdata, in pairs, with the ceilings of the ceiling tests.
func FuzzGates(f *testing.F) {
	var srcs [][]byte
	for _, root := range []string{"testdata", "../spec/testdata/valid"} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
				return err
			}
			if b, err := os.ReadFile(p); err == nil && bytes.HasPrefix(b, []byte(spec.SyntaxLine)) {
				srcs = append(srcs, b)
			}
			return nil
		})
	}
	ceilings := []string{
		"ceiling: {}",
		"ceiling: {network: {runtime: [\"**.example.org\", \"*.example.net:443\", api.example.com], install: [\"*\"]}, credentials: [github], hostMounts: [/home/agent/**], volumes: [/data], skills: [/skills/**], ports: true}",
		"ceiling: {network: {runtime: [\"*\"]}, credentials: [example, github], rawCredentials: [github], sshAgent: true, usb: true, privileged: true, services: [com.docker.sandbox/git-identity@1]}",
	}
	for i := 1; i < len(srcs) && i < 40; i++ {
		f.Add(srcs[i-1], srcs[i], ceilings[i%len(ceilings)])
	}
	f.Fuzz(func(t *testing.T, a, b []byte, ceiling string) {
		old, new := fuzzKit(a), fuzzKit(b)
		if old == nil || new == nil {
			return
		}
		p, err := ParsePolicy("p.yaml", []byte("policyVersion: \"1\"\n"+ceiling))
		if err != nil || p.Ceiling == nil || p.Ceiling.Baseline != nil {
			return
		}
		r, err := CheckKit(new, p)
		if err != nil {
			t.Fatal(err)
		}
		atoms := spec.AtomsOf(new.Descriptor)
		if r.OK() {
			for _, x := range atoms {
				if !oracleCovers(p.Ceiling, x) {
					t.Fatalf("the ceiling passes %s %s, which it does not cover", x.Category, x.Detail())
				}
			}
		}
		checkDiffInvariant(t, spec.AtomsOf(old.Descriptor), atoms, Diff(old, new))
	})
}

func fuzzKit(src []byte) *Kit {
	if len(src) > 4096 { // diff's line diff of hook bodies is quadratic in lines
		return nil
	}
	k, err := spec.Parse("k.yaml", src)
	if err != nil || k.Descriptor == nil {
		return nil
	}
	return &Kit{Name: "k.yaml", Descriptor: k.Descriptor}
}

// oracleCovers judges one atom against a ceiling without the ceiling
// code: hosts by ceilingMatches on concrete names.
func oracleCovers(c *Ceiling, x spec.Atom) bool {
	phase, kind := atomPhase(x.Category)
	in := func(list []string, s string) bool {
		for _, v := range list {
			if v == s {
				return true
			}
		}
		return false
	}
	hosts := c.Network.Runtime
	if phase == "install" {
		hosts = c.Network.Install
	}
	switch kind {
	case "allow", "http.allow", "inject":
		return ceilingMatches(hosts, x.Host)
	case "deny", "http.deny":
		return true
	case "credential":
		return in(c.Credentials, x.Value)
	case "raw":
		return in(c.RawCredentials, x.Value)
	}
	switch x.Category {
	case spec.CatStorage, spec.CatHostMount, spec.CatSkills:
		list := map[string][]string{spec.CatStorage: c.Volumes, spec.CatHostMount: c.HostMounts, spec.CatSkills: c.Skills}[x.Category]
		for _, pat := range list {
			dir, glob := strings.CutSuffix(pat, "/**")
			if x.Path == pat || glob && (x.Path == dir || strings.HasPrefix(x.Path, dir+"/")) {
				return true
			}
		}
		return false
	case spec.CatSkillsWrite:
		return c.SkillsWrite
	case spec.CatSSHAgent:
		return c.SSHAgent
	case spec.CatPorts:
		return c.Ports
	case spec.CatUSB:
		return c.USB
	case spec.CatPrivileged:
		return c.Privileged
	case spec.CatServices:
		return in(c.Services, x.Value) && !strings.ContainsAny(x.Value, "+ ")
	}
	return false // invalid, or unknown
}

// ceilingMatches reports whether some ceiling pattern matches every
// concrete destination sampled from h: a wildcard label becomes one or
// two labels, a glob's wildcard any text with dots, any port two ports.
func ceilingMatches(patterns []string, h spec.Host) bool {
	var names []string
	switch h.Kind {
	case spec.HostExact:
		names = []string{h.Name}
	case spec.HostOneLabel:
		names = []string{"x." + h.Name}
	case spec.HostAnyLabels:
		names = []string{"x." + h.Name, "a.b." + h.Name}
	case spec.HostGlob:
		names = []string{strings.ReplaceAll(h.Name, "*", "q"), strings.ReplaceAll(h.Name, "*", "q.r-s")}
	default: // every host, or one not known until create
		names = []string{"every.example", "10.9.8.7"}
	}
	ports := []int{1, 65535}
	if h.Port != 0 {
		ports = []int{int(h.Port)}
	}
	for _, p := range patterns {
		all := true
		for _, n := range names {
			for _, port := range ports {
				all = all && patternMatches(p, n, port)
			}
		}
		if all && (h.Kind != spec.HostAny && h.Kind != spec.HostParam || patternAll(p)) {
			return true
		}
	}
	return false
}

func patternAll(p string) bool {
	name, _, _ := strings.Cut(strings.ToLower(p), ":")
	return (name == "*" || name == "**") && !strings.Contains(p, ":")
}

// patternMatches is a plain matcher of one ceiling pattern against one
// concrete host name and port.
func patternMatches(p, name string, port int) bool {
	p = strings.ToLower(p)
	pname, pport, hasPort := strings.Cut(p, ":")
	if hasPort && pport != strconv.Itoa(port) {
		return false
	}
	pname = strings.TrimSuffix(pname, ".")
	switch {
	case pname == "*" || pname == "**":
		return true
	case strings.HasPrefix(pname, "**."):
		return strings.HasSuffix(name, pname[2:])
	case strings.HasPrefix(pname, "*."):
		rest, ok := strings.CutSuffix(name, pname[1:])
		return ok && rest != "" && !strings.Contains(rest, ".")
	}
	return pname == name
}

// checkDiffInvariant holds a diff to the atoms: every atom of new that
// old lacks is a widening, unless an HTTP grant of old covers it, its
// host is a listed widening or an SSH grant of old covers it; every
// deny atom old has and new lacks is a widening (a removed deny) on the
// same terms.
func checkDiffInvariant(t *testing.T, oldAtoms, newAtoms []spec.Atom, r *DiffResult) {
	t.Helper()
	listed := map[string]bool{}
	for _, w := range r.Widenings {
		listed[w.Category+"\x00"+w.Detail] = true
	}
	has := func(atoms []spec.Atom) map[string]bool {
		m := map[string]bool{}
		for _, a := range atoms {
			m[a.Category+"\x00"+a.Detail()] = true
		}
		return m
	}
	inOld, inNew := has(oldAtoms), has(newAtoms)
	hostListed := func(a spec.Atom, suffix string) bool {
		phase, _ := atomPhase(a.Category)
		for _, h := range []spec.Host{a.Host, {Kind: a.Host.Kind, Name: a.Host.Name}} {
			if listed["network."+phase+"."+suffix+"\x00"+h.String()] {
				return true
			}
		}
		return false
	}
	for _, a := range newAtoms {
		_, kind := atomPhase(a.Category)
		if inOld[a.Category+"\x00"+a.Detail()] || kind == "deny" || kind == "http.deny" {
			continue
		}
		if listed[a.Category+"\x00"+a.Detail()] {
			continue
		}
		switch {
		case kind == "http.allow" && (hostListed(a, "allow") || httpCoveredBy(a, oldAtoms)):
		case a.Category == spec.CatSSHAgent:
		default:
			t.Fatalf("diff does not list %s %s, which the old kit does not grant", a.Category, a.Detail())
		}
	}
	for _, a := range oldAtoms {
		_, kind := atomPhase(a.Category)
		if kind != "deny" && kind != "http.deny" || inNew[a.Category+"\x00"+a.Detail()] {
			continue
		}
		if listed[a.Category+"-removed\x00"+a.Detail()] {
			continue
		}
		if kind == "http.deny" && (hostListed(a, "deny-removed") || httpCoveredBy(a, newAtoms)) {
			continue
		}
		t.Fatalf("diff does not list the removed %s %s", a.Category, a.Detail())
	}
}

// httpCoveredBy reports whether an HTTP grant of atoms (or the
// unbounded grant of a connection host of the same phase and list)
// covers a.
func httpCoveredBy(a spec.Atom, atoms []spec.Atom) bool {
	phase, kind := atomPhase(a.Category)
	list := strings.TrimPrefix(kind, "http.")
	for _, g := range atoms {
		gp, gk := atomPhase(g.Category)
		if gp != phase || gk != kind && gk != list {
			continue
		}
		m, p := g.Method, g.Path
		if gk == list {
			m, p = "ANY", "/**"
		}
		sameHost := g.Host.Kind == spec.HostAny && (g.Host.Port == 0 || g.Host.Port == a.Host.Port) ||
			g.Host.Kind == a.Host.Kind && g.Host.Name == a.Host.Name && (g.Host.Port == 0 || g.Host.Port == a.Host.Port)
		if sameHost && (m == "ANY" || m == a.Method) && spec.PathGlobCovers(p, a.Path) {
			return true
		}
	}
	return false
}

package migrate

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// v2Unenforced says why SPEC-v2 §5.2 declared a network entry without
// enforcing it ("a multi-label wildcard"), or "" for a form v2 enforced:
// an exact host, host:port, or a leading single-label wildcard
// (*.example.com), each with or without a numeric port. Such an entry
// granted (or denied) nothing in v2, while v3 enforces what it can parse
// of it, so carrying it verbatim would change the authority. A kit arg
// reference is taken as the value it stands for would be: a host or a
// port.
func v2Unenforced(entry string) string {
	if strings.Contains(entry, "/") {
		return "a CIDR range"
	}
	host, port := splitHostPort(entry)
	switch {
	case port == "*":
		return "a port wildcard"
	case strings.Contains(port, "-") && !strings.Contains(port, "${{"):
		return "a port range"
	case host == "**" || strings.HasPrefix(host, "**."):
		return "a multi-label wildcard"
	case host == "*":
		return "a bare * (in v3 it matches every host)"
	}
	rest := strings.TrimPrefix(host, "*.")
	if strings.Contains(withoutArgRefs(rest), "*") {
		return "a wildcard v2 did not define"
	}
	return ""
}

// splitHostPort splits a network entry at its port colon: the last colon,
// after the closing bracket of an IPv6 literal; a bare IPv6 address
// (several colons, no brackets) has no port.
func splitHostPort(entry string) (host, port string) {
	if strings.HasPrefix(entry, "[") {
		if i := strings.Index(entry, "]"); i >= 0 {
			host, rest := entry[:i+1], entry[i+1:]
			if p, ok := strings.CutPrefix(rest, ":"); ok {
				return host, p
			}
			return host, ""
		}
	}
	plain := withoutArgRefs(entry)
	if strings.Count(plain, ":") != 1 {
		return entry, ""
	}
	i := strings.LastIndex(entry, ":")
	if strings.Contains(entry[i:], "}}") && !strings.Contains(entry[i:], "${{") {
		// the colon is inside an arg reference
		return entry, ""
	}
	return entry[:i], entry[i+1:]
}

// withArgDefaults replaces each ${{ kit.args.NAME }} reference in s by
// the arg's default, when it has one: v2 substituted args before reading
// the entry, so a default of **.example.com was just as unenforced.
func (m *migrator) withArgDefaults(s string) string {
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return s
		}
		name, ok := spec.WholeArgRef(s[i : i+j+2])
		d := deref(lookup(lookup(m.args, name), "default"))
		if !ok || d == nil || d.Kind != yaml.ScalarNode || strings.Contains(d.Value, "${{") {
			// no default to judge by: keep the reference, judged as a host or port
			return s[:i+j+2] + m.withArgDefaults(s[i+j+2:])
		}
		s = s[:i] + d.Value + s[i+j+2:]
	}
}

// withoutArgRefs blanks out every ${{ ... }} reference.
func withoutArgRefs(s string) string {
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + "x" + s[i+j+2:]
	}
}

// unenforced is a v2 network entry not carried over.
type unenforced struct {
	node        *yaml.Node
	field, list string
	why         string
}

// reportUnenforced makes each entry v2 declared but did not enforce an
// action note, kept as a comment at the network policy (or the top of the
// descriptor when nothing else is left of it).
func (m *migrator) reportUnenforced(dropped []unenforced) {
	for _, d := range dropped {
		e := deref(d.node).Value
		effect := "it granted nothing in v2, and v3 would enforce it as a grant: list the hosts it should reach one by one, " +
			"or restore it knowing what v3 makes it grant"
		if d.list == "deny" {
			effect = "it denied nothing in v2, and v3 would enforce it: restore it if the deny is wanted"
		}
		m.action(d.node, d.field, "network-unenforced",
			fmt.Sprintf("%q is %s, which SPEC-v2 §5.2 declared but did not enforce; not carried over: %s", e, d.why, effect))
	}
}

package spec

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HostKind is what a network-policy host pattern names.
type HostKind uint8

// Host pattern kinds.
const (
	// HostExact is one name (or IPv4 address) exactly.
	HostExact HostKind = iota
	// HostOneLabel is *.domain: exactly one more label before domain.
	HostOneLabel
	// HostAnyLabels is **.domain: one or more labels before domain.
	HostAnyLabels
	// HostAny is * or **: every host.
	HostAny
	// HostGlob is a wildcard anywhere else (bedrock-*.example.com,
	// a.*.example.com): outside the specification's portable patterns,
	// so what it matches is the runtime's matcher to decide. Judged
	// conservatively: a * may stand for any text, dots included.
	HostGlob
	// HostParam is a pattern holding an unexpanded ${{ … }} reference, as
	// written: an authored or published descriptor before create-phase
	// expansion. Only a pattern for every host on every port covers it.
	HostParam
)

// Host is a parsed network-policy host pattern or inject domain: lower
// case, one trailing dot dropped (example.org. and example.org are one
// DNS name), and a port or any port. The zero value is not a valid
// host.
type Host struct {
	Kind HostKind
	// Name is the exact name for HostExact, the domain after the
	// wildcard label for HostOneLabel and HostAnyLabels, the whole
	// pattern for HostGlob and HostParam (as written), and "" for
	// HostAny.
	Name string
	// Port is the port the pattern pins, or 0 for any port.
	Port uint16
	// IP reports a HostExact that is an IPv4 address literal.
	IP bool
}

// ErrHost is wrapped by every ParseHost error.
var ErrHost = errors.New("not a host pattern")

// ParseHost parses a host pattern as network-policy@1 and @2 entries,
// credential inject domains and policy ceilings write them: a name or
// IPv4 address, optionally :port (1-65535), where the name may be *
// or ** (every host), or start with a *. or **. label. A wildcard
// elsewhere parses as HostGlob. Refused, as the specification grants
// nothing by them: an empty pattern or label, userinfo (@), a list
// (,), whitespace, percent-encoding, a path, query or fragment (/ ? #),
// IPv6 and CIDR forms, any other character outside letters, digits,
// '-', '_', '.', '*' and one ':', labels over 63 and names over 253
// characters, and a numeric last label that is not an IPv4 address.
func ParseHost(s string) (Host, error) {
	if strings.Contains(s, "${{") {
		if !paramHostRE.MatchString(s) {
			return Host{}, fmt.Errorf("%w: %q holds a reference among characters no host name does", ErrHost, s)
		}
		return Host{Kind: HostParam, Name: s}, nil
	}
	if s == "" {
		return Host{}, fmt.Errorf("%w: it is empty", ErrHost)
	}
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '*' || c == ':' || c == '_' {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			upper = true
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		return Host{}, fmt.Errorf("%w: %q %v", ErrHost, s, hostRune(r))
	}
	if upper {
		s = strings.ToLower(s)
	}
	name, port, hasPort := strings.Cut(s, ":")
	h := Host{}
	if hasPort {
		if strings.Contains(port, ":") {
			return Host{}, fmt.Errorf("%w: %q has more than one ':' (IPv6 addresses are not host patterns)", ErrHost, s)
		}
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 || port[0] == '0' || port[0] == '+' {
			return Host{}, fmt.Errorf("%w: %q: the port %q is not a number from 1 to 65535", ErrHost, s, port)
		}
		h.Port = uint16(n)
	}
	trimmed := strings.HasSuffix(name, ".")
	name = strings.TrimSuffix(name, ".")
	if err := checkLabels(s, name); err != nil {
		return Host{}, err
	}
	switch {
	case name == "*" || name == "**":
		if trimmed {
			return Host{}, fmt.Errorf("%w: %q has an empty label", ErrHost, s)
		}
		h.Kind = HostAny
		return h, nil
	case strings.HasPrefix(name, "**.") && !strings.Contains(name[3:], "*"):
		h.Kind, h.Name = HostAnyLabels, name[3:]
	case strings.HasPrefix(name, "*.") && !strings.Contains(name[2:], "*"):
		h.Kind, h.Name = HostOneLabel, name[2:]
	case strings.Contains(name, "*"):
		h.Kind, h.Name = HostGlob, name
	default:
		h.Kind, h.Name = HostExact, name
	}
	last := name[strings.LastIndexByte(name, '.')+1:]
	if numeric(last) {
		a, err := netip.ParseAddr(name)
		if h.Kind != HostExact || err != nil || !a.Is4() {
			return Host{}, fmt.Errorf("%w: %q ends in a number but is not an IPv4 address", ErrHost, s)
		}
		h.IP = true
	}
	return h, nil
}

// paramHostRE is a host pattern holding references: host characters
// around ${{ kit.args.NAME }} or ${{ kit.env.NAME }}.
var paramHostRE = regexp.MustCompile(`^[A-Za-z0-9.*:_-]*(\$\{\{ *kit\.(args|env)\.[A-Za-z_][A-Za-z0-9_]* *\}\}[A-Za-z0-9.*:_-]*)+$`)

// hostRune refuses a character no host pattern holds, naming what it
// would mean elsewhere.
func hostRune(r rune) error {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.', r == '*', r == ':':
		return nil
	case r == '@':
		return errors.New("holds '@': userinfo is not part of a host")
	case r == ',':
		return errors.New("holds ',': write one host per entry")
	case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f':
		return errors.New("holds whitespace")
	case r == '%':
		return errors.New("holds '%': percent-encoding is not part of a host")
	case r == '/':
		return errors.New("holds '/': a host has no path, and CIDR ranges are not host patterns")
	case r == '#' || r == '?':
		return fmt.Errorf("holds %q: a host has no query or fragment", r)
	case r == '[' || r == ']':
		return errors.New("holds brackets: IPv6 addresses are not host patterns")
	}
	return fmt.Errorf("holds %q, which no host name does", r)
}

// checkLabels refuses empty and over-long labels and names.
func checkLabels(s, name string) error {
	if name == "" {
		return fmt.Errorf("%w: %q names no host", ErrHost, s)
	}
	if len(name) > 253 {
		return fmt.Errorf("%w: %q is longer than 253 characters", ErrHost, s)
	}
	for name != "" {
		l, rest, _ := strings.Cut(name, ".")
		switch {
		case l == "":
			return fmt.Errorf("%w: %q has an empty label", ErrHost, s)
		case len(l) > 63:
			return fmt.Errorf("%w: %q has a label longer than 63 characters", ErrHost, s)
		case rest == "" && strings.HasSuffix(name, "."):
			return fmt.Errorf("%w: %q has an empty label", ErrHost, s)
		}
		name = rest
	}
	return nil
}

func numeric(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// String renders h canonically: lower case, no trailing dot, * for
// every host, :port when pinned.
func (h Host) String() string {
	var n string
	switch h.Kind {
	case HostAny:
		n = "*"
	case HostOneLabel:
		n = "*." + h.Name
	case HostAnyLabels:
		n = "**." + h.Name
	default:
		n = h.Name
	}
	if h.Port != 0 {
		n += ":" + strconv.Itoa(int(h.Port))
	}
	return n
}

// MarshalText renders h as String does.
func (h Host) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText parses a host pattern with ParseHost.
func (h *Host) UnmarshalText(b []byte) error {
	p, err := ParseHost(string(b))
	if err != nil {
		return err
	}
	*h = p
	return nil
}

// Covers reports whether every destination o grants is one h grants,
// as the sandbox proxy matches hosts: a pinned port covers that port
// only (not any port); * covers everything; *.d covers one more label
// before d; **.d covers any number, and the patterns under d
// (*.a.d and **.a.d); a name covers itself. A HostGlob is covered
// only by a pattern that covers whatever its wildcards stand for (any
// text, dots included), and covers only itself.
func (h Host) Covers(o Host) bool {
	if h.Port != 0 && h.Port != o.Port {
		return false
	}
	if h.Kind == HostAny {
		return true
	}
	switch o.Kind {
	case HostAny:
		return false
	case HostParam:
		return h.Kind == HostParam && h.Name == o.Name && h.Port == o.Port
	case HostGlob:
		if h.Kind == HostGlob {
			return h.Name == o.Name
		}
		// The text after the last wildcard is what every expansion
		// ends with; the glob always has a label before it.
		tail := o.Name[strings.LastIndexByte(o.Name, '*')+1:]
		return h.Kind == HostAnyLabels && strings.HasSuffix(tail, "."+h.Name)
	}
	switch h.Kind {
	case HostExact:
		return o.Kind == HostExact && o.Name == h.Name
	case HostOneLabel:
		if o.Kind == HostOneLabel {
			return o.Name == h.Name
		}
		label, ok := strings.CutSuffix(o.Name, "."+h.Name)
		return o.Kind == HostExact && ok && !strings.Contains(label, ".")
	case HostAnyLabels:
		return o.Name == h.Name && o.Kind != HostExact || strings.HasSuffix(o.Name, "."+h.Name)
	}
	return false
}

// NearestLegal returns, for a HostGlob, the narrowest pattern of the
// specification's portable grammar that covers it: *.domain when only
// the first label holds wildcards, **.domain otherwise, * when no
// literal domain follows them. Other kinds return themselves.
func (h Host) NearestLegal() Host {
	if h.Kind != HostGlob {
		return h
	}
	labels := strings.Split(h.Name, ".")
	last := 0
	for i, l := range labels {
		if strings.Contains(l, "*") {
			last = i
		}
	}
	rest := strings.Join(labels[last+1:], ".")
	switch {
	case rest == "":
		return Host{Kind: HostAny, Port: h.Port}
	case last == 0:
		return Host{Kind: HostOneLabel, Name: rest, Port: h.Port}
	}
	return Host{Kind: HostAnyLabels, Name: rest, Port: h.Port}
}

package emulator

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Phase names: install hooks run in the install phase, under the
// network policy's install lists; startup hooks in the runtime phase,
// under its runtime lists.
const (
	PhaseInstall = "install"
	PhaseStartup = "startup"
	PhaseRuntime = "runtime"
)

// phaseRules are one phase's merged allow and deny entries, each kept as
// written ("host", "host:port", with the wildcards the proxy knows).
type phaseRules struct {
	allow, deny []string
	// stated reports a network policy that states the phase at all.
	stated bool
}

// policy is the merged network policy of a composition, per phase.
type policy struct {
	declared bool
	phases   map[string]*phaseRules
}

// policyOf merges every network-policy capability of the merged
// descriptor: allow and deny lists are unioned per phase (SPEC-v3 §9.5).
// A network-policy@2 bounded entry contributes its hosts (the methods and
// paths it bounds are not emulated, and the report says so).
func policyOf(d *spec.Descriptor) (*policy, error) {
	p := &policy{phases: map[string]*phaseRules{PhaseInstall: {}, PhaseRuntime: {}}}
	for _, c := range d.Capabilities {
		if c.Type != spec.TypeNetworkPolicy && c.Type != spec.TypeNetworkPolicy2 {
			continue
		}
		p.declared = true
		var np spec.NetworkPolicy
		if err := spec.DecodeConfig(c.Config, &np); err != nil {
			return nil, fmt.Errorf("reading %s: %w", c.Type, err)
		}
		for _, ph := range []string{PhaseInstall, PhaseRuntime} {
			r := np.Phase(ph)
			if r == nil {
				continue
			}
			pr := p.phases[ph]
			pr.stated = true
			for _, e := range r.Allow {
				pr.allow = append(pr.allow, e.Hosts...)
			}
			for _, e := range r.Deny {
				pr.deny = append(pr.deny, e.Hosts...)
			}
		}
	}
	return p, nil
}

// decision is the proxy's verdict on one connection.
type decision struct {
	allowed bool
	// entry is the allow or deny entry that decided, "" when none did.
	entry string
	// fix says what to change when the connection is refused.
	fix string
}

// decide judges host:port in a phase: deny beats allow, and what no allow
// entry covers is refused.
func (p *policy) decide(phase, host string, port int) decision {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	want := net.JoinHostPort(host, strconv.Itoa(port))
	r := p.phases[phase]
	for _, e := range r.deny {
		if entryCovers(e, host, port) {
			return decision{entry: e, fix: fmt.Sprintf("the %s deny entry %q covers %s: remove it, or narrow it so that it does not", phase, e, want)}
		}
	}
	for _, e := range r.allow {
		if entryCovers(e, host, port) {
			return decision{allowed: true, entry: e}
		}
	}
	var fix string
	switch {
	case !p.declared:
		fix = fmt.Sprintf("declare - type: com.docker.sandbox/network-policy@1 with config: {%s: {allow: [%q]}}", phase, want)
	case !r.stated:
		fix = fmt.Sprintf("add %s: {allow: [%q]} to the network-policy config", phase, want)
	default:
		fix = fmt.Sprintf("add %q to the network-policy %s allow list", want, phase)
	}
	return decision{fix: fix}
}

// entryCovers reports whether a network-policy entry covers host:port as
// the proxy matches them: the host part with spec.HostNameCovers, case
// folded; an entry without a port covers every port, "host:*" too.
func entryCovers(entry, host string, port int) bool {
	entry = strings.ToLower(strings.TrimSpace(entry))
	if entry == "*" || entry == "**" {
		return true
	}
	h, p := entry, ""
	if i := strings.LastIndexByte(entry, ':'); i >= 0 && !strings.Contains(entry[i+1:], "]") {
		h, p = entry[:i], entry[i+1:]
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	if p != "" && p != "*" && p != strconv.Itoa(port) {
		return false
	}
	return spec.HostNameCovers(h, host)
}

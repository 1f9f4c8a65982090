package spec

import "strings"

// checkInjectAllowed enforces inject ⊆ allow (credential@1/inject-domain-in-allow):
// every inject domain of a credential must be an allow host, ports
// stripped, of the network policy in each phase the credential lists,
// unless that phase's allow list holds a bare * or **.
func (v *validator) checkInjectAllowed(b *block, skip map[int]bool) {
	var policy *NetworkPolicy
	for _, e := range b.entries {
		if e.c.Type != TypeNetworkPolicy && e.c.Type != TypeNetworkPolicy2 {
			continue
		}
		var np NetworkPolicy
		if e.decodeLenient(&np) == nil {
			policy = &np
		}
		break
	}
	for i, e := range b.entries {
		if e.c.Type != TypeCredential || skip[i] || b.invalidCred[i] {
			continue
		}
		var cr Credential
		if e.decodeLenient(&cr) != nil || cr.APIKey == nil {
			continue
		}
		for _, phase := range cr.Phase {
			allow := allowHosts(policy.Phase(phase))
			for j, in := range cr.APIKey.Inject {
				host := stripPort(in.Domain)
				if allow[host] || allow["*"] || allow["**"] {
					continue
				}
				msg := "inject domain %q is not in the network policy's %s allow list; add %q to %s allow"
				if policy == nil {
					msg = "inject domain %q has no network policy allowing it in phase %s; add a network-policy capability whose allow list holds %q in %s"
				}
				v.errorf(field(e.f, "config", "apiKey", "inject", j, "domain"), "inject-domain-in-allow", "credential@1/inject-domain-in-allow",
					msg, in.Domain, phase, host, phase)
			}
		}
	}
}

// allowHosts returns the port-stripped hosts of every allow entry,
// bounded entries included.
func allowHosts(r *NetworkRules) map[string]bool {
	out := map[string]bool{}
	if r == nil {
		return out
	}
	for _, e := range r.Allow {
		for _, h := range e.Hosts {
			out[stripPort(h)] = true
		}
	}
	return out
}

// stripPort drops everything from the first colon.
func stripPort(h string) string {
	if i := strings.IndexByte(h, ':'); i >= 0 {
		return h[:i]
	}
	return h
}

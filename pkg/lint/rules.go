package lint

import (
	"fmt"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// DefaultRules returns kitsmith's built-in rules, sorted by ID.
func DefaultRules() []*Rule {
	return []*Rule{
		argRefInComment,
		backgroundWithoutLongRunning,
		egressNotAllowed,
		hookEnvUndeclared,
		hookMissingDockerHost,
		hookMissingProxyEnv,
		hostDockerInternal,
		licenseNotSPDX,
		lifecycleFileWithoutContent,
		literalSecret,
		missingMetadata,
		missingSyntaxLine,
		mixedSpecVocabulary,
		portTrustBoundary,
		proxyEnvOverride,
		sshAgentUndeclared,
		unpinnedBaseImage,
		unpinnedSetKit,
		unsizedVolume,
		unusedArg,
		unverifiedDownload,
		wildcardAllow,
		yaml11Boolean,
	}
}

// at returns a finding at the value of a descriptor field.
func (in *Input) at(field, format string, args ...any) Finding {
	return Finding{Range: in.Kit.PosOf(field), Message: fmt.Sprintf(format, args...)}
}

// hostEntry is one host of a network-policy allow or deny list.
type hostEntry struct {
	Phase, List string // "install"/"runtime", "allow"/"deny"
	// Host is the entry as written; Value is Host with arg references
	// replaced by the args' defaults.
	Host, Value string
	// Field is the dotted path of the host.
	Field   string
	Bounded bool
	Type    string
	// Methods and Paths bound a network-policy@2 entry.
	Methods, Paths []string
	// Entry is the dotted path of the network-policy entry.
	Entry string
}

// describe names the entry in messages, with its value under the arg
// defaults when it holds references.
func (h hostEntry) describe() string {
	if h.Value == h.Host {
		return fmt.Sprintf("%s %s entry %q", h.Phase, h.List, h.Host)
	}
	return fmt.Sprintf("%s %s entry %q (%q with the args' defaults)", h.Phase, h.List, h.Host, h.Value)
}

// withDefaults replaces ${{ kit.args.NAME }} references with the args'
// defaults (an arg without one is left as written).
func (in *Input) withDefaults(s string) string {
	if !strings.Contains(s, "${{") {
		return s
	}
	return spec.ExpandArgRefs(s, func(name string) (string, bool) {
		if a, ok := in.Kit.Descriptor.Args[name]; ok && a.Default != nil {
			return *a.Default, true
		}
		return "", false
	})
}

// networkHosts lists every host of every network-policy entry.
func (in *Input) networkHosts() []hostEntry {
	if in.once("hosts") {
		in.hosts = in.collectHosts()
	}
	return in.hosts
}

func (in *Input) collectHosts() []hostEntry {
	var out []hostEntry
	for _, e := range in.Entries {
		if e.Type != spec.TypeNetworkPolicy && e.Type != spec.TypeNetworkPolicy2 {
			continue
		}
		var np spec.NetworkPolicy
		if spec.DecodeConfig(e.Config, &np) != nil {
			continue
		}
		for _, phase := range []string{"install", "runtime"} {
			rules := np.Phase(phase)
			if rules == nil {
				continue
			}
			for _, l := range []struct {
				name    string
				entries []spec.NetworkEntry
			}{{"allow", rules.Allow}, {"deny", rules.Deny}} {
				for j, en := range l.entries {
					f := fmt.Sprintf("%s.config.%s.%s[%d]", e.Field(), phase, l.name, j)
					for h, host := range en.Hosts {
						hf := f
						if en.Object {
							hf = fmt.Sprintf("%s.hosts[%d]", f, h)
						}
						out = append(out, hostEntry{Phase: phase, List: l.name, Host: host, Value: in.withDefaults(host),
							Field: hf, Bounded: en.Bounded(), Type: e.Type, Methods: en.Methods, Paths: en.Paths, Entry: e.Field()})
					}
				}
			}
		}
	}
	return out
}

// injectDomain is one credential inject rule.
type injectDomain struct {
	Service string
	Phases  []string
	// Domain is as written; Value has arg references replaced by the
	// args' defaults.
	Domain, Value string
	Field         string
}

func (in *Input) injectDomains() []injectDomain {
	if in.once("injects") {
		in.injects = in.collectInjects()
	}
	return in.injects
}

func (in *Input) collectInjects() []injectDomain {
	var out []injectDomain
	for _, e := range in.Entries {
		if e.Type != spec.TypeCredential {
			continue
		}
		var c spec.Credential
		if spec.DecodeConfig(e.Config, &c) != nil || c.APIKey == nil {
			continue
		}
		for j, inj := range c.APIKey.Inject {
			out = append(out, injectDomain{Service: c.Service, Phases: c.Phase, Domain: inj.Domain, Value: in.withDefaults(inj.Domain),
				Field: fmt.Sprintf("%s.config.apiKey.inject[%d].domain", e.Field(), j)})
		}
	}
	return out
}

// hostOf strips a port (and brackets of an IPv6 literal) from a host entry.
func hostOf(h string) string {
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			return h[1:i]
		}
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 && strings.Count(h, ":") == 1 {
		return h[:i]
	}
	return h
}

// portOf returns the port of a host:port entry, or "".
func portOf(h string) string {
	if strings.HasPrefix(h, "[") {
		if i := strings.Index(h, "]:"); i > 0 {
			return h[i+2:]
		}
		return ""
	}
	if strings.Count(h, ":") == 1 {
		return h[strings.IndexByte(h, ':')+1:]
	}
	return ""
}

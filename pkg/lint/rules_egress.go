package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

var egressNotAllowed = &Rule{
	ID:       "egress-not-allowed",
	Severity: SeverityError,
	Summary:  "A lifecycle hook contacts a host that its phase's network-policy allow list does not cover.",
	Rationale: "All egress from a sandbox goes through its proxy, which enforces the kit's network policy phase by " +
		"phase: install hooks run under the install allow list, startup hooks (and the agent) under the runtime one, " +
		"and a phase the policy does not state allows nothing. A hook that downloads from a host its phase does not " +
		"allow fails at sandbox creation with a refused connection, and the author finds out only from the policy log. " +
		"The rule reads every hook and every lifecycle script a hook runs: URLs given to curl, wget and git clone/fetch, " +
		"the mirrors npm, pip, uv, apk and go commands name (--registry, --index-url, GOPROXY=...), and the registries of " +
		"the images docker pull, docker run and docker compose (with a compose file the kit stages) fetch. A command that " +
		"names no host reaches its tool's default registry: for PyPI (pip, uv: pypi.org and files.pythonhosted.org), " +
		"crates.io (cargo: index.crates.io and static.crates.io), RubyGems (gem: rubygems.org) and Docker Hub (images " +
		"without a registry: registry-1.docker.io and auth.docker.io) the rule infers those public hosts, as warnings " +
		"marked inferred. For the Go module proxy, the distributions' archives (apt-get, apk) and the npm and yarn " +
		"registries it names no host, and reports at info level that the egress is unchecked, naming the .kitsmith.yaml " +
		"key (egress.registries.go, .debian, .ubuntu, .alpine, .npm, .yarn) that makes it checked; when the phase allows " +
		"nothing at all, any registry is refused, which is a warning. egress.registries overrides every default, for " +
		"mirrors. It matches hosts the way the " +
		"runtime does: ports, *.domain wildcards (one label), bare * and **, deny entries, and network-policy@2 entries " +
		"bounded to methods and paths. A host written in an install hook is an error; a host inferred from a " +
		"default registry, or contacted by a startup hook (whose runtime policy the user's own policy may widen), is a warning. " +
		"Hosts built from ${{ kit.args.NAME }} are judged with the arg's default; hosts from environment variables the " +
		"kit cannot know are skipped, and so are loopback addresses. Recipe RUN steps run when the kit is built, under " +
		"the builder's network rather than the kit's policy, so they are not checked.",
	Fix: "Add the host to the allow list of the hook's phase in the network-policy capability (install for install hooks, runtime for startup hooks).",
	Check: func(in *Input) []Finding {
		if len(in.Hooks) == 0 || len(in.Kit.Descriptor.Kits) > 0 {
			return nil // a set's policy is the merge of its kits'
		}
		pol := in.policy()
		distro := in.distro()
		var out []Finding
		for _, h := range in.Hooks {
			phase := "runtime"
			if h.Phase == "install" {
				phase = "install"
			}
			seen := map[string]bool{}
			for _, c := range hookCommands(h) {
				for _, ct := range in.contacts(h, c, distro) {
					key := ct.hostPort() + " " + ct.Method + " " + ct.Path + " " + ct.Family // bounded entries judge requests
					if seen[key] {
						continue
					}
					seen[key] = true
					judge := pol.judge
					if ct.Unchecked {
						judge = pol.unchecked
					}
					if f, ok := judge(h, phase, ct); ok {
						out = append(out, f)
					}
				}
			}
		}
		return out
	},
}

// policyView is the kit's network policy as egress-not-allowed matches it.
type policyView struct {
	hosts []hostEntry
	// field is the dotted path of the network-policy entry, "" without one.
	field string
	// phases are the phases the policy states.
	phases map[string]bool
}

func (in *Input) policy() policyView {
	p := policyView{hosts: in.networkHosts(), phases: map[string]bool{}}
	for _, e := range in.Entries {
		if e.Type != spec.TypeNetworkPolicy && e.Type != spec.TypeNetworkPolicy2 {
			continue
		}
		p.field = e.Field()
		for _, ph := range []string{"install", "runtime"} {
			if _, ok := e.Config[ph]; ok {
				p.phases[ph] = true
			}
		}
		break
	}
	return p
}

// judge returns the finding for a contact its phase does not allow.
func (p policyView) judge(h *Hook, phase string, ct contact) (Finding, bool) {
	var bounded []hostEntry
	for _, e := range p.hosts {
		if e.Phase != phase || !hostMatches(e.Value, ct) {
			continue
		}
		if e.List == "deny" {
			f := p.finding(h, phase, ct, fmt.Sprintf("the %s deny entry %q refuses it (deny wins over allow)", phase, e.Value))
			f.Fix = fmt.Sprintf("remove %s from the deny list at %s, or do not contact it from this hook", e.Value, e.Field)
			return f, true
		}
	}
	for _, e := range p.hosts {
		if e.Phase != phase || e.List != "allow" || !hostMatches(e.Value, ct) {
			continue
		}
		if !e.Bounded || boundedCovers(e, ct) {
			return Finding{}, false
		}
		bounded = append(bounded, e)
	}
	why := ""
	switch {
	case len(bounded) > 0:
		req := "its requests"
		if ct.Method != "" {
			req = fmt.Sprintf("a %s %s request", ct.Method, ct.Path)
		}
		why = fmt.Sprintf("the %s allow entry for %q is bounded to methods %v and paths %v, which do not cover %s",
			phase, bounded[0].Value, bounded[0].Methods, bounded[0].Paths, req)
	case p.field == "":
		why = "the kit declares no network-policy, so its " + phase + " phase allows nothing"
	case !p.phases[phase]:
		why = fmt.Sprintf("the network-policy states no %s phase, which allows nothing", phase)
	default:
		why = fmt.Sprintf("no entry of the %s allow list covers it", phase)
	}
	f := p.finding(h, phase, ct, why)
	if len(bounded) > 0 {
		f.Fix = fmt.Sprintf("widen the bounded entry %s to cover %s (add the method or path), or add %q to %s.config.%s.allow",
			bounded[0].Field, ct.Method+" "+ct.Path, ct.hostPort(), p.field, phase)
	}
	return f, true
}

func (p policyView) finding(h *Hook, phase string, ct contact, why string) Finding {
	entry := ct.hostPort()
	how := "contacts"
	sev := SeverityWarning
	if ct.Certain {
		if phase == "install" {
			sev = SeverityError
		}
	} else {
		how = "is expected to contact"
	}
	msg := fmt.Sprintf("%s %s %s (%s), but %s: the sandbox proxy will refuse the connection", h.Label(), how, entry, ct.Via, why)
	switch {
	case ct.Certain:
	case ct.Configured:
		msg += fmt.Sprintf(" (inferred from egress.registries.%s in the lint configuration: a mirror configured elsewhere would change the host)", ct.Family)
	default:
		msg += fmt.Sprintf(" (inferred: %s's public host, the tool's default; if the image points the tool at a mirror, name that host in .kitsmith.yaml as egress.registries.%s)", registryDefaults[ct.Family].Registry, ct.Family)
	}
	var fix string
	switch {
	case p.field == "":
		fix = fmt.Sprintf("declare - type: com.docker.sandbox/network-policy@1 with config: {%s: {allow: [%q]}}", phase, entry)
	case !p.phases[phase]:
		fix = fmt.Sprintf("add %s: {allow: [%q]} to %s.config", phase, entry, p.field)
	default:
		fix = fmt.Sprintf("add %q to %s.config.%s.allow", entry, p.field, phase)
	}
	return Finding{Range: ct.Range, Severity: sev, Message: msg, Fix: fix}
}

// unchecked returns the finding for a command that reaches its family's
// default registry when kitsmith names no host for it: a warning when the
// phase allows nothing at all, so any registry is refused; otherwise
// information that this egress goes unchecked, with the configuration key
// that checks it. A phase that allows every host (* or **) gets nothing.
func (p policyView) unchecked(h *Hook, phase string, ct contact) (Finding, bool) {
	key := "egress.registries." + ct.Family
	command, _, _ := strings.Cut(ct.Via, " (")
	fix := fmt.Sprintf("name the host in .kitsmith.yaml: egress: {registries: {%s: [\"<host>:443\"]}}", ct.Family)
	if p.field == "" || !p.phases[phase] {
		why := "the kit declares no network-policy"
		if p.field != "" {
			why = "the network-policy states no " + phase + " phase"
		}
		return Finding{Range: ct.Range, Severity: SeverityWarning,
			Message: fmt.Sprintf("%s runs %s, which reaches %s, but %s, so its %s phase allows nothing: the sandbox proxy will refuse the connection, whatever host the registry is", h.Label(), command, registryDefaults[ct.Family].Registry, why, phase),
			Fix:     fmt.Sprintf("allow the registry's host in the %s phase; to have kitsmith check it, %s", phase, fix)}, true
	}
	for _, e := range p.hosts {
		if e.Phase == phase && e.List == "allow" && !e.Bounded && (e.Value == "*" || e.Value == "**") {
			return Finding{}, false
		}
	}
	return Finding{Range: ct.Range, Severity: SeverityInfo,
		Message: fmt.Sprintf("%s runs %s, which reaches %s by default, whose host kitsmith does not name: this egress is unchecked until .kitsmith.yaml names the host as %s", h.Label(), command, registryDefaults[ct.Family].Registry, key),
		Fix:     fix}, true
}

// hostMatches reports whether an allow or deny pattern covers a contact,
// as the sandbox proxy matches them: * and ** match everything; *.domain
// matches one more label; a pattern without a port matches every port.
// A pattern that still holds a reference (an arg without a default, a
// kit.env value) is taken to match, since its value is unknown.
func hostMatches(pattern string, ct contact) bool {
	pattern = strings.ToLower(strings.TrimSpace(pattern))
	if pattern == "*" || pattern == "**" || strings.Contains(pattern, "${{") {
		return true
	}
	host, port := hostOf(pattern), portOf(pattern)
	if port != "" && port != "*" && port != ct.Port {
		return false
	}
	names := []string{ct.Host}
	if ct.Host == "host.docker.internal" {
		names = append(names, "localhost") // the proxy sees it rewritten
	}
	for _, name := range names {
		if spec.HostNameCovers(host, name) {
			return true
		}
	}
	return false
}

// boundedCovers reports whether a bounded network-policy@2 allow entry
// covers a contact's request: its method is listed (or ANY) and its path
// matches one of the entry's paths (when it names any). A contact whose
// tool makes several kinds of request is covered only by ANY without paths.
func boundedCovers(e hostEntry, ct contact) bool {
	anyMethod := slices.Contains(e.Methods, "ANY") || len(e.Methods) == 0
	if ct.Method == "" {
		return anyMethod && len(e.Paths) == 0
	}
	if !anyMethod && !slices.Contains(e.Methods, ct.Method) {
		return false
	}
	if len(e.Paths) == 0 {
		return true
	}
	for _, p := range e.Paths {
		if pathGlob(p).MatchString(ct.Path) {
			return true
		}
	}
	return false
}

// pathGlob compiles a path glob: * matches any run of characters, / included.
func pathGlob(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i, part := range strings.Split(p, "*") {
		if i > 0 {
			b.WriteString(".*")
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

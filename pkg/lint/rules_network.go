package lint

import (
	"fmt"
	"strings"
)

var hostDockerInternal = &Rule{
	ID:       "host-docker-internal",
	Severity: SeverityError,
	Summary:  "A network-policy entry or credential inject domain names host.docker.internal, which the sandbox proxy never matches.",
	Rationale: "Requests from the sandbox to host.docker.internal reach the sandbox proxy rewritten to localhost:<port>, " +
		"and the proxy matches policy and credential injection against that rewritten target. An allow rule or inject " +
		"domain that says host.docker.internal therefore never matches: the request is refused, or goes out without " +
		"the credential, silently. Inside hook commands and files, the client URL http://host.docker.internal:<port> is correct.",
	Fix: "Write the sandbox side as localhost: allow localhost:<port>, inject domain localhost. Keep host.docker.internal only in the client URL.",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, h := range in.networkHosts() {
			if !isHostDockerInternal(h.Value) {
				continue
			}
			want := "localhost"
			if port := portOf(h.Value); port != "" {
				want += ":" + port
			}
			f := in.at(h.Field, "%s names host.docker.internal, which the sandbox proxy never matches: it sees the target rewritten to localhost, so the rule does not apply",
				h.describe())
			f.Fix = fmt.Sprintf("write %q here; keep host.docker.internal only in the client URL", want)
			if h.Value != h.Host {
				f.Fix = fmt.Sprintf("make the entry resolve to %q (change the arg's default); keep host.docker.internal only in the client URL", want)
			} else if e, ok := in.tree().replaceScalar(h.Field, want); ok {
				// The old entry never matched: the rewrite makes a dead grant live.
				f.Fixes = in.fix(fmt.Sprintf("write %s (grants %s, which the old entry never did)", want, want), false, e)
			}
			out = append(out, f)
		}
		for _, d := range in.injectDomains() {
			if !isHostDockerInternal(d.Value) {
				continue
			}
			what := fmt.Sprintf("%q", d.Domain)
			if d.Value != d.Domain {
				what = fmt.Sprintf("%q (%q with the args' defaults)", d.Domain, d.Value)
			}
			f := in.at(d.Field, "credential %q injects into %s, which the sandbox proxy never matches: it sees the target rewritten to localhost, so the key is never injected",
				d.Service, what)
			f.Fix = "write domain: localhost (and allow localhost:<port> in every phase of the credential)"
			if d.Value == d.Domain {
				if e, ok := in.tree().replaceScalar(d.Field, "localhost"); ok {
					f.Fixes = in.fix("write domain localhost (the key is then injected, which it never was)", false, e)
				}
			}
			out = append(out, f)
		}
		return out
	},
}

func isHostDockerInternal(h string) bool {
	h = strings.ToLower(hostOf(h))
	return h == "host.docker.internal" || strings.HasSuffix(h, ".host.docker.internal")
}

var wildcardAllow = &Rule{
	ID:       "wildcard-allow",
	Severity: SeverityWarning,
	Summary:  "A runtime allow list holds * or **, which lets the agent reach any host.",
	Rationale: "A bare wildcard in the runtime allow list turns the sandbox's egress policy off for the whole life of the " +
		"agent: any host, any data, any exfiltration. It also disables the inject-domain check, so a typo in a credential " +
		"domain goes unnoticed. A wildcard on one domain (*.example.com) is not a bare wildcard.",
	Fix: "List the hosts the kit needs (api.example.com:443), or a wildcard on one domain (*.example.com).",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, h := range in.networkHosts() {
			if h.Phase != "runtime" || h.List != "allow" {
				continue
			}
			if host := hostOf(h.Value); host == "*" || host == "**" {
				out = append(out, in.at(h.Field, "%s allows every host, for as long as the agent runs; list the hosts the kit needs", h.describe()))
			}
		}
		return out
	},
}

var portTrustBoundary = &Rule{
	ID:       "port-trust-boundary",
	Severity: SeverityInfo,
	Summary:  "An allow entry opens localhost:<port>, making that port the trust boundary.",
	Rationale: "The sandbox proxy reaches host services on localhost:<port> and cannot tell them apart: whatever listens " +
		"on that port on the host is reachable from the sandbox, not only the service the kit meant. Without a port, " +
		"every service on the host's loopback is reachable.",
	Fix: "Keep it if intended: make sure only the intended service listens on that port, and prefer a port of its own.",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, h := range in.networkHosts() {
			if h.List != "allow" {
				continue
			}
			host, port := hostOf(h.Value), portOf(h.Value)
			if host != "localhost" && host != "127.0.0.1" && host != "::1" {
				continue
			}
			if port == "" {
				out = append(out, in.at(h.Field, "%s opens every port of the host's loopback to the sandbox; name the one port the kit needs (localhost:<port>)", h.describe()))
				continue
			}
			out = append(out, in.at(h.Field, "%s: anything listening on port %s of the host is reachable from the sandbox; the port is the trust boundary",
				h.describe(), port))
		}
		return out
	},
}

package lint

import (
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
			if isHostDockerInternal(h.Host) {
				port := portOf(h.Host)
				want := "localhost"
				if port != "" {
					want += ":" + port
				}
				out = append(out, in.at(h.Field, "%s %s entry %q names host.docker.internal, which the sandbox proxy never matches (it sees the target rewritten to localhost); write %q",
					h.Phase, h.List, h.Host, want))
			}
		}
		for _, d := range in.injectDomains() {
			if isHostDockerInternal(d.Domain) {
				out = append(out, in.at(d.Field, "credential %q injects into %q, which the sandbox proxy never matches (it sees the target rewritten to localhost); write domain: localhost",
					d.Service, d.Domain))
			}
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
		"domain goes unnoticed.",
	Fix: "List the hosts the kit needs (api.example.com:443), or a wildcard on one domain (*.example.com).",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, h := range in.networkHosts() {
			if h.Phase != "runtime" || h.List != "allow" {
				continue
			}
			if host := hostOf(h.Host); host == "*" || host == "**" {
				out = append(out, in.at(h.Field, "runtime allow entry %q allows every host; list the hosts the kit needs", h.Host))
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
		"on that port on the host is reachable from the sandbox, not only the service the kit meant.",
	Fix: "Keep it if intended: make sure only the intended service listens on that port, and prefer a port of its own.",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, h := range in.networkHosts() {
			if h.List != "allow" {
				continue
			}
			host, port := hostOf(h.Host), portOf(h.Host)
			if port != "" && (host == "localhost" || host == "127.0.0.1" || host == "::1") {
				out = append(out, in.at(h.Field, "%s allow entry %q: anything listening on port %s of the host is reachable from the sandbox; the port is the trust boundary",
					h.Phase, h.Host, port))
			}
		}
		return out
	},
}

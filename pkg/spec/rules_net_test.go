package spec

import "testing"

// network-policy@1/@2, credential@1 and the inject ⊆ allow cross-check.
func TestNetworkAndCredentialRules(t *testing.T) { runRuleCases(t, networkAndCredentialRulesCases) }

var networkAndCredentialRulesCases = []ruleCase{
	{rule: "network-policy@2/bounded-allow-hosts-literal", desc: "valid: bounded literal allow, bounded pattern deny",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      install:
        allow: [registry.example.org, "*.example.org:443"]
      runtime:
        allow:
          - api.example.com
          - {hosts: [uploads.example.com], methods: [GET, POST], paths: ["/v1/**"]}
          - {hosts: [status.example.com], methods: [ANY]}
        deny:
          - {hosts: ["*.example.com"], methods: [DELETE]}
`},
	{rule: "network-policy@2/bounded-allow-hosts-literal", desc: "invalid: bounded allow with a pattern",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      runtime:
        allow:
          - {hosts: [api.example.com, "*.example.com"], methods: [GET]}
`,
		want: []diagnostic{
			{Code: "network-entry", Ref: "network-policy@2/bounded-allow-hosts-literal", Field: "capabilities[0].config.runtime.allow[0].hosts[1]", Pos: "9:39", Fix: "an entry stating methods or paths names its hosts exactly, o"},
		},
	},
	{rule: "network-policy@2/entry-shape", desc: "invalid: no hosts, empty host, empty lists, paths without methods",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      install:
        allow:
          - {hosts: []}
          - {hosts: [""]}
          - {hosts: [a.example.com], methods: []}
          - {hosts: [a.example.com], methods: [], paths: [/x]}
          - {hosts: [a.example.com], paths: []}
        deny:
          - {hosts: [a.example.com], paths: [/admin]}
`,
		want: []diagnostic{
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.install.allow[0].hosts", Pos: "9:21", Fix: "list at least one host"},
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.install.allow[1].hosts[0]", Pos: "10:22", Fix: "write the host name or remove the item"},
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.install.allow[2].methods", Pos: "11:47", Fix: "omit the field to leave the entry unbounded, or name the met"},
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.install.allow[3].methods", Pos: "12:47", Fix: "name the methods the paths bound, or omit paths too to leave"},
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.install.allow[3].paths", Pos: "12:58", Fix: "name the methods the paths bound, or methods: [ANY] for ever"},
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.install.allow[4].paths", Pos: "13:45", Fix: "omit the field for every path, or name the paths"},
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.install.deny[0].paths", Pos: "15:45", Fix: "name the methods the paths bound, or methods: [ANY] for ever"},
		},
	},
	{rule: "network-policy@2/entry-values", desc: "invalid: methods and paths",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      runtime:
        allow:
          - {hosts: [a.example.com], methods: [get, GET, GET]}
          - {hosts: [b.example.com], methods: [ANY, POST]}
          - {hosts: [c.example.com], methods: [GET], paths: [v1/x]}
`,
		want: []diagnostic{
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.runtime.allow[0].methods[0]", Pos: "9:48", Fix: "runtime entry method \"get\" is not an uppercase HTTP method o"},
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.runtime.allow[0].methods[2]", Pos: "9:58", Fix: "list it once"},
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.runtime.allow[1].methods", Pos: "10:47", Fix: "ANY already covers every method, so keep it alone"},
			{Code: "network-entry", Ref: "", Field: "capabilities[0].config.runtime.allow[2].paths[0]", Pos: "11:62", Fix: "runtime entry path \"v1/x\" must start with \"/\""},
		},
	},
	{rule: "network-policy@1/config", desc: "invalid: a bounded entry is not @1 grammar",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime:
        allow: [{hosts: [a.example.com], methods: [GET]}]
        block: [b.example.com]
`,
		want: []diagnostic{
			{Code: "wrong-type", Ref: "", Field: "capabilities[0].config.runtime.allow[0]", Pos: "8:17", Fix: "network-policy@1 lists hosts as strings, and bounded entries"},
			{Code: "unknown-field", Ref: "", Field: "capabilities[0].config.runtime.block", Pos: "9:9", Fix: "allowed fields: allow, deny"},
		},
	},
	{rule: "credential@1/inject-domain-in-allow", desc: "valid: every listed phase allows it, ports stripped",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      install: {allow: ["api.github.com:443"]}
      runtime: {allow: [api.github.com]}
  - type: com.docker.sandbox/credential@1
    config:
      service: github
      phase: [install, runtime]
      apiKey:
        name: GH_TOKEN
        inject: [{domain: "api.github.com:443", header: Authorization, format: "Bearer %s"}]
`},
	{rule: "credential@1/inject-domain-in-allow", desc: "invalid: one phase misses it, a wildcard does not cover",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime: {allow: [api.github.com, "*.githubusercontent.com"]}
  - type: com.docker.sandbox/credential@1
    config:
      service: github
      phase: [install, runtime]
      apiKey:
        inject:
          - {domain: api.github.com}
          - {domain: raw.githubusercontent.com}
`,
		want: []diagnostic{
			{Code: "inject-domain-in-allow", Ref: "credential@1/inject-domain-in-allow", Field: "capabilities[1].config.apiKey.inject[0].domain", Pos: "14:22", Fix: "add \"api.github.com\" to install allow"},
			{Code: "inject-domain-in-allow", Ref: "credential@1/inject-domain-in-allow", Field: "capabilities[1].config.apiKey.inject[1].domain", Pos: "15:22", Fix: "add \"raw.githubusercontent.com\" to install allow"},
			{Code: "inject-domain-in-allow", Ref: "credential@1/inject-domain-in-allow", Field: "capabilities[1].config.apiKey.inject[1].domain", Pos: "15:22", Fix: "add \"raw.githubusercontent.com\" to runtime allow"},
		},
	},
	{rule: "network-policy@2/inject-domain-in-allow", desc: "valid: bounded entries and bare * count",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      install: {allow: ["*:443"]}
      runtime:
        allow: [{hosts: [api.example.com], methods: [POST]}]
  - type: com.docker.sandbox/credential@1
    config:
      service: example
      phase: [install, runtime]
      apiKey: {inject: [{domain: api.example.com}]}
`},
	{rule: "network-policy@1/inject-domain-in-allow", desc: "invalid: no network policy at all",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/credential@1
    config:
      service: example
      phase: runtime
      apiKey: {name: EXAMPLE_KEY, inject: [{domain: api.example.com}]}
`,
		want: []diagnostic{
			{Code: "inject-domain-in-allow", Ref: "credential@1/inject-domain-in-allow", Field: "capabilities[0].config.apiKey.inject[0].domain", Pos: "9:53", Fix: "add a network-policy capability whose allow list holds \"api."},
		},
	},
	{rule: "credential@1/inject-domain-in-allow", desc: "deferred: parameterized policy, grouped descriptor",
		src: `kind: mixin
args: {host: {default: api.example.com}}
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {runtime: {allow: ["${{ kit.args.host }}"]}}
  - type: com.docker.sandbox/credential@1
    config:
      service: example
      phase: runtime
      apiKey: {inject: [{domain: api.example.com}]}
  - group:
      optional: true
      capabilities:
        - type: com.docker.sandbox/credential@1
          config: {service: other, phase: runtime, apiKey: {inject: [{domain: other.example.com}]}}
`},
	{rule: "credential@1/one-of-apikey-oauth", desc: "invalid: neither",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/credential@1
    config: {service: github, phase: runtime}
`,
		want: []diagnostic{
			{Code: "credential", Ref: "credential@1/one-of-apikey-oauth", Field: "capabilities[0].config", Pos: "6:13", Fix: "declare one (or both)"},
		},
	},
	{rule: "credential@1/name-or-inject", desc: "invalid: empty apiKey, bad name",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/credential@1
    config: {service: a, phase: runtime, apiKey: {}}
  - type: com.docker.sandbox/credential@1
    config: {service: b, phase: runtime, apiKey: {name: 1TOKEN}}
  - type: com.docker.sandbox/credential@1
    config: {service: c, phase: runtime, apiKey: {name: ""}}
`,
		want: []diagnostic{
			{Code: "credential", Ref: "credential@1/name-or-inject", Field: "capabilities[0].config.apiKey", Pos: "6:50", Fix: "apiKey needs a name (the env var holding the placeholder), i"},
			{Code: "credential", Ref: "", Field: "capabilities[1].config.apiKey.name", Pos: "8:57", Fix: "use letters, digits and underscores, not starting with a dig"},
			{Code: "credential", Ref: "credential@1/name-or-inject", Field: "capabilities[2].config.apiKey", Pos: "10:50", Fix: "apiKey needs a name (the env var holding the placeholder), i"},
		},
	},
	{rule: "credential@1/config", desc: "invalid: service, phase, inject domain, token endpoint, file format",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/credential@1
    config:
      service: GitHub
      phase: [runtime, runtime]
      apiKey: {inject: [{header: x-api-key}]}
      oauth:
        tokenEndpoint: {path: /token}
        credentialFile: {path: ~/.tool/creds.json, format: ""}
  - type: com.docker.sandbox/credential@1
    config:
      service: other
      phase: build
      oauth: {credentialFile: {path: ~/.tool/creds, format: yaml}}
  - type: com.docker.sandbox/credential@1
    config: {phase: []}
`,
		want: []diagnostic{
			{Code: "credential", Ref: "", Field: "capabilities[0].config.service", Pos: "7:16", Fix: "invalid service name \"GitHub\": use lowercase letters, digits"},
			{Code: "phase", Ref: "", Field: "capabilities[0].config.phase", Pos: "8:14", Fix: "list it once"},
			{Code: "credential", Ref: "", Field: "capabilities[0].config.apiKey.inject[0].domain", Pos: "9:25", Fix: "inject[0]: domain is required: the host whose requests get t"},
			{Code: "credential", Ref: "", Field: "capabilities[0].config.oauth.tokenEndpoint.host", Pos: "11:24", Fix: "oauth.tokenEndpoint.host is required: the host that issues t"},
			{Code: "credential", Ref: "", Field: "capabilities[0].config.oauth.credentialFile.format", Pos: "12:60", Fix: "omit the field for json or name an encoding (json or toml)"},
			{Code: "phase", Ref: "", Field: "capabilities[1].config.phase", Pos: "16:14", Fix: "phase must be install or runtime, not \"build\""},
			{Code: "credential", Ref: "", Field: "capabilities[1].config.oauth.credentialFile.format", Pos: "17:61", Fix: "write one of them, or omit it for json"},
			{Code: "credential", Ref: "credential@1/one-of-apikey-oauth", Field: "capabilities[2].config", Pos: "19:13", Fix: "declare one (or both)"},
			{Code: "credential", Ref: "", Field: "capabilities[2].config.service", Pos: "19:13", Fix: "credential service is required: the host credential store ke"},
			{Code: "phase", Ref: "", Field: "capabilities[2].config.phase", Pos: "19:21", Fix: "phase must be install or runtime, or a non-empty list of dis"},
		},
	},
	{rule: "credential@1/nulls", desc: "invalid: null values; null inside a TOML structure",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/credential@1
    config:
      service: a
      phase: runtime
      apiKey: {name: A_KEY, proxyManaged: null}
  - type: com.docker.sandbox/credential@1
    config:
      service: b
      phase: runtime
      oauth:
        credentialFile:
          path: ~/.b/creds.toml
          format: toml
          structure: {token: "{{.AccessToken}}", refresh: null}
  - type: com.docker.sandbox/credential@1
    config:
      service: c
      phase: runtime
      oauth:
        credentialFile:
          path: ~/.c/creds.json
          structure: {token: "{{.AccessToken}}", refresh: null}
`,
		want: []diagnostic{
			{Code: "wrong-type", Ref: "", Field: "capabilities[0].config.apiKey.proxyManaged", Pos: "9:43", Fix: "write a boolean, or remove the key"},
			{Code: "credential", Ref: "", Field: "capabilities[1].config.oauth.credentialFile.structure.refresh", Pos: "18:59", Fix: "write a value, remove the key, or use format: json"},
		},
	},
	{rule: "ks/credential-dedup", desc: "invalid: one service and phase twice",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/credential@1
    config: {service: github, phase: runtime, apiKey: {name: GH_TOKEN}}
  - type: com.docker.sandbox/credential@1
    config: {service: github, phase: [install, runtime], apiKey: {name: GITHUB_TOKEN}}
  - type: com.docker.sandbox/credential@1
    config: {service: github, phase: install, oauth: {}}
`,
		want: []diagnostic{
			{Code: "credential-unique", Ref: "", Field: "capabilities[1].config.service", Pos: "8:23", Fix: "keep one entry per service and phase"},
			{Code: "credential-unique", Ref: "", Field: "capabilities[2].config.service", Pos: "10:23", Fix: "keep one entry per service and phase"},
		},
	},
	{rule: "ks/parameterized", desc: "credential presence rules before expansion",
		src: `kind: mixin
args: {svc: {default: github}}
capabilities:
  - type: com.docker.sandbox/credential@1
    config: {service: "${{ kit.args.svc }}", phase: [runtime, bogus]}
`,
		want: []diagnostic{
			{Code: "credential", Ref: "credential@1/one-of-apikey-oauth", Field: "capabilities[0].config", Pos: "7:13", Fix: "declare one (or both)"},
			{Code: "phase", Ref: "", Field: "capabilities[0].config.phase", Pos: "7:53", Fix: "phase must be install or runtime, not \"bogus\""},
		},
	},
}

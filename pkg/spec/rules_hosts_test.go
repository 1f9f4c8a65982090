package spec

import "testing"

// Host patterns of network-policy entries and credential hosts: what is
// not a host is refused naming the field; a wildcard outside the
// specification's portable patterns is a warning naming the nearest
// legal form (#18 item 6).
func TestHostPatternRules(t *testing.T) { runRuleCases(t, hostPatternRulesCases) }

var hostPatternRulesCases = []ruleCase{
	{rule: "network-host", desc: "valid: names, ports, IPv4, wildcards, upper case, a trailing dot",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      runtime:
        allow: [api.example.org:443, API.Example.NET., 10.0.0.1, "*.cdn.example.net", "**.example.com", "*"]
        deny: [{hosts: ["*.example.com"], methods: [DELETE]}]
  - type: com.docker.sandbox/credential@1
    config: {service: example, phase: runtime, apiKey: {name: T, inject: [{domain: api.example.org}]}}
`},
	{rule: "network-host", desc: "invalid: userinfo, fragment, path, CIDR, list, whitespace, percent, empty label",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      runtime:
        allow:
          - api.example.org:443@evil.com
          - "api.example.org:443#evil.com"
          - api.example.org:443/../evil.com
          - 10.0.0.1/0
          - evil.com,x.example.net
          - evil.com .example.net
          - evil%2ecom.example.net
          - {hosts: [a..example.net], methods: [GET]}
        deny: [api.example.org/evil]
`,
		want: []diagnostic{
			{Code: "network-host", Field: "capabilities[0].config.runtime.allow[0]", Pos: "9:13", Fix: "userinfo"},
			{Code: "network-host", Field: "capabilities[0].config.runtime.allow[1]", Pos: "10:13", Fix: "fragment"},
			{Code: "network-host", Field: "capabilities[0].config.runtime.allow[2]", Pos: "11:13", Fix: "path"},
			{Code: "network-host", Field: "capabilities[0].config.runtime.allow[3]", Pos: "12:13", Fix: "CIDR"},
			{Code: "network-host", Field: "capabilities[0].config.runtime.allow[4]", Pos: "13:13", Fix: "one host per entry"},
			{Code: "network-host", Field: "capabilities[0].config.runtime.allow[5]", Pos: "14:13", Fix: "whitespace"},
			{Code: "network-host", Field: "capabilities[0].config.runtime.allow[6]", Pos: "15:13", Fix: "percent"},
			{Code: "network-host", Field: "capabilities[0].config.runtime.allow[7].hosts[0]", Pos: "16:22", Fix: "empty label"},
			{Code: "network-host", Field: "capabilities[0].config.runtime.deny[0]", Pos: "17:16", Fix: "path"},
		},
	},
	{rule: "network-host", desc: "invalid: inject domains and OAuth hosts",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      runtime: {allow: ["*"]}
  - type: com.docker.sandbox/credential@1
    config:
      service: example
      phase: runtime
      apiKey: {name: T, inject: [{domain: "api.example.org:443@evil.com"}]}
      oauth: {tokenEndpoint: {host: "a.example.org/x"}, resourceHosts: ["b.example.org,evil.com"]}
`,
		want: []diagnostic{
			{Code: "network-host", Field: "capabilities[1].config.apiKey.inject[0].domain", Pos: "12:43", Fix: "userinfo"},
			{Code: "network-host", Field: "capabilities[1].config.oauth.tokenEndpoint.host", Pos: "13:37", Fix: "path"},
			{Code: "network-host", Field: "capabilities[1].config.oauth.resourceHosts[0]", Pos: "13:73", Fix: "one host per entry"},
		},
	},
	{rule: "host-wildcard", desc: "warning: mid-label wildcards, with the nearest legal form",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      runtime:
        allow: ["bedrock-runtime.*.amazonaws.com", "bedrock-*.amazonaws.com"]
  - type: com.docker.sandbox/credential@1
    config:
      service: aws
      phase: runtime
      apiKey: {name: T, inject: [{domain: "bedrock-*.amazonaws.com"}]}
`,
		want: []diagnostic{
			{Code: "host-wildcard", Field: "capabilities[0].config.runtime.allow[0]", Pos: "8:17", Fix: `nearest legal form is "**.amazonaws.com"`, Warn: true},
			{Code: "host-wildcard", Field: "capabilities[0].config.runtime.allow[1]", Pos: "8:52", Fix: `nearest legal form is "*.amazonaws.com"`, Warn: true},
			{Code: "host-wildcard", Field: "capabilities[1].config.apiKey.inject[0].domain", Pos: "13:43", Fix: `nearest legal form is "*.amazonaws.com"`, Warn: true},
		},
	},
}

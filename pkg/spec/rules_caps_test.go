package spec

import "testing"

// Rules every capability entry gets: type grammar, arity per block,
// exact duplicates, config-less types, groups, workload-only sbx@1,
// references in keys, parameterized entries.
func TestCapabilityRules(t *testing.T) { runRuleCases(t, capabilityRulesCases) }

var capabilityRulesCases = []ruleCase{
	{rule: "ks/type-grammar", desc: "valid: unknown types keep an opaque config",
		src: `kind: mixin
capabilities:
  - type: x/y@1
  - type: com.example.tools/thing@12
    config: {anything: [1, {deep: true}]}
`},
	{rule: "ks/type-grammar", desc: "invalid: no namespace, version 0",
		src: `kind: mixin
capabilities:
  - type: network-policy
  - type: com.docker.sandbox/network-policy@0
`,
		want: []diagnostic{
			{Code: "type-grammar", Ref: "", Field: "capabilities[0].type", Pos: "5:11", Fix: "did you mean com.docker.sandbox/network-policy@1?"},
			{Code: "type-grammar", Ref: "", Field: "capabilities[1].type", Pos: "6:11", Fix: "did you mean com.docker.sandbox/network-policy@1?"},
		},
	},
	{rule: "ks/singleton", desc: "invalid: second resources@1",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/resources@1
    config: {cpu: 1}
  - type: com.docker.sandbox/resources@1
    config: {cpu: 2}
`,
		want: []diagnostic{
			{Code: "singleton", Ref: "", Field: "capabilities[1].type", Pos: "7:11", Fix: "merge the two entries or remove one"},
		},
	},
	{rule: "ks/singleton", desc: "valid: every singleton once",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config: {runtime: {allow: [example.com]}}
  - type: com.docker.sandbox/resources@1
    config: {memory: 4g}
  - type: com.docker.sandbox/privileged@1
    description: docker-in-docker needs it
  - type: com.docker.sandbox/kit-registry@1
  - type: com.docker.sandbox/agent-sessions@1
    config: {continue: [--continue]}
  - type: com.docker.sandbox/agent-interactive-sessions@1
    config: {sessionPicker: []}
  - type: com.docker.sandbox/lifecycle@1
    config: {interactive: [--tui]}
  - type: com.docker.sandbox/sbx@1
  - type: com.docker.sandbox/long-running@1
  - type: com.docker.sandbox/git-identity@1
`},
	{rule: "ks/exact-duplicate", desc: "invalid: same type and config, other name",
		src: `kind: mixin
capabilities:
  - type: com.example/thing@1
    config: {a: 1, b: 2}
  - type: com.example/thing@1
    name: again
    optional: true
    config: {b: 2, a: 1}
  - type: com.example/bare@1
  - type: com.example/bare@1
    config: {}
`,
		want: []diagnostic{
			{Code: "duplicate-entry", Ref: "", Field: "capabilities[1]", Pos: "7:5", Fix: "remove one"},
			{Code: "duplicate-entry", Ref: "", Field: "capabilities[3]", Pos: "12:5", Fix: "remove one"},
		},
	},
	{rule: "long-running@1/no-config", desc: "invalid: empty config",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/long-running@1
    config: {}
`,
		want: []diagnostic{
			{Code: "configless", Ref: "long-running@1/no-config", Field: "capabilities[0].config", Pos: "6:5", Fix: "remove the config key (even config: {} or null is refused)"},
		},
	},
	{rule: "git-identity@1/no-config", desc: "invalid: null config",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/git-identity@1
    config:
`,
		want: []diagnostic{
			{Code: "configless", Ref: "git-identity@1/no-config", Field: "capabilities[0].config", Pos: "6:5", Fix: "remove the config key (even config: {} or null is refused)"},
		},
	},
	{rule: "ks/configless", desc: "invalid: privileged, kit-registry, sbx with config",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/privileged@1
    description: needs it
    config: {mode: full}
  - type: com.docker.sandbox/kit-registry@1
    config: {}
  - type: com.docker.sandbox/sbx@1
    config: {}
`,
		want: []diagnostic{
			{Code: "configless", Ref: "", Field: "capabilities[0].config", Pos: "7:5", Fix: "remove the config key (even config: {} or null is refused)"},
			{Code: "configless", Ref: "", Field: "capabilities[1].config", Pos: "9:5", Fix: "remove the config key (even config: {} or null is refused)"},
			{Code: "configless", Ref: "", Field: "capabilities[2].config", Pos: "11:5", Fix: "remove the config key (even config: {} or null is refused)"},
		},
	},
	{rule: "privileged@1/description-says-why", desc: "warning: no description",
		src: `kind: workload
capabilities:
  - type: com.docker.sandbox/privileged@1
`,
		want: []diagnostic{
			{Code: "privileged-description", Ref: "privileged@1/description-says-why", Field: "capabilities[0]", Pos: "5:5", Fix: "add a description, which is shown when the user is asked to ", Warn: true},
		},
	},
	{rule: "ks/sbx-workload-only", desc: "invalid: on a mixin, in a group too",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/sbx@1
  - group:
      capabilities:
        - type: com.docker.sandbox/sbx@1
`,
		want: []diagnostic{
			{Code: "sbx-workload-only", Ref: "", Field: "capabilities[0].type", Pos: "5:11", Fix: "remove it or make the kit a workload"},
			{Code: "sbx-workload-only", Ref: "", Field: "capabilities[1].group.capabilities[0].type", Pos: "8:17", Fix: "remove it or make the kit a workload"},
		},
	},
	{rule: "ks/sbx-workload-only", desc: "valid: a set's kind is derived",
		src: `kind: set
kits: [{ref: docker.io/example/base:1}]
capabilities:
  - type: com.docker.sandbox/sbx@1
`},
	{rule: "SPEC-v3 §7/name-round-trip", desc: "invalid: name not a string",
		src: `kind: mixin
capabilities:
  - type: com.example/a@1
    name: 5
  - type: com.example/b@1
    name: true
  - type: com.example/c@1
    name: ""
`,
		want: []diagnostic{
			{Code: "wrong-type", Ref: "SPEC-v3 §7/name-round-trip", Field: "capabilities[0].name", Pos: "6:11", Fix: "quote the value"},
			{Code: "wrong-type", Ref: "SPEC-v3 §7/name-round-trip", Field: "capabilities[1].name", Pos: "8:11", Fix: "quote the value"},
		},
	},
	{rule: "SPEC-v3 §7.1.1/group-grammar", desc: "valid: optional group with members",
		src: `kind: mixin
capabilities:
  - group:
      name: cache
      description: a shared cache
      optional: true
      capabilities:
        - type: com.docker.sandbox/host-mount@1
          config: {path: /cache}
        - type: com.docker.sandbox/volume@1
          config: {path: /scratch, size: 1g}
    source: {kit: docker.io/example/cache:1, path: "capabilities[0]"}
`},
	{rule: "SPEC-v3 §7.1.1/group-grammar", desc: "invalid: empty, member optional, nested, null, mixed",
		src: `kind: mixin
capabilities:
  - group:
      capabilities: []
  - group:
      capabilities:
        - type: com.example/a@1
          optional: false
        - group: {capabilities: [{type: com.example/b@1}]}
  - group: null
  - group: {capabilities: [{type: com.example/c@1}]}
    type: com.example/d@1
`,
		want: []diagnostic{
			{Code: "group-grammar", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[0].group.capabilities", Pos: "6:21", Fix: "add its entries under capabilities:, or remove the group"},
			{Code: "group-grammar", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[1].group.capabilities[0].optional", Pos: "10:11", Fix: "set optional on the group"},
			{Code: "group-grammar", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[1].group.capabilities[1].group", Pos: "11:11", Fix: "groups do not nest: list this group's entries directly in th"},
			{Code: "group-grammar", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[2].group", Pos: "12:12", Fix: "group must be an object listing its members: write group: {c"},
			{Code: "group-grammar", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[3].type", Pos: "14:5", Fix: "move type into a member of the group or into an entry of its"},
		},
	},
	{rule: "SPEC-v3 §7.1.1/validate-declarations", desc: "arity is per block",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {runtime: {allow: [a.example.com]}}
  - group:
      capabilities:
        - type: com.docker.sandbox/network-policy@1
          config: {runtime: {allow: [b.example.com]}}
  - group:
      capabilities:
        - type: com.docker.sandbox/network-policy@1
          config: {runtime: {allow: [c.example.com]}}
        - type: com.docker.sandbox/network-policy@1
          config: {runtime: {allow: [d.example.com]}}
`,
		want: []diagnostic{
			{Code: "singleton", Ref: "", Field: "capabilities[2].group.capabilities[1].type", Pos: "15:17", Fix: "merge the two entries or remove one"},
		},
	},
	{rule: "ks/source-path", desc: "invalid: empty source path",
		src: `kind: mixin
capabilities:
  - type: com.example/a@1
    source: {kit: docker.io/example/a:1, path: ""}
`,
		want: []diagnostic{
			{Code: "source-path", Ref: "", Field: "capabilities[0].source.path", Pos: "6:48", Fix: "write where the entry was declared in the contributing kit, "},
		},
	},
	{rule: "ks/env-ref-in-key", desc: "invalid: env reference in a key",
		src: `kind: mixin
capabilities:
  - type: com.example/a@1
    config:
      env:
        "${{ kit.env.HOME }}": x
`,
		want: []diagnostic{
			{Code: "env-ref-in-key", Ref: "", Field: "capabilities[0].config.env[\"${{ kit.env.HOME }}\"]", Pos: "8:9", Fix: "write the key literally (only config values are expanded)"},
		},
	},
	{rule: "ks/parameterized", desc: "valid: values wait for expansion",
		src: `kind: workload
args:
  size: {default: 20g, pattern: '^[0-9]+[gm]$'}
  port: {default: "3330"}
  path: {default: /data}
capabilities:
  - type: com.docker.sandbox/volume@1
    config: {path: "${{ kit.args.path }}", size: "${{ kit.args.size }}"}
  - type: com.docker.sandbox/port@1
    config: {container: "${{ kit.args.port }}"}
  - type: com.docker.sandbox/lifecycle@1
    config:
      files:
        - {path: "${{ kit.env.WORKSPACE_DIR }}/.tool", content: x}
`},
	{rule: "ks/np-one-version", desc: "invalid: @1 beside @2",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {runtime: {allow: [a.example.com]}}
  - type: com.docker.sandbox/network-policy@2
    config: {runtime: {allow: [b.example.com]}}
`,
		want: []diagnostic{
			{Code: "network-policy-version", Ref: "", Field: "capabilities[1].type", Pos: "7:11", Fix: "move the rules into one entry"},
		},
	},
}

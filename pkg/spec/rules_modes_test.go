package spec

import "testing"

// The published and effective modes.
func TestModeRules(t *testing.T) { runRuleCases(t, modeRulesCases) }

var publishedMode = []Option{WithMode(ModePublished)}

var modeRulesCases = []ruleCase{
	{rule: "SPEC-v3 §9.2/versioned-provides", desc: "invalid: unversioned provide without version",
		src: "kind: mixin\nprovides: [gh, \"git@2.40\"]\n", opts: publishedMode,
		want: []diagnostic{
			{Code: "versioned-provides", Ref: "SPEC-v3 §9.2/versioned-provides", Field: "provides[0]", Pos: "4:12", Fix: "provides entry \"gh\" has no version: add @<version> here or a"},
		},
	},
	{rule: "SPEC-v3 §9.2/versioned-provides", desc: "valid: top-level version; derived deb provides accepted",
		src: "kind: workload\nversion: \"1.0\"\nprovides: [gh, \"deb/jq@1.7.1\"]\n", opts: publishedMode},
	{rule: "SPEC-v3 §3.4/set-kind-never-published", desc: "invalid: kind set, kits without digests",
		src: "kind: set\nkits:\n  - ref: docker.io/example/a:1\n", opts: publishedMode,
		want: []diagnostic{
			{Code: "set-kind-never-published", Ref: "SPEC-v3 §3.4/set-kind-never-published", Field: "kind", Pos: "3:7", Fix: "the merged kit is published as workload or mixin"},
			{Code: "published-kit-digest", Ref: "", Field: "kits[0].digest", Pos: "5:5", Fix: "the build pins every kit of a set to the manifest it resolve"},
		},
	},
	{rule: "agent-skill@1/source-literal", desc: "invalid: arg and env references in the path",
		src: `kind: mixin
args: {name: {default: review}}
capabilities:
  - type: com.docker.sandbox/agent-skill@1
    config: {path: "/opt/skills/${{ kit.args.name }}"}
  - group:
      capabilities:
        - type: com.docker.sandbox/agent-skill@1
          config: {path: "${{ kit.env.HOME }}/skill"}
`, opts: publishedMode,
		want: []diagnostic{
			{Code: "skill-source-literal", Ref: "agent-skill@1/source-literal", Field: "capabilities[0].config.path", Pos: "7:20", Fix: "use a build-phase arg for image content"},
			{Code: "skill-source-literal", Ref: "agent-skill@1/source-literal", Field: "capabilities[1].group.capabilities[0].config.path", Pos: "11:26", Fix: "use a build-phase arg for image content"},
		},
	},
	{rule: "ks/published-refs", desc: "invalid: build-phase references left anywhere",
		src: `kind: set
args:
  v: {default: "1.0", buildArg: V}
  who: {default: me}
version: "${{ kit.args.v }}"
provides: ["gh@${{ kit.args.v }}", "x@${{ kit.args.who }}"]
description: "v${{ kit.args.v }} for ${{ kit.args.who }}"
kits:
  - ref: docker.io/example/${{ kit.args.v }}
    digest: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
`, opts: publishedMode,
		want: []diagnostic{
			{Code: "set-kind-never-published", Ref: "SPEC-v3 §3.4/set-kind-never-published", Field: "kind", Pos: "3:7", Fix: "the merged kit is published as workload or mixin"},
			{Code: "published-refs", Ref: "", Field: "version", Pos: "7:10", Fix: "build-phase expansion did not run"},
			{Code: "published-refs", Ref: "", Field: "provides[0]", Pos: "8:12", Fix: "build-phase expansion did not run"},
			{Code: "published-refs", Ref: "", Field: "provides[1]", Pos: "8:36", Fix: "build-phase expansion did not run"},
			{Code: "published-refs", Ref: "", Field: "description", Pos: "9:16", Fix: "build-phase expansion did not reach it"},
			{Code: "published-refs", Ref: "", Field: "kits[0].ref", Pos: "11:10", Fix: "build-phase expansion did not run"},
		},
	},
	{rule: "credential@1/inject-domain-in-allow", desc: "published: declarations only, not judged",
		src: `kind: mixin
version: "1"
capabilities:
  - type: com.docker.sandbox/credential@1
    config: {service: a, phase: runtime, apiKey: {inject: [{domain: api.example.com}]}}
`, opts: publishedMode},
	{rule: "ks/effective", desc: "valid: whole values adopt types, volume size stays text",
		src: `kind: mixin
args:
  port: {default: "8080"}
  size: {default: "10"}
  tmp: {default: "true"}
capabilities:
  - type: com.docker.sandbox/port@1
    config: {container: "${{ kit.args.port }}"}
  - type: com.docker.sandbox/volume@1
    config: {path: /v, size: "${{ kit.args.size }}", tmpfs: "${{ kit.args.tmp }}"}
`, opts: []Option{WithMode(ModeEffective)}},
	{rule: "ks/effective", desc: "invalid: supplied values judged after expansion",
		src: `kind: mixin
args:
  port: {default: "8080"}
  host: {default: api.example.com}
capabilities:
  - type: com.docker.sandbox/port@1
    config: {container: "${{ kit.args.port }}"}
  - type: com.docker.sandbox/network-policy@1
    config: {runtime: {allow: ["${{ kit.args.host }}"]}}
  - type: com.docker.sandbox/credential@1
    config: {service: a, phase: runtime, apiKey: {inject: [{domain: api.example.com}]}}
`, opts: []Option{WithMode(ModeEffective), WithKitArgs(map[string]string{"port": "99999", "host": "other.example.com"})},
		want: []diagnostic{
			{Code: "port", Ref: "", Field: "capabilities[0].config.container", Pos: "9:25", Fix: "write a port from 1 to 65535"},
			{Code: "inject-domain-in-allow", Ref: "credential@1/inject-domain-in-allow", Field: "capabilities[2].config.apiKey.inject[0].domain", Pos: "13:69", Fix: "add \"api.example.com\" to runtime allow"},
		},
	},
	{rule: "SPEC-v3 §6/required-arg-supplied", desc: "invalid: no value for a required arg; enum; undeclared",
		src: `kind: mixin
args:
  token: {required: true, env: TOKEN}
  mode: {default: fast, enum: [fast, slow]}
description: "${{ kit.args.mode }}"
`, opts: []Option{WithMode(ModeEffective), WithKitArgs(map[string]string{"mode": "medium", "extra": "1"})},
		want: []diagnostic{
			{Code: "arg-undeclared", Ref: "", Field: "args", Pos: "5:3", Fix: "remove the value or declare the arg under args:"},
			{Code: "required-arg-supplied", Ref: "SPEC-v3 §6/required-arg-supplied", Field: "args.token", Pos: "5:10", Fix: "supply a create-phase value for it"},
			{Code: "arg-value", Ref: "", Field: "args.mode", Pos: "6:9", Fix: "supply one of them"},
		},
	},
	{rule: "SPEC-v3 §6/expanded-key-collision-rejected", desc: "invalid: a key expands onto another",
		src: `kind: mixin
args: {k: {default: mode}}
capabilities:
  - type: com.example/a@1
    config: {"${{ kit.args.k }}": 1, mode: 2}
`, opts: []Option{WithMode(ModeEffective)},
		want: []diagnostic{
			{Code: "expanded-key-collision-rejected", Ref: "SPEC-v3 §6/expanded-key-collision-rejected", Field: "capabilities[0].config.mode", Pos: "7:44", Fix: "rename one so they stay distinct"},
		},
	},
	{rule: "ks/create-arg-no-env-injection", desc: "invalid: an arg value introduces an env reference",
		src: `kind: mixin
args: {dir: {default: "/x"}}
capabilities:
  - type: com.example/a@1
    config: {path: "${{ kit.args.dir }}", other: "at ${{ kit.args.dir }}"}
`, opts: []Option{WithMode(ModeEffective), WithKitArgs(map[string]string{"dir": "${{ kit.env.HOME }}"})},
		want: []diagnostic{
			{Code: "arg-injects-env", Ref: "", Field: "capabilities[0].config.path", Pos: "7:20", Fix: "arg values must not introduce environment references"},
			{Code: "arg-injects-env", Ref: "", Field: "capabilities[0].config.other", Pos: "7:50", Fix: "arg values must not introduce environment references"},
		},
	},
	{rule: "SPEC-v3 §7.1.1/validate-expanded-declarations", desc: "effective: groups judged as declarations",
		src: `kind: mixin
capabilities:
  - group:
      optional: true
      capabilities:
        - type: com.docker.sandbox/credential@1
          config: {service: a, phase: runtime, apiKey: {inject: [{domain: api.example.com}]}}
`, opts: []Option{WithMode(ModeEffective)}},
	{rule: "ks/effective", desc: "invalid: an optional arg without value or default",
		src: `kind: mixin
args: {opt: {description: nothing}}
description: "${{ kit.args.opt }}"
`, opts: []Option{WithMode(ModeEffective)},
		want: []diagnostic{
			{Code: "arg-unresolved", Ref: "", Field: "description", Pos: "5:14", Fix: "supply a value for it or give the arg a default"},
		},
	},
	{rule: "ks/effective", desc: "build args by name",
		src: `kind: mixin
args: {v: {default: "1.0", buildArg: V, pattern: '[0-9.]+'}}
version: "${{ kit.args.v }}"
`, opts: []Option{WithMode(ModeEffective), WithBuildArgs(map[string]string{"v": "x"})},
		want: []diagnostic{
			{Code: "arg-value", Ref: "", Field: "args.v", Pos: "4:11", Fix: "supply a value that does"},
		},
	},
}

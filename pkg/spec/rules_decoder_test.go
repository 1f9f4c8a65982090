package spec

import "testing"

// What the reference decoder (yaml.v3 into the reference model's typed
// fields) accepts, kitsmith accepts: a scalar where a capability's
// description string is expected, a YAML 1.1 boolean (quoted or not) for
// an entry's optional, a lifecycle file without content. A group's fields
// are checked by tag (spec/groups.go: "group optional must be a boolean"),
// so there the leniency does not apply.
func TestReferenceDecoderLeniency(t *testing.T) { runRuleCases(t, decoderLeniencyCases) }

var decoderLeniencyCases = []ruleCase{
	{rule: "ks/decoder", desc: "valid: description: 42 reads as the string 42",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/privileged@1
    description: 42
  - group:
      description: a group's description is a string
      capabilities:
        - type: com.docker.sandbox/volume@1
          description: 1.50
          config: {path: /data, size: 1GiB}
`},
	{rule: "ks/decoder", desc: "valid: optional: yes, \"yes\", 'off' are YAML 1.1 booleans",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/volume@1
    optional: yes
    config: {path: /a, size: 1GiB}
  - type: com.docker.sandbox/volume@1
    optional: "yes"
    config: {path: /b, size: 1GiB}
  - type: com.docker.sandbox/volume@1
    optional: 'off'
    config: {path: /c, size: 1GiB}
  - group:
      optional: true
      capabilities:
        - type: com.docker.sandbox/volume@1
          config: {path: /d, size: 1GiB}
`},
	{rule: "ks/decoder", desc: "invalid: a group's description and optional are checked by tag, as spec/groups.go does",
		src: `kind: mixin
capabilities:
  - group:
      description: 5
      optional: yes
      capabilities:
        - type: com.docker.sandbox/volume@1
          config: {path: /a, size: 1GiB}
  - group:
      description: true
      optional: Off
      capabilities:
        - type: com.docker.sandbox/volume@1
          config: {path: /b, size: 1GiB}
  - group:
      description: null
      optional: null
      capabilities:
        - type: com.docker.sandbox/volume@1
          config: {path: /c, size: 1GiB}
`,
		want: []diagnostic{
			{Code: "wrong-type", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[0].group.description", Pos: "6:20", Fix: "quote the value"},
			{Code: "wrong-type", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[0].group.optional", Pos: "7:17", Fix: "write true or false (yes is a boolean only to YAML 1.1 readers)"},
			{Code: "wrong-type", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[1].group.description", Pos: "12:20", Fix: "quote the value"},
			{Code: "wrong-type", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[1].group.optional", Pos: "13:17", Fix: "write true or false (Off is a boolean only to YAML 1.1 readers)"},
			{Code: "wrong-type", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[2].group.description", Pos: "18:20", Fix: "write a string, or remove the key"},
			{Code: "wrong-type", Ref: "SPEC-v3 §7.1.1/group-grammar", Field: "capabilities[2].group.optional", Pos: "19:17", Fix: "write a boolean, or remove the key"},
		},
	},
	{rule: "ks/decoder", desc: "invalid: optional: \"true\" is a string to yaml.v3, and maybe is no boolean",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/volume@1
    optional: "true"
    config: {path: /a, size: 1GiB}
  - type: com.docker.sandbox/volume@1
    optional: maybe
    config: {path: /b, size: 1GiB}
`,
		want: []diagnostic{
			{Code: "wrong-type", Ref: "", Field: "capabilities[0].optional", Pos: "6:15", Fix: "must be a boolean"},
			{Code: "wrong-type", Ref: "", Field: "capabilities[1].optional", Pos: "9:15", Fix: "must be a boolean"},
		},
	},
	{rule: "ks/decoder", desc: "valid: a lifecycle file with only a path",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      files:
        - path: /etc/x
`},
}

// Near misses get a "did you mean": an arg reference next to a declared
// arg, and a type in the com.docker.sandbox namespace the specification
// does not define (a misspelling, a version that does not exist, a
// withdrawn type), which is a warning.
func TestNearMisses(t *testing.T) { runRuleCases(t, nearMissCases) }

var nearMissCases = []ruleCase{
	{rule: "SPEC-v3 §6/references-declared", desc: "invalid: hots next to host",
		src: `kind: mixin
args:
  host: {default: example.org}
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {runtime: {allow: ["${{ kit.args.hots }}"]}}
`,
		want: []diagnostic{
			{Code: "references-declared", Ref: "SPEC-v3 §6/references-declared", Field: "capabilities[0].config.runtime.allow[0]", Pos: "8:33", Fix: `did you mean ${{ kit.args.host }}?`},
		},
	},
	{rule: "ks/unknown-sandbox-type", desc: "warning: misspelled name, unknown version, withdrawn type",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-polcy@1
    optional: true
  - type: com.docker.sandbox/lifecycle@3
    optional: true
  - type: com.docker.sandbox/agent-skills-directory@1
    optional: true
  - type: com.example.tools/thing@1
`,
		want: []diagnostic{
			{Code: "unknown-sandbox-type", Ref: "", Field: "capabilities[0].type", Pos: "5:11", Fix: "did you mean com.docker.sandbox/network-policy@1?", Warn: true},
			{Code: "unknown-sandbox-type", Ref: "", Field: "capabilities[1].type", Pos: "7:11", Fix: "did you mean com.docker.sandbox/lifecycle@1?", Warn: true},
			{Code: "unknown-sandbox-type", Ref: "", Field: "capabilities[2].type", Pos: "9:11", Fix: "did you mean com.docker.sandbox/agent-skills@1?", Warn: true},
		},
	},
	{rule: "ks/schema-version-quoted", desc: "valid: the quoted form",
		src: "# syntax=docker/sandbox-kit:3\nschemaVersion: '3'\nkind: mixin\n"},
	// SPEC-v3 §7.3: a host refuses a kit that requires a type it does not
	// recognise, so a required misspelling makes the kit unusable; an
	// optional one (or a member of an optional group) is skipped.
	{rule: "ks/unknown-sandbox-type", desc: "error: required misspelled name or unknown version, also in a required group",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/lifecyle@1
  - type: com.docker.sandbox/credential@2
    config: {service: github}
  - group:
      capabilities:
        - type: com.docker.sandbox/volme@1
  - group:
      optional: true
      capabilities:
        - type: com.docker.sandbox/agent-skils@1
`,
		want: []diagnostic{
			{Code: "unknown-sandbox-type", Ref: "", Field: "capabilities[0].type", Pos: "5:11", Fix: "did you mean com.docker.sandbox/lifecycle@1?"},
			{Code: "unknown-sandbox-type", Ref: "", Field: "capabilities[1].type", Pos: "6:11", Fix: "did you mean com.docker.sandbox/credential@1?"},
			{Code: "unknown-sandbox-type", Ref: "", Field: "capabilities[2].group.capabilities[0].type", Pos: "10:17", Fix: "did you mean com.docker.sandbox/volume@1?"},
			{Code: "unknown-sandbox-type", Ref: "", Field: "capabilities[3].group.capabilities[0].type", Pos: "14:17", Fix: "did you mean com.docker.sandbox/agent-skills@1?", Warn: true},
		},
	},
}

// Kits in the older docker/runtime-kit vocabulary (com.docker.runtime/*
// types) get the same checks as com.docker.sandbox/* ones, and one warning
// that the spelling is the older one.
func TestRuntimeVocabulary(t *testing.T) { runRuleCases(t, runtimeVocabularyCases) }

var runtimeVocabularyCases = []ruleCase{
	{rule: "ks/runtime-vocabulary", desc: "warning once; config errors found as for com.docker.sandbox",
		src: `# syntax=docker/runtime-kit:3
schemaVersion: "3"
kind: mixin
capabilities:
  - type: com.docker.runtime/volume@1
    config: {path: data, size: 1GiB}
  - type: com.docker.runtime/network-policy@1
    config: {runtime: {alow: [example.org]}}
  - type: com.docker.runtime/privileged@1
    description: needs it
    config: {}
`,
		want: []diagnostic{
			{Code: "volume", Ref: "", Field: "capabilities[0].config.path", Pos: "6:20", Fix: "", Warn: false},
			{Code: "unknown-field", Ref: "", Field: "capabilities[1].config.runtime.alow", Pos: "8:24", Fix: "", Warn: false},
			{Code: "configless", Ref: "", Field: "capabilities[2].config", Pos: "11:5", Fix: "", Warn: false},
			{Code: "runtime-vocabulary", Ref: "", Field: "capabilities[0].type", Pos: "5:11", Fix: "com.docker.sandbox/volume@1", Warn: true},
		},
	},
}

// One error in a config does not hide the others: an unknown key in
// apiKey still lets the inject-domain check run.
func TestIndependentConfigErrors(t *testing.T) { runRuleCases(t, independentErrorCases) }

var independentErrorCases = []ruleCase{
	{rule: "ks/independent-errors", desc: "invalid: unknown apiKey key and an inject domain outside allow",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {runtime: {allow: [api.example.org]}}
  - type: com.docker.sandbox/credential@1
    config:
      service: example
      phase: runtime
      apiKey:
        name: EXAMPLE_KEY
        proxyManged: true
        inject: [{domain: other.example.org, header: x-api-key}]
`,
		want: []diagnostic{
			{Code: "unknown-field", Field: "capabilities[1].config.apiKey.proxyManged", Pos: "13:9"},
			{Code: "inject-domain-in-allow", Ref: "credential@1/inject-domain-in-allow", Field: "capabilities[1].config.apiKey.inject[0].domain", Pos: "14:27"},
		},
	},
}

package spec

import "testing"

// What the reference decoder (yaml.v3 into the reference model's typed
// fields) accepts, kitsmith accepts: a scalar where a capability's
// description string is expected, a YAML 1.1 boolean (quoted or not) for
// optional, a lifecycle file without content.
func TestReferenceDecoderLeniency(t *testing.T) { runRuleCases(t, decoderLeniencyCases) }

var decoderLeniencyCases = []ruleCase{
	{rule: "ks/decoder", desc: "valid: description: 42 reads as the string 42",
		src: `kind: mixin
capabilities:
  - type: com.docker.sandbox/privileged@1
    description: 42
  - group:
      description: true
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
      optional: on
      capabilities:
        - type: com.docker.sandbox/volume@1
          config: {path: /d, size: 1GiB}
`},
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

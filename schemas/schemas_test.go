package schemas_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/schemas"
)

// schemaFiles returns every embedded *.json file, keyed by its path.
func schemaFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := fs.WalkDir(schemas.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		data, err := fs.ReadFile(schemas.FS(), p)
		if err != nil {
			return err
		}
		files[p] = data
		return nil
	})
	if err != nil {
		t.Fatalf("walk embedded schemas: %v", err)
	}
	if len(files) == 0 {
		t.Fatal("no schema files embedded")
	}
	return files
}

func decodeJSON(t *testing.T, name string, data []byte) any {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return doc
}

func compileRoot(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	for p, data := range schemaFiles(t) {
		if err := c.AddResource(schemas.BaseURL+p, decodeJSON(t, p, data)); err != nil {
			t.Fatalf("add %s: %v", p, err)
		}
	}
	sch, err := c.Compile(schemas.BaseURL + schemas.Root)
	if err != nil {
		t.Fatalf("compile %s: %v", schemas.Root, err)
	}
	return sch
}

// jsonValue turns a yaml.v3 decoding into the value model the validator
// expects: string map keys and json.Number numbers.
func jsonValue(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case int:
		return json.Number(strconv.Itoa(x)), nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), nil
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), nil
	case nil, bool, string:
		return x, nil
	default:
		return nil, fmt.Errorf("unsupported YAML value %T", v)
	}
}

func decodeYAML(t *testing.T, doc string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("bad test YAML: %v\n%s", err, doc)
	}
	out, err := jsonValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Descriptor builders for the cases below.

const header = "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\n"

func kit(kind string, body ...string) string {
	return header + "kind: " + kind + "\n" + strings.Join(body, "")
}

func caps(kind string, entries ...string) string {
	return kit(kind, "capabilities:\n"+strings.Join(entries, ""))
}

// entry renders one capability entry; config is a YAML flow value, or
// "-" for no config key.
func entry(typ, config string) string {
	if !strings.Contains(typ, "/") {
		typ = "com.docker.sandbox/" + typ
	}
	s := "- type: " + typ + "\n"
	if config != "-" {
		s += "  config: " + config + "\n"
	}
	return s
}

// wl is a workload with one capability entry.
func wl(typ, config string) string { return caps("workload", entry(typ, config)) }

type tc struct {
	name string
	doc  string
	ok   bool
}

var (
	configless     = []string{"privileged@1", "kit-registry@1", "sbx@1", "long-running@1", "git-identity@1"}
	requiredConfig = []string{"credential@1", "ssh-agent@1", "volume@1", "host-mount@1", "port@1", "usb-device@1",
		"lifecycle@1", "agent-sessions@1", "agent-interactive-sessions@1", "agent-skills@1", "agent-skill@1", "acp@1"}
	optionalConfig = []string{"network-policy@1", "network-policy@2", "resources@1", "agent-context@1"}
)

func cases() []tc {
	digest := "sha256:" + strings.Repeat("ab", 32)
	cs := []tc{
		// --- top level -----------------------------------------------------
		{"descriptor/minimal-workload", kit("workload"), true},
		{"descriptor/minimal-mixin", kit("mixin"), true},
		{"descriptor/schema-version-number-refused", "schemaVersion: 3\nkind: workload\n", false},
		{"descriptor/schema-version-2-refused", "schemaVersion: \"2\"\nkind: workload\n", false},
		{"descriptor/schema-version-required", "kind: workload\n", false},
		{"descriptor/kind-required", header, false},
		{"descriptor/kind-sandbox-refused", kit("sandbox"), false},
		{"descriptor/kind-unknown-refused", kit("tool"), false},
		{"descriptor/unknown-key-refused", kit("workload", "name: gh\n"), false},
		{"descriptor/metadata", kit("workload", `displayName: GitHub CLI
author: Jane Doe <jane@example.com>, Bob <bob@example.com>
description: gh in the sandbox
sourceUrl: https://github.com/example/kits
iconUrl: https://example.com/icon.png
version: 2.72.0
licenses: [MIT, Apache-2.0]
provides: [gh, "io.example/gh@2.72.0", "gh-extra@${{ kit.args.v }}"]
requires: [git, "node >= 20, < 23"]
integrates: ["io.example/proxy >= 1"]
conflicts: [other-gh, io.example/legacy-gh, deb/gh]
build: |
  FROM alpine
  CMD ["sh"]
args:
  v: {default: "1", buildArg: V}
`), true},
		{"descriptor/display-name-string", kit("workload", "displayName: 12\n"), false},
		{"descriptor/icon-url-empty-is-unset", kit("workload", "iconUrl: \"\"\n"), true},
		{"descriptor/icon-url-http-refused", kit("workload", "iconUrl: http://example.com/i.png\n"), false},
		{"descriptor/icon-url-data-refused", kit("workload", "iconUrl: \"data:image/png;base64,AA\"\n"), false},
		{"descriptor/icon-url-no-host-refused", kit("workload", "iconUrl: https:///i.png\n"), false},
		{"descriptor/version-v-prefix-refused", kit("workload", "version: v1.2.0\n"), false},
		{"descriptor/version-arg-ref", kit("workload", "version: \"${{ kit.args.version }}\"\n"), true},
		{"descriptor/version-env-ref-refused", kit("workload", "version: \"${{ kit.env.VERSION }}\"\n"), false},
		{"descriptor/version-number-refused", kit("workload", "version: 2\n"), false},
		{"descriptor/licenses-list", kit("workload", "licenses: MIT\n"), false},
		{"descriptor/requires-arg-ref-refused", kit("workload", "requires: [\"gh >= ${{ kit.args.v }}\"]\n"), false},
		{"descriptor/integrates-arg-ref-refused", kit("workload", "integrates: [\"${{ kit.args.x }}\"]\n"), false},
		{"descriptor/conflicts-uppercase-refused", kit("workload", "conflicts: [Gh]\n"), false},
		{"descriptor/conflicts-single-label-namespace-refused", kit("workload", "conflicts: [example/gh]\n"), false},
		{"descriptor/conflicts-versioned-refused", kit("workload", "conflicts: [gh@1]\n"), false},
		{"descriptor/build-and-dockerfile-refused", kit("workload", "build: FROM alpine\ndockerfile: gh.dockerfile\n"), false},
		{"descriptor/dockerfile-relative", kit("workload", "dockerfile: docker/gh.dockerfile\n"), true},
		{"descriptor/dockerfile-absolute-refused", kit("workload", "dockerfile: /src/gh.dockerfile\n"), false},
		{"descriptor/capabilities-not-a-list", kit("workload", "capabilities: {}\n"), false},

		{"descriptor/agent-workload", `# syntax=docker/sandbox-kit:3
# yaml-language-server: $schema=https://raw.githubusercontent.com/kitsmith/kitsmith/main/schemas/kit.schema.json
schemaVersion: "3"
kind: workload
displayName: Example agent
version: "1.4.0"
provides: ["example-agent@${{ kit.args.version }}"]
args:
  version: {default: "1.4.0", pattern: '^[0-9.]+$', buildArg: AGENT_VERSION}
  cacheSize: {default: 4g, pattern: '^[0-9]+[gm]$'}
  port: {default: "8080"}
capabilities:
  - type: com.docker.sandbox/sbx@1
  - type: com.docker.sandbox/network-policy@1
    config:
      install: {allow: ["registry.example.org:443"]}
      runtime: {allow: ["api.example.com:443"]}
  - type: com.docker.sandbox/credential@1
    optional: true
    config:
      service: example
      phase: runtime
      apiKey:
        name: EXAMPLE_API_KEY
        inject: [{domain: api.example.com, header: Authorization, format: "Bearer %s"}]
  - type: com.docker.sandbox/volume@1
    config: {path: /home/agent/.cache, size: "${{ kit.args.cacheSize }}"}
  - type: com.docker.sandbox/port@1
    config:
      container: ${{ kit.args.port }}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: npm install -g example-agent@${{ kit.args.version }}
          user: "0"
          env: [HTTP_PROXY, HTTPS_PROXY]
      interactive: []
      startup:
        - command: [sh, -c, "chown -R agent:agent /home/agent/.cache"]
          user: "0"
  - type: com.docker.sandbox/agent-sessions@1
    config: {prompt: ["-p", "{{.Prompt}}"], resume: ["--resume", "{{.SessionID}}"]}
  - type: com.docker.sandbox/agent-interactive-sessions@1
    config: {newSession: [], sessionPicker: ["--resume"]}
  - type: com.docker.sandbox/agent-skills@1
    optional: true
    config: {path: /home/agent/.example/skills}
  - type: com.docker.sandbox/agent-context@1
    config: {filename: AGENTS.md, directory: /home/agent/.example, contentFile: ./context.md}
  - type: com.docker.sandbox/acp@1
    optional: true
    config: {agent: example-agent, command: [example-agent, --acp]}
  - type: io.example/telemetry@2
    optional: true
    config: {endpoint: "${{ kit.env.TELEMETRY_URL }}"}
`, true},

		// --- args ----------------------------------------------------------
		{"args/all-fields", kit("workload", `args:
  model: {description: Model, enum: ["", opus, sonnet], env: CLAUDE_MODEL, default: ""}
  version: {pattern: "[0-9.]+", buildArg: CLAUDE_VERSION, required: true}
  _private: {}
`), true},
		{"args/key-grammar", kit("workload", "args:\n  1st: {}\n"), false},
		{"args/key-dash-refused", kit("workload", "args:\n  my-arg: {}\n"), false},
		{"args/required-and-default-refused", kit("workload", "args:\n  a: {required: true, default: x}\n"), false},
		{"args/required-false-with-default", kit("workload", "args:\n  a: {required: false, default: x}\n"), true},
		{"args/enum-and-pattern-refused", kit("workload", "args:\n  a: {enum: [x], pattern: \"x\"}\n"), false},
		{"args/env-and-build-arg-refused", kit("workload", "args:\n  a: {env: A, buildArg: A}\n"), false},
		{"args/env-empty-is-unset", kit("workload", "args:\n  a: {env: \"\", buildArg: A}\n"), true},
		{"args/env-grammar", kit("workload", "args:\n  a: {env: 9A}\n"), false},
		{"args/build-arg-grammar", kit("workload", "args:\n  a: {buildArg: \"A-B\"}\n"), false},
		{"args/default-must-be-string", kit("workload", "args:\n  a: {default: 3}\n"), false},
		{"args/required-must-be-bool", kit("workload", "args:\n  a: {required: \"yes\"}\n"), false},
		{"args/unknown-field-refused", kit("workload", "args:\n  a: {type: string}\n"), false},

		// --- sets and kits -------------------------------------------------
		{"set/with-kits", kit("set", `args:
  registry: {default: docker.io/docker, buildArg: KIT_REGISTRY}
  model: {env: MODEL}
kits:
  - ref: "${{ kit.args.registry }}/sbx-kit-shell:1.0.0"
  - ref: "${{kit.args.registry}}/sbx-kit-claude:2.1.0"
    digest: `+digest+`
    args: {model: "${{ kit.args.model }}", effort: high}
`), true},
		{"set/requires-kits", kit("set"), false},
		{"set/kits-empty-refused", kit("set", "kits: []\n"), false},
		{"set/kits-empty-refused-under-workload", kit("workload", "kits: []\n"), false},
		{"set/kits-beside-workload-kind", kit("workload", "kits: [{ref: docker.io/me/a:1}]\n"), true},
		{"set/kits-exclude-build", kit("set", "build: FROM alpine\nkits: [{ref: docker.io/me/a:1}]\n"), false},
		{"set/kits-with-empty-build-is-no-recipe", kit("set", "build: \"\"\nkits: [{ref: docker.io/me/a:1}]\n"), true},
		{"set/kits-exclude-dockerfile", kit("set", "dockerfile: a.dockerfile\nkits: [{ref: docker.io/me/a:1}]\n"), false},
		{"set/ref-required", kit("set", "kits: [{digest: "+digest+"}]\n"), false},
		{"set/ref-local-path-refused", kit("set", "kits: [{ref: ./gh}]\n"), false},
		{"set/ref-absolute-path-refused", kit("set", "kits: [{ref: /abs/gh}]\n"), false},
		{"set/ref-url-refused", kit("set", "kits: [{ref: \"https://example.com/kit\"}]\n"), false},
		{"set/ref-git-refused", kit("set", "kits: [{ref: \"git+ssh://example.com/kit\"}]\n"), false},
		{"set/ref-whitespace-refused", kit("set", "kits: [{ref: \"reg.io/a b:1\"}]\n"), false},
		{"set/ref-whitespace-after-arg-refused", kit("set", "kits: [{ref: \"${{ kit.args.r }} /a:1\"}]\n"), false},
		{"set/ref-empty-refused", kit("set", "kits: [{ref: \"\"}]\n"), false},
		{"set/digest-grammar", kit("set", "kits: [{ref: a:1, digest: \"sha256:ABC\"}]\n"), false},
		{"set/digest-algorithm", kit("set", "kits: [{ref: a:1, digest: \"sha512:"+strings.Repeat("a", 128)+"\"}]\n"), false},
		{"set/kit-args-key-grammar", kit("set", "kits: [{ref: a:1, args: {\"bad-key\": x}}]\n"), false},
		{"set/kit-args-value-string", kit("set", "kits: [{ref: a:1, args: {port: 8080}}]\n"), false},
		{"set/kit-args-partial-ref-refused", kit("set", "kits: [{ref: a:1, args: {tag: \"v${{ kit.args.t }}\"}}]\n"), false},
		{"set/kit-entry-unknown-field", kit("set", "kits: [{ref: a:1, kind: mixin}]\n"), false},

		// --- capability entries --------------------------------------------
		{"entry/unknown-type-opaque-config", wl("io.example/gpu-burst@3", "{anything: [1, 2], nested: {x: null}}"), true},
		{"entry/unknown-type-no-config", wl("io.example/thing@1", "-"), true},
		{"entry/unknown-type-config-object", wl("io.example/thing@1", "[1, 2]"), false},
		{"entry/unknown-type-config-null", wl("io.example/thing@1", "null"), false},
		{"entry/type-required", caps("workload", "- name: x\n"), false},
		{"entry/type-uppercase-refused", wl("Com.example/thing@1", "-"), false},
		{"entry/type-no-version-refused", wl("com.example/thing", "-"), false},
		{"entry/type-version-zero-refused", wl("com.example/thing@0", "-"), false},
		{"entry/type-no-namespace-refused", caps("workload", "- type: thing@1\n"), false},
		{"entry/fields", caps("workload", `- type: io.example/thing@1
  name: Thing
  optional: true
  description: Why
  source: {kit: docker.io/me/a:1, path: "capabilities[0]"}
  config: {}
`), true},
		{"entry/name-string", caps("workload", "- type: io.example/thing@1\n  name: 5\n"), false},
		{"entry/optional-bool", caps("workload", "- type: io.example/thing@1\n  optional: \"yes\"\n"), false},
		{"entry/unknown-field-refused", caps("workload", "- type: io.example/thing@1\n  required: true\n"), false},
		{"entry/source-path-required", caps("workload", "- type: io.example/thing@1\n  source: {kit: a}\n"), false},
		{"entry/source-path-empty", caps("workload", "- type: io.example/thing@1\n  source: {path: \"\"}\n"), false},
		{"entry/source-object", caps("workload", "- type: io.example/thing@1\n  source: x\n"), false},

		// --- groups --------------------------------------------------------
		{"group/optional-group", caps("workload", `- group:
    name: Shared cache
    description: A cache shared across sandboxes
    optional: true
    capabilities:
      - type: com.docker.sandbox/host-mount@1
        config: {path: /home/agent/.cache}
      - type: com.docker.sandbox/volume@1
        config: {path: /data}
  source: {path: "capabilities[3]"}
`), true},
		{"group/member-optional-refused", caps("workload", "- group:\n    capabilities:\n      - {type: io.example/x@1, optional: false}\n"), false},
		{"group/nested-refused", caps("workload", "- group:\n    capabilities:\n      - group: {capabilities: [{type: io.example/x@1}]}\n"), false},
		{"group/empty-refused", caps("workload", "- group: {capabilities: []}\n"), false},
		{"group/capabilities-required", caps("workload", "- group: {name: x}\n"), false},
		{"group/item-states-type-refused", caps("workload", "- type: io.example/x@1\n  group: {capabilities: [{type: io.example/x@1}]}\n"), false},
		{"group/item-states-optional-refused", caps("workload", "- optional: true\n  group: {capabilities: [{type: io.example/x@1}]}\n"), false},
		{"group/item-states-config-refused", caps("workload", "- config: {}\n  group: {capabilities: [{type: io.example/x@1}]}\n"), false},
		{"group/unknown-group-field-refused", caps("workload", "- group: {required: true, capabilities: [{type: io.example/x@1}]}\n"), false},
		{"group/member-config-checked", caps("workload", "- group:\n    capabilities:\n      - {type: com.docker.sandbox/volume@1, config: {path: data}}\n"), false},
		{"group/member-config-required", caps("workload", "- group:\n    capabilities:\n      - {type: com.docker.sandbox/volume@1}\n"), false},
		{"group/member-configless", caps("workload", "- group:\n    capabilities:\n      - {type: com.docker.sandbox/privileged@1, config: {}}\n"), false},

		// --- kind-dependent capability rules -------------------------------
		{"sbx@1/on-workload", wl("sbx@1", "-"), true},
		{"sbx@1/on-mixin-refused", caps("mixin", entry("sbx@1", "-")), false},
		{"sbx@1/on-mixin-in-group-refused", caps("mixin", "- group:\n    capabilities:\n      - type: com.docker.sandbox/sbx@1\n"), false},
		{"sbx@1/on-set-allowed", kit("set", "kits: [{ref: a:1}]\ncapabilities:\n"+entry("sbx@1", "-")), true},
		{"agent-context@1/mixin-filename-needs-directory", caps("mixin", entry("agent-context@1", "{filename: AGENTS.md, content: hi}")), false},
		{"agent-context@1/mixin-filename-in-group-needs-directory", caps("mixin", "- group:\n    capabilities:\n      - {type: com.docker.sandbox/agent-context@1, config: {filename: AGENTS.md}}\n"), false},
		{"agent-context@1/mixin-with-directory", caps("mixin", entry("agent-context@1", "{filename: AGENTS.md, directory: /home/agent/.codex, contentFile: ctx.md}")), true},
		{"agent-context@1/mixin-body-only", caps("mixin", entry("agent-context@1", "{content: hi}")), true},
		{"agent-context@1/workload-filename-alone", wl("agent-context@1", "{filename: AGENTS.md}"), true},

		// --- network-policy@1 ----------------------------------------------
		{"network-policy@1/phases", wl("network-policy@1", "{install: {allow: [\"*.example.org\", \"registry.example.org:443\"]}, runtime: {allow: [\"**\"], deny: [evil.example.com]}}"), true},
		{"network-policy@1/no-config", wl("network-policy@1", "-"), true},
		{"network-policy@1/unknown-phase-refused", wl("network-policy@1", "{build: {allow: [a.com]}}"), false},
		{"network-policy@1/allow-list", wl("network-policy@1", "{runtime: {allow: a.com}}"), false},
		{"network-policy@1/bounded-entries-not-in-v1", wl("network-policy@1", "{runtime: {allow: [{hosts: [a.com]}]}}"), false},
		{"network-policy@1/rules-unknown-key", wl("network-policy@1", "{runtime: {permit: [a.com]}}"), false},

		// --- network-policy@2 ----------------------------------------------
		{"network-policy@2/mixed-entries", wl("network-policy@2", `{runtime: {allow: ["*.example.com", {hosts: [api.github.com, "uploads.github.com:443"], methods: [GET, POST], paths: ["/repos/**"]}, {hosts: ["*.cdn.com"]}], deny: [{hosts: ["*.evil.com"], methods: [ANY]}]}}`), true},
		{"network-policy@2/bounded-allow-wildcard-refused", wl("network-policy@2", "{runtime: {allow: [{hosts: [\"*.github.com\"], methods: [GET]}]}}"), false},
		{"network-policy@2/bounded-allow-star-refused", wl("network-policy@2", "{install: {allow: [{hosts: [\"*\"], paths: [/x], methods: [GET]}]}}"), false},
		{"network-policy@2/bounded-deny-wildcard", wl("network-policy@2", "{runtime: {deny: [{hosts: [\"*.github.com\"], methods: [DELETE]}]}}"), true},
		{"network-policy@2/paths-need-methods", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], paths: [/x]}]}}"), false},
		{"network-policy@2/methods-empty-refused", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], methods: []}]}}"), false},
		{"network-policy@2/methods-null-refused", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], methods: null}]}}"), false},
		{"network-policy@2/paths-empty-refused", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], methods: [GET], paths: []}]}}"), false},
		{"network-policy@2/methods-lowercase-refused", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], methods: [get]}]}}"), false},
		{"network-policy@2/methods-repeat-refused", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], methods: [GET, GET]}]}}"), false},
		{"network-policy@2/any-alone", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], methods: [ANY], paths: [/v1/**]}]}}"), true},
		{"network-policy@2/any-beside-method-refused", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], methods: [ANY, GET]}]}}"), false},
		{"network-policy@2/path-slash", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], methods: [GET], paths: [v1]}]}}"), false},
		{"network-policy@2/path-arg-ref", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], methods: [GET], paths: [\"${{ kit.args.prefix }}/x\"]}]}}"), true},
		{"network-policy@2/hosts-required", wl("network-policy@2", "{runtime: {allow: [{methods: [GET]}]}}"), false},
		{"network-policy@2/hosts-empty-refused", wl("network-policy@2", "{runtime: {allow: [{hosts: []}]}}"), false},
		{"network-policy@2/empty-host-refused", wl("network-policy@2", "{runtime: {allow: [\"\"]}}"), false},
		{"network-policy@2/entry-unknown-key", wl("network-policy@2", "{runtime: {allow: [{hosts: [a.com], ports: [443]}]}}"), false},

		// --- credential@1 --------------------------------------------------
		{"credential@1/api-key", wl("credential@1", `{service: anthropic, phase: runtime, apiKey: {name: ANTHROPIC_API_KEY, proxyManaged: true, inject: [{domain: api.anthropic.com, header: x-api-key, format: "%s"}, {domain: "git.example.com:443", scheme: basic, username: x-token}]}}`), true},
		{"credential@1/oauth", wl("credential@1", `{service: openai, phase: [install, runtime], oauth: {tokenEndpoint: {host: auth.openai.com, path: /oauth/token}, resourceHosts: [api.openai.com], sentinels: {accessToken: sk-sentinel, refreshToken: rt-sentinel}, credentialFile: {path: /home/agent/.codex/auth.json, structure: {tokens: {access_token: "{{.AccessToken}}", expires: "{{.ExpiresAt}}", id: null}}}, responseFields: {accessToken: access_token, refreshToken: refresh_token, expiresIn: expires_in}, passthrough: false}}`), true},
		{"credential@1/one-of-apikey-oauth", wl("credential@1", "{service: anthropic, phase: runtime}"), false},
		{"credential@1/service-required", wl("credential@1", "{phase: runtime, apiKey: {name: K}}"), false},
		{"credential@1/service-grammar", wl("credential@1", "{service: Anthropic, phase: runtime, apiKey: {name: K}}"), false},
		{"credential@1/service-arg-ref", wl("credential@1", "{service: \"${{ kit.args.service }}\", phase: runtime, apiKey: {name: K}}"), true},
		{"credential@1/phase-required", wl("credential@1", "{service: s, apiKey: {name: K}}"), false},
		{"credential@1/phase-unknown", wl("credential@1", "{service: s, phase: build, apiKey: {name: K}}"), false},
		{"credential@1/phase-list-empty", wl("credential@1", "{service: s, phase: [], apiKey: {name: K}}"), false},
		{"credential@1/phase-list-repeat", wl("credential@1", "{service: s, phase: [runtime, runtime], apiKey: {name: K}}"), false},
		{"credential@1/api-key-needs-name-or-inject", wl("credential@1", "{service: s, phase: runtime, apiKey: {proxyManaged: true}}"), false},
		{"credential@1/api-key-empty-name-without-inject", wl("credential@1", "{service: s, phase: runtime, apiKey: {name: \"\", inject: []}}"), false},
		{"credential@1/inject-only", wl("credential@1", "{service: s, phase: runtime, apiKey: {name: \"\", inject: [{domain: api.s.com}]}}"), true},
		{"credential@1/api-key-name-grammar", wl("credential@1", "{service: s, phase: runtime, apiKey: {name: API-KEY}}"), false},
		{"credential@1/inject-domain-required", wl("credential@1", "{service: s, phase: runtime, apiKey: {inject: [{header: x}]}}"), false},
		{"credential@1/inject-domain-empty", wl("credential@1", "{service: s, phase: runtime, apiKey: {inject: [{domain: \"\"}]}}"), false},
		{"credential@1/null-refused", wl("credential@1", "{service: s, phase: runtime, apiKey: {name: K, inject: [{domain: a.com, header: null}]}}"), false},
		{"credential@1/null-oauth-refused", wl("credential@1", "{service: s, phase: runtime, oauth: null}"), false},
		{"credential@1/proxy-managed-arg-ref", wl("credential@1", "{service: s, phase: runtime, apiKey: {name: K, proxyManaged: \"${{ kit.args.pm }}\"}}"), true},
		{"credential@1/proxy-managed-partial-ref-refused", wl("credential@1", "{service: s, phase: runtime, apiKey: {name: K, proxyManaged: \"x${{ kit.args.pm }}\"}}"), false},
		{"credential@1/token-endpoint-host-required", wl("credential@1", "{service: s, phase: runtime, oauth: {tokenEndpoint: {path: /t}}}"), false},
		{"credential@1/credential-file-path-required", wl("credential@1", "{service: s, phase: runtime, oauth: {credentialFile: {format: json}}}"), false},
		{"credential@1/credential-file-toml", wl("credential@1", "{service: devin, phase: runtime, oauth: {credentialFile: {path: /h/c.toml, format: toml, structure: {auth: {token: \"{{.AccessToken}}\", scopes: \"{{.Scopes}}\"}}}}}"), true},
		{"credential@1/credential-file-toml-null-refused", wl("credential@1", "{service: devin, phase: runtime, oauth: {credentialFile: {path: /h/c.toml, format: toml, structure: {auth: {token: null}}}}}"), false},
		{"credential@1/credential-file-format-empty-refused", wl("credential@1", "{service: s, phase: runtime, oauth: {credentialFile: {path: /c, format: \"\"}}}"), false},
		{"credential@1/credential-file-format-yaml-refused", wl("credential@1", "{service: s, phase: runtime, oauth: {credentialFile: {path: /c, format: yaml}}}"), false},
		{"credential@1/unknown-field-refused", wl("credential@1", "{service: s, phase: runtime, required: true, apiKey: {name: K}}"), false},
		{"credential@1/v2-template-refused", wl("credential@1", "{service: s, phase: runtime, oauth: {credentialFile: {path: /c, template: x}}}"), false},

		// --- ssh-agent@1 ---------------------------------------------------
		{"ssh-agent@1/unrestricted", wl("ssh-agent@1", "{phase: runtime}"), true},
		{"ssh-agent@1/bounded", wl("ssh-agent@1", "{phase: [install, runtime], unrestricted: false, sign: [git, file], authenticate: [git@github.com, gitlab.com]}"), true},
		{"ssh-agent@1/phase-required", wl("ssh-agent@1", "{unrestricted: true}"), false},
		{"ssh-agent@1/phase-list-repeat", wl("ssh-agent@1", "{phase: [install, install]}"), false},
		{"ssh-agent@1/bounded-needs-bounds", wl("ssh-agent@1", "{phase: runtime, unrestricted: false}"), false},
		{"ssh-agent@1/bounds-need-unrestricted-false", wl("ssh-agent@1", "{phase: runtime, sign: [git]}"), false},
		{"ssh-agent@1/bounds-with-unrestricted-true-refused", wl("ssh-agent@1", "{phase: runtime, unrestricted: true, authenticate: [github.com]}"), false},
		{"ssh-agent@1/unrestricted-arg-ref", wl("ssh-agent@1", "{phase: runtime, unrestricted: \"${{ kit.args.open }}\", sign: [git]}"), true},
		{"ssh-agent@1/sign-empty-refused", wl("ssh-agent@1", "{phase: runtime, unrestricted: false, sign: [], authenticate: [a.com]}"), false},
		{"ssh-agent@1/sign-repeat-refused", wl("ssh-agent@1", "{phase: runtime, unrestricted: false, sign: [git, git]}"), false},
		{"ssh-agent@1/sign-space-refused", wl("ssh-agent@1", "{phase: runtime, unrestricted: false, sign: [\"my ns\"]}"), false},
		{"ssh-agent@1/authenticate-ip-refused", wl("ssh-agent@1", "{phase: runtime, unrestricted: false, authenticate: [git@10.0.0.1]}"), false},
		{"ssh-agent@1/authenticate-port-refused", wl("ssh-agent@1", "{phase: runtime, unrestricted: false, authenticate: [\"github.com:22\"]}"), false},
		{"ssh-agent@1/authenticate-wildcard-refused", wl("ssh-agent@1", "{phase: runtime, unrestricted: false, authenticate: [\"*.github.com\"]}"), false},
		{"ssh-agent@1/null-refused", wl("ssh-agent@1", "{phase: runtime, unrestricted: false, authenticate: [a.com], sign: null}"), false},

		// --- volume@1 ------------------------------------------------------
		{"volume@1/full", wl("volume@1", "{path: /home/agent/.claude, size: \"2Gi\", tmpfs: false, mode: \"0755\"}"), true},
		{"volume@1/path-required", wl("volume@1", "{size: 1G}"), false},
		{"volume@1/path-relative-refused", wl("volume@1", "{path: data}"), false},
		{"volume@1/path-env-ref", wl("volume@1", "{path: \"${{ kit.env.HOME }}/.cache\"}"), true},
		{"volume@1/size-grammar", wl("volume@1", "{path: /d, size: 2 gigabytes}"), false},
		{"volume@1/size-decimal-unit", wl("volume@1", "{path: /d, size: \"1.5 GiB\"}"), true},
		{"volume@1/size-and-mode-empty-are-unset", wl("volume@1", "{path: /d, size: \"\", mode: \"\"}"), true},
		{"volume@1/size-arg-ref", wl("volume@1", "{path: /d, size: \"${{ kit.args.size }}\"}"), true},
		{"volume@1/size-unquoted-number-refused", wl("volume@1", "{path: /d, size: 1024}"), false},
		{"volume@1/mode-unquoted-refused", wl("volume@1", "{path: /d, mode: 0755}"), false},
		{"volume@1/mode-grammar", wl("volume@1", "{path: /d, mode: \"0855\"}"), false},
		{"volume@1/tmpfs-bool", wl("volume@1", "{path: /d, tmpfs: \"yes\"}"), false},
		{"volume@1/tmpfs-arg-ref", wl("volume@1", "{path: /d, tmpfs: \"${{ kit.args.tmp }}\"}"), true},
		{"volume@1/unknown-field-refused", wl("volume@1", "{path: /d, readonly: true}"), false},

		// --- host-mount@1 --------------------------------------------------
		{"host-mount@1/path", wl("host-mount@1", "{path: /home/agent/.cache/pip, mode: \"0700\"}"), true},
		{"host-mount@1/root-refused", wl("host-mount@1", "{path: /}"), false},
		{"host-mount@1/dot-dot-refused", wl("host-mount@1", "{path: /home/../etc}"), false},
		{"host-mount@1/dot-segment-refused", wl("host-mount@1", "{path: /home/./agent}"), false},
		{"host-mount@1/trailing-slash-refused", wl("host-mount@1", "{path: /cache/}"), false},
		{"host-mount@1/double-slash-refused", wl("host-mount@1", "{path: //cache}"), false},
		{"host-mount@1/relative-refused", wl("host-mount@1", "{path: cache}"), false},
		{"host-mount@1/dotted-names", wl("host-mount@1", "{path: /a/..b/.c/...}"), true},
		{"host-mount@1/mode-empty-refused", wl("host-mount@1", "{path: /c, mode: \"\"}"), false},
		{"host-mount@1/host-path-refused", wl("host-mount@1", "{path: /c, source: /Users/me}"), false},

		// --- port@1 --------------------------------------------------------
		{"port@1/tcp", wl("port@1", "{name: web, container: 8080}"), true},
		{"port@1/udp", wl("port@1", "{container: 53, transport: udp}"), true},
		{"port@1/container-required", wl("port@1", "{name: web}"), false},
		{"port@1/zero-refused", wl("port@1", "{container: 0}"), false},
		{"port@1/too-large-refused", wl("port@1", "{container: 65536}"), false},
		{"port@1/string-refused", wl("port@1", "{container: \"8080\"}"), false},
		{"port@1/fraction-refused", wl("port@1", "{container: 80.5}"), false},
		{"port@1/whole-arg-ref", wl("port@1", "{container: \"${{ kit.args.port }}\"}"), true},
		{"port@1/partial-arg-ref-refused", wl("port@1", "{container: \"80${{ kit.args.port }}\"}"), false},
		{"port@1/transport-empty-is-tcp", wl("port@1", "{container: 80, transport: \"\"}"), true},
		{"port@1/transport-arg-ref", wl("port@1", "{container: 80, transport: \"${{ kit.args.proto }}\"}"), true},
		{"port@1/whole-arg-ref-no-spaces", wl("port@1", "{container: \"${{kit.args.port}}\"}"), true},
		{"port@1/env-ref-refused", wl("port@1", "{container: \"${{ kit.env.PORT }}\"}"), false},
		{"port@1/transport-grammar", wl("port@1", "{container: 80, transport: sctp}"), false},
		{"port@1/protocol-v2-refused", wl("port@1", "{container: 80, protocol: tcp}"), false},
		{"port@1/host-port-refused", wl("port@1", "{container: 80, host: 8080}"), false},

		// --- usb-device@1 --------------------------------------------------
		{"usb-device@1/vendor-product", wl("usb-device@1", "{vendorId: \"0x1050\", productId: \"0x0407\"}"), true},
		{"usb-device@1/class", wl("usb-device@1", "{class: \"0x0e\"}"), true},
		{"usb-device@1/vendor-alone-refused", wl("usb-device@1", "{vendorId: \"0x1050\"}"), false},
		{"usb-device@1/product-alone-refused", wl("usb-device@1", "{productId: \"0x0407\"}"), false},
		{"usb-device@1/both-shapes-refused", wl("usb-device@1", "{vendorId: \"1\", productId: \"2\", class: \"3\"}"), false},
		{"usb-device@1/neither-refused", wl("usb-device@1", "{}"), false},
		{"usb-device@1/empty-class-is-absent", wl("usb-device@1", "{vendorId: \"1\", productId: \"2\", class: \"\"}"), true},
		{"usb-device@1/ids-are-strings", wl("usb-device@1", "{vendorId: 1050, productId: 407}"), false},

		// --- resources@1 ---------------------------------------------------
		{"resources@1/all", wl("resources@1", "{cpu: 2.5, memory: 8Gi, gpu: all}"), true},
		{"resources@1/no-config", wl("resources@1", "-"), true},
		{"resources@1/cpu-negative-refused", wl("resources@1", "{cpu: -1}"), false},
		{"resources@1/cpu-string-refused", wl("resources@1", "{cpu: \"2\"}"), false},
		{"resources@1/cpu-arg-ref", wl("resources@1", "{cpu: \"${{ kit.args.cpus }}\"}"), true},
		{"resources@1/memory-grammar", wl("resources@1", "{memory: lots}"), false},
		{"resources@1/memory-empty-is-unset", wl("resources@1", "{memory: \"\"}"), true},
		{"resources@1/memory-arg-ref", wl("resources@1", "{memory: \"${{ kit.args.mem }}\"}"), true},
		{"resources@1/unknown-field-refused", wl("resources@1", "{disk: 10G}"), false},

		// --- lifecycle@1 ---------------------------------------------------
		{"lifecycle@1/full", caps("workload", `- type: com.docker.sandbox/lifecycle@1
  config:
    install:
      - command: [sh, -c, "printf '%s' \"$WORKSPACE_DIR\" > /tmp/x"]
        user: "0"
        env: [WORKSPACE_DIR, HTTP_PROXY, HTTPS_PROXY]
        description: seed
    startup:
      - command: chown -R agent:agent /home/agent/.claude
        user: "0"
        background: true
    files:
      - path: "${{ kit.env.HOME }}/.config/settings.json"
        content: '{"timeout": ${{ kit.args.timeout }}}'
        mode: "0644"
        overwrite: false
        description: settings
    interactive: [--tui]
`), true},
		{"lifecycle@1/empty-refused", wl("lifecycle@1", "{}"), false},
		{"lifecycle@1/all-lists-empty-refused", wl("lifecycle@1", "{install: [], startup: [], files: [], interactive: []}"), false},
		{"lifecycle@1/interactive-alone", wl("lifecycle@1", "{interactive: [--dangerously-skip-permissions]}"), true},
		{"lifecycle@1/background-on-install-refused", wl("lifecycle@1", "{install: [{command: x, background: true}]}"), false},
		{"lifecycle@1/command-required", wl("lifecycle@1", "{startup: [{user: root}]}"), false},
		{"lifecycle@1/command-argv-empty-refused", wl("lifecycle@1", "{install: [{command: []}]}"), false},
		{"lifecycle@1/command-number-refused", wl("lifecycle@1", "{install: [{command: 42}]}"), false},
		{"lifecycle@1/env-grammar", wl("lifecycle@1", "{install: [{command: x, env: [MY-VAR]}]}"), false},
		{"lifecycle@1/env-string-refused", wl("lifecycle@1", "{install: [{command: x, env: PATH}]}"), false},
		{"lifecycle@1/file-content-optional", wl("lifecycle@1", "{files: [{path: /x}]}"), true}, // the reference validator requires only path
		{"lifecycle@1/file-path-relative-refused", wl("lifecycle@1", "{files: [{path: x, content: y}]}"), false},
		{"lifecycle@1/file-mode-grammar", wl("lifecycle@1", "{files: [{path: /x, content: y, mode: rw}]}"), false},
		{"lifecycle@1/file-mode-empty-is-unset", wl("lifecycle@1", "{files: [{path: /x, content: y, mode: \"\"}]}"), true},
		{"lifecycle@1/user-number-refused", wl("lifecycle@1", "{install: [{command: x, user: 0}]}"), false},
		{"lifecycle@1/file-overwrite-arg-ref", wl("lifecycle@1", "{files: [{path: /x, content: y, overwrite: \"${{ kit.args.ow }}\"}]}"), true},
		{"lifecycle@1/v2-only-if-missing-refused", wl("lifecycle@1", "{files: [{path: /x, content: y, onlyIfMissing: true}]}"), false},
		{"lifecycle@1/hook-unknown-field", wl("lifecycle@1", "{startup: [{command: x, timeout: 5}]}"), false},

		// --- agent-context@1 -----------------------------------------------
		{"agent-context@1/content-file", wl("agent-context@1", "{filename: CLAUDE.md, directory: /home/agent/.claude, contentFile: claude.md}"), true},
		{"agent-context@1/root-directory", wl("agent-context@1", "{filename: AGENTS.md, directory: /, content: x}"), true},
		{"agent-context@1/body-exclusive", wl("agent-context@1", "{contentFile: a.md, content: x}"), false},
		{"agent-context@1/empty-refused", wl("agent-context@1", "{}"), false},
		{"agent-context@1/directory-needs-filename", wl("agent-context@1", "{directory: /home/agent/.codex, content: x}"), false},
		{"agent-context@1/directory-canonical", wl("agent-context@1", "{filename: A.md, directory: /home/agent/}"), false},
		{"agent-context@1/directory-relative-refused", wl("agent-context@1", "{filename: A.md, directory: .codex}"), false},
		{"agent-context@1/directory-backslash-refused", wl("agent-context@1", "{filename: A.md, directory: \"/home\\\\agent\"}"), false},
		{"agent-context@1/directory-env-ref", wl("agent-context@1", "{filename: A.md, directory: \"${{ kit.env.HOME }}/.codex\"}"), true},
		{"agent-context@1/filename-single-component", wl("agent-context@1", "{filename: docs/A.md, directory: /h}"), false},
		{"agent-context@1/filename-dot-dot-refused", wl("agent-context@1", "{filename: \"..\", directory: /h}"), false},
		{"agent-context@1/filename-empty-with-directory-refused", wl("agent-context@1", "{filename: \"\", directory: /h}"), false},
		{"agent-context@1/v2-agent-instructions-refused", wl("agent-context@1", "{agentInstructions: x}"), false},

		// --- agent-sessions@1 ----------------------------------------------
		{"agent-sessions@1/all-verbs", wl("agent-sessions@1", "{prompt: [-p, \"{{.Prompt}}\"], resume: [\"--resume={{.SessionID}}\"], continue: [--continue], list: [claude, sessions, list]}"), true},
		{"agent-sessions@1/list-string", wl("agent-sessions@1", "{list: \"ls -t ~/.sessions\"}"), true},
		{"agent-sessions@1/no-verbs-refused", wl("agent-sessions@1", "{}"), false},
		{"agent-sessions@1/empty-verbs-refused", wl("agent-sessions@1", "{prompt: [], continue: []}"), false},
		{"agent-sessions@1/prompt-placeholder", wl("agent-sessions@1", "{prompt: [-p, --print]}"), false},
		{"agent-sessions@1/resume-placeholder", wl("agent-sessions@1", "{resume: [--resume, \"{{.Prompt}}\"]}"), false},
		{"agent-sessions@1/prompt-strings", wl("agent-sessions@1", "{prompt: \"-p {{.Prompt}}\"}"), false},
		{"agent-sessions@1/unknown-verb-refused", wl("agent-sessions@1", "{list: x, fork: [--fork]}"), false},

		// --- agent-interactive-sessions@1 ----------------------------------
		{"agent-interactive-sessions@1/verbs", wl("agent-interactive-sessions@1", "{prompt: [--, \"{{.Prompt}}\"], resume: [--resume, \"{{.SessionID}}\"], continue: [--continue], newSession: [], sessionPicker: [--resume], list: \"claude ls\"}"), true},
		{"agent-interactive-sessions@1/new-session-empty", wl("agent-interactive-sessions@1", "{newSession: []}"), true},
		{"agent-interactive-sessions@1/no-keys-refused", wl("agent-interactive-sessions@1", "{}"), false},
		{"agent-interactive-sessions@1/prompt-empty-refused", wl("agent-interactive-sessions@1", "{prompt: []}"), false},
		{"agent-interactive-sessions@1/prompt-placeholder", wl("agent-interactive-sessions@1", "{prompt: [--]}"), false},
		{"agent-interactive-sessions@1/resume-empty-refused", wl("agent-interactive-sessions@1", "{resume: []}"), false},
		{"agent-interactive-sessions@1/null-refused", wl("agent-interactive-sessions@1", "{continue: null}"), false},
		{"agent-interactive-sessions@1/list-blank-refused", wl("agent-interactive-sessions@1", "{list: \"  \"}"), false},
		{"agent-interactive-sessions@1/list-empty-argv-refused", wl("agent-interactive-sessions@1", "{list: []}"), false},
		{"agent-interactive-sessions@1/list-blank-executable-refused", wl("agent-interactive-sessions@1", "{list: [\"\", x]}"), false},
		{"agent-interactive-sessions@1/list-argv", wl("agent-interactive-sessions@1", "{list: [claude, \"\"]}"), true},

		// --- agent-skills@1 ------------------------------------------------
		{"agent-skills@1/path", wl("agent-skills@1", "{path: /home/agent/.claude/skills, mode: readwrite}"), true},
		{"agent-skills@1/path-required", wl("agent-skills@1", "{mode: readonly}"), false},
		{"agent-skills@1/root-refused", wl("agent-skills@1", "{path: /}"), false},
		{"agent-skills@1/alias-refused", wl("agent-skills@1", "{path: /x/../skills}"), false},
		{"agent-skills@1/mode-empty-is-readonly", wl("agent-skills@1", "{path: /s, mode: \"\"}"), true},
		{"agent-skills@1/mode-grammar", wl("agent-skills@1", "{path: /s, mode: write}"), false},
		{"agent-skills@1/path-arg-ref", wl("agent-skills@1", "{path: \"${{ kit.args.home }}/skills\"}"), true},

		// --- agent-skill@1 -------------------------------------------------
		{"agent-skill@1/basename", wl("agent-skill@1", "{path: /usr/share/skills/code-review}"), true},
		{"agent-skill@1/named", wl("agent-skill@1", "{path: /usr/share/skills/_internal, name: review}"), true},
		{"agent-skill@1/path-required", wl("agent-skill@1", "{name: review}"), false},
		{"agent-skill@1/path-relative-refused", wl("agent-skill@1", "{path: skills/review}"), false},
		{"agent-skill@1/name-empty-refused", wl("agent-skill@1", "{path: /s/review, name: \"\"}"), false},
		{"agent-skill@1/name-null-refused", wl("agent-skill@1", "{path: /s/review, name: null}"), false},
		{"agent-skill@1/name-grammar", wl("agent-skill@1", "{path: /s/review, name: \"-x\"}"), false},
		{"agent-skill@1/name-too-long", wl("agent-skill@1", "{path: /s/review, name: "+strings.Repeat("a", 256)+"}"), false},
		{"agent-skill@1/basename-grammar-without-name", wl("agent-skill@1", "{path: /s/_review}"), false},
		{"agent-skill@1/path-build-arg-ref", wl("agent-skill@1", "{path: \"/s/${{ kit.args.skill }}\"}"), true},

		// --- acp@1 ---------------------------------------------------------
		{"acp@1/string-command", wl("acp@1", "{agent: claude, command: claude-code-acp, env: {ACP_LOG: debug}, protocolVersion: 1}"), true},
		{"acp@1/argv-command", wl("acp@1", "{agent: io.example/agent, command: [npx, acp-adapter]}"), true},
		{"acp@1/agent-required", wl("acp@1", "{command: x}"), false},
		{"acp@1/command-required", wl("acp@1", "{agent: claude}"), false},
		{"acp@1/agent-versioned-refused", wl("acp@1", "{agent: claude@1, command: x}"), false},
		{"acp@1/agent-uppercase-refused", wl("acp@1", "{agent: Claude, command: x}"), false},
		{"acp@1/command-blank-refused", wl("acp@1", "{agent: claude, command: \"   \"}"), false},
		{"acp@1/command-argv-empty-refused", wl("acp@1", "{agent: claude, command: []}"), false},
		{"acp@1/command-argv-blank-executable-refused", wl("acp@1", "{agent: claude, command: [\" \", x]}"), false},
		{"acp@1/command-nul-refused", wl("acp@1", "{agent: claude, command: \"a\\0b\"}"), false},
		{"acp@1/env-key-grammar", wl("acp@1", "{agent: claude, command: x, env: {\"A-B\": c}}"), false},
		{"acp@1/env-value-string", wl("acp@1", "{agent: claude, command: x, env: {A: 1}}"), false},
		{"acp@1/protocol-version-zero-refused", wl("acp@1", "{agent: claude, command: x, protocolVersion: 0}"), false},
		{"acp@1/protocol-version-arg-ref", wl("acp@1", "{agent: claude, command: x, protocolVersion: \"${{ kit.args.pv }}\"}"), true},
		{"acp@1/agent-arg-ref", wl("acp@1", "{agent: \"${{ kit.args.agent }}\", command: x}"), true},
	}

	// Config presence, per class of well-known type.
	for _, typ := range configless {
		cs = append(cs,
			tc{typ + "/no-config", wl(typ, "-"), true},
			tc{typ + "/empty-config-refused", wl(typ, "{}"), false},
			tc{typ + "/null-config-refused", wl(typ, "null"), false},
			tc{typ + "/config-refused", wl(typ, "{reason: x}"), false},
		)
	}
	for _, typ := range requiredConfig {
		cs = append(cs,
			tc{typ + "/config-required", wl(typ, "-"), false},
			tc{typ + "/config-null-refused", wl(typ, "null"), false},
		)
	}
	for _, typ := range optionalConfig {
		cs = append(cs, tc{typ + "/config-not-object", wl(typ, "[]"), false})
	}
	return cs
}

func TestDescriptors(t *testing.T) {
	sch := compileRoot(t)
	seen := map[string]bool{}
	for _, c := range cases() {
		if seen[c.name] {
			t.Fatalf("duplicate case name %s", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			err := sch.Validate(decodeYAML(t, c.doc))
			if c.ok && err != nil {
				t.Errorf("want valid, got:\n%v\n--- document\n%s", err, c.doc)
			}
			if !c.ok && err == nil {
				t.Errorf("want invalid, schema accepted:\n%s", c.doc)
			}
			if !c.ok && err != nil && testing.Verbose() {
				t.Logf("refused as expected:\n%v", err)
			}
		})
	}
}

// TestEveryTypeHasCases makes sure each capability file is exercised by
// at least one accepting and one refusing case.
func TestEveryTypeHasCases(t *testing.T) {
	pos, neg := map[string]bool{}, map[string]bool{}
	for _, c := range cases() {
		prefix, _, _ := strings.Cut(c.name, "/")
		if c.ok {
			pos[prefix] = true
		} else {
			neg[prefix] = true
		}
	}
	for p := range schemaFiles(t) {
		typ, ok := strings.CutPrefix(p, "capabilities/com.docker.sandbox/")
		if !ok {
			continue
		}
		typ = strings.TrimSuffix(typ, ".schema.json")
		if !pos[typ] || !neg[typ] {
			t.Errorf("%s: want at least one accepting and one refusing case (have accept=%v refuse=%v)", typ, pos[typ], neg[typ])
		}
	}
}

func TestIDsMatchPaths(t *testing.T) {
	for p, data := range schemaFiles(t) {
		doc, ok := decodeJSON(t, p, data).(map[string]any)
		if !ok {
			t.Errorf("%s: not a JSON object", p)
			continue
		}
		if got, want := doc["$id"], schemas.BaseURL+p; got != want {
			t.Errorf("%s: $id = %v, want %s", p, got, want)
		}
		if got := doc["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %v", p, got)
		}
		if _, ok := doc["definitions"]; ok {
			t.Errorf("%s: uses definitions; use $defs", p)
		}
		if s, _ := doc["title"].(string); s == "" {
			t.Errorf("%s: no title", p)
		}
		if s, _ := doc["description"].(string); s == "" {
			t.Errorf("%s: no description", p)
		}
	}
}

// walk visits every JSON object in v with its JSON pointer.
func walk(v any, ptr string, fn func(ptr string, obj map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(ptr, x)
		for k, e := range x {
			walk(e, ptr+"/"+k, fn)
		}
	case []any:
		for i, e := range x {
			walk(e, ptr+"/"+strconv.Itoa(i), fn)
		}
	}
}

func TestEveryCapabilityFileIsReferenced(t *testing.T) {
	files := schemaFiles(t)
	root := decodeJSON(t, schemas.Root, files[schemas.Root])
	base, err := url.Parse(schemas.BaseURL + schemas.Root)
	if err != nil {
		t.Fatal(err)
	}
	referenced := map[string]bool{}
	walk(root, "", func(_ string, obj map[string]any) {
		ref, ok := obj["$ref"].(string)
		if !ok {
			return
		}
		u, err := base.Parse(ref)
		if err != nil {
			t.Errorf("bad $ref %q: %v", ref, err)
			return
		}
		u.Fragment = ""
		referenced[strings.TrimPrefix(u.String(), schemas.BaseURL)] = true
	})
	var missing []string
	for p := range files {
		if strings.HasPrefix(p, "capabilities/") && !referenced[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("capability schemas not referenced from %s: %v", schemas.Root, missing)
	}
}

// TestPropertiesDescribed holds every declared property to a description,
// which editors show on hover.
func TestPropertiesDescribed(t *testing.T) {
	for p, data := range schemaFiles(t) {
		walk(decodeJSON(t, p, data), "", func(ptr string, obj map[string]any) {
			if obj["type"] != "object" {
				return
			}
			props, _ := obj["properties"].(map[string]any)
			for name, prop := range props {
				m, _ := prop.(map[string]any)
				if d, _ := m["description"].(string); d == "" {
					t.Errorf("%s#%s/properties/%s: no description", p, ptr, name)
				}
			}
		})
	}
}

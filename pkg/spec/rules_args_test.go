package spec

import "testing"

// args and references, the recipe, and a set's kits.
func TestArgRecipeAndSetRules(t *testing.T) { runRuleCases(t, argRecipeAndSetRulesCases) }

var argRecipeAndSetRulesCases = []ruleCase{
	{rule: "SPEC-v3 §6/arg-key-grammar", desc: "invalid: key",
		src: "kind: mixin\nargs:\n  1st: {default: x}\n  ok_2: {default: y}\n",
		want: []diagnostic{
			{Code: "invalid-value", Ref: "SPEC-v3 §6/arg-key-grammar", Field: "args[\"1st\"]", Pos: "5:3", Fix: "args has an invalid key \"1st\": names must match ^[A-Za-z_][A"},
		},
	},
	{rule: "ks/arg-exclusive", desc: "invalid: required+default, enum+pattern, env+buildArg",
		src: `kind: mixin
args:
  a: {required: true, default: ""}
  b: {enum: [x, y], pattern: "x|y"}
  c: {env: C, buildArg: C}
`,
		want: []diagnostic{
			{Code: "arg-exclusive", Ref: "", Field: "args.a", Pos: "5:6", Fix: "a required arg has no default"},
			{Code: "arg-exclusive", Ref: "", Field: "args.b", Pos: "6:6", Fix: "keep one"},
			{Code: "arg-exclusive", Ref: "", Field: "args.c", Pos: "7:6", Fix: "an arg resolves in one phase: env exports it at create, buil"},
		},
	},
	{rule: "ks/arg-grammar", desc: "invalid: pattern, env and buildArg names",
		src: `kind: mixin
args:
  a: {pattern: "(", default: x}
  b: {env: 1B}
  c: {buildArg: C-ARG}
`,
		want: []diagnostic{
			{Code: "arg-pattern", Ref: "", Field: "args.a.pattern", Pos: "5:16", Fix: "fix the expression"},
			{Code: "arg-env", Ref: "", Field: "args.b.env", Pos: "6:12", Fix: "use letters, digits and underscores, not starting with a dig"},
			{Code: "arg-build-arg", Ref: "", Field: "args.c.buildArg", Pos: "7:17", Fix: "use letters, digits and underscores, not starting with a dig"},
		},
	},
	{rule: "ks/arg-grammar", desc: "valid: every field; a default outside the enum waits for resolution",
		src: `kind: mixin
args:
  a: {description: d, default: z, enum: [x, y]}
  b: {required: true, pattern: "[a-z]+", env: B_VALUE}
  c: {default: "", buildArg: C_ARG}
`},
	{rule: "SPEC-v3 §6/references-declared", desc: "invalid: in a value, a key and a comment",
		src: `kind: mixin
# set ${{ kit.args.commented }} at create
description: "uses ${{ kit.args.nope }}"
args: {x: {default: "1"}}
capabilities:
  - type: com.example/a@1
    config: {"k-${{ kit.args.inkey }}": v}
`,
		want: []diagnostic{
			{Code: "references-declared", Ref: "SPEC-v3 §6/references-declared", Field: "", Pos: "4:7", Fix: "the reference is in a comment, which counts: remove or rephrase it"},
			{Code: "references-declared", Ref: "SPEC-v3 §6/references-declared", Field: "description", Pos: "5:20", Fix: "declare it under args: or fix the name"},
			{Code: "references-declared", Ref: "SPEC-v3 §6/references-declared", Field: "capabilities[0].config[\"k-${{ kit.args.inkey }}\"]", Pos: "9:17", Fix: "declare it under args: or fix the name"},
		},
	},
	{rule: "SPEC-v3 §6/references-declared", desc: "valid: every reference declared, whitespace inside allowed",
		src: `kind: mixin
description: "${{kit.args.a}} and ${{   kit.args.b   }}"
args: {a: {default: "1"}, b: {default: "2"}}
`},
	{rule: "ks/malformed-reference", desc: "warning: placeholders that are not references, outside comments",
		src: `kind: mixin
description: "${{ kit.arg.x }} and ${{ kit.env.1X }}"
# a comment may say ${{ kit.args.* }}
`,
		want: []diagnostic{
			{Code: "malformed-reference", Ref: "", Field: "description", Pos: "4:15", Fix: "it is kept as literal text", Warn: true},
			{Code: "malformed-reference", Ref: "", Field: "description", Pos: "4:36", Fix: "it is kept as literal text", Warn: true},
		},
	},
	{rule: "ks/one-recipe", desc: "invalid: build and dockerfile",
		src:   "kind: workload\nbuild: FROM scratch\ndockerfile: k.dockerfile\n",
		files: map[string]string{"k.dockerfile": "FROM scratch\n"},
		want: []diagnostic{
			{Code: "one-recipe", Ref: "", Field: "dockerfile", Pos: "5:13", Fix: "a kit's content recipe lives in exactly one place"},
		},
	},
	{rule: "ks/one-recipe", desc: "invalid: build and a companion",
		src:   "kind: mixin\nbuild: FROM scratch\n",
		files: map[string]string{"k.dockerfile": "FROM scratch\n"},
		want: []diagnostic{
			{Code: "one-recipe", Ref: "", Field: "build", Pos: "4:1", Fix: "a kit's content recipe lives in exactly one place"},
		},
	},
	{rule: "SPEC-v3 §4/dockerfile-inside-context", desc: "invalid: parent and absolute paths",
		src: "kind: workload\ndockerfile: ../shared/Dockerfile\n",
		want: []diagnostic{
			{Code: "dockerfile-inside-context", Ref: "SPEC-v3 §4/dockerfile-inside-context", Field: "dockerfile", Pos: "4:13", Fix: "move the recipe into it"},
		},
	},
	{rule: "SPEC-v3 §4/dockerfile-inside-context", desc: "invalid: absolute path",
		src: "kind: workload\ndockerfile: /etc/Dockerfile\n",
		want: []diagnostic{
			{Code: "dockerfile-inside-context", Ref: "SPEC-v3 §4/dockerfile-inside-context", Field: "dockerfile", Pos: "4:13", Fix: "move the recipe into it"},
		},
	},
	{rule: "SPEC-v3 §4/dockerfile-inside-context", desc: "valid: a subdirectory, cleaned",
		src:   "kind: workload\ndockerfile: ./recipes/../recipes/k.Dockerfile\n",
		files: map[string]string{"recipes/k.Dockerfile": "FROM scratch\nCMD [\"x\"]\n"}},
	{rule: "ks/spec-companion", desc: "invalid: a named recipe that does not exist",
		src: "kind: workload\ndockerfile: recipes/missing.Dockerfile\n",
		want: []diagnostic{
			{Code: "file-missing", Ref: "", Field: "dockerfile", Pos: "4:13", Fix: "add the file or fix the path"},
		},
	},
	{rule: "ks/recipe-self-reference", desc: "invalid: the recipe names the kit frontend",
		src: "kind: workload\nbuild: |\n  # syntax=docker/sandbox-kit:3\n  FROM scratch\n",
		want: []diagnostic{
			{Code: "recipe-syntax", Ref: "", Field: "build", Pos: "5:3", Fix: "a recipe is an ordinary Dockerfile, so remove that line or n"},
		},
	},
	{rule: "SPEC-v3 §3.5/workload-has-content", desc: "invalid: a workload without a recipe",
		src: "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: workload\nbuild: \"\"\n",
		want: []diagnostic{
			{Code: "workload-has-content", Ref: "SPEC-v3 §3.5/workload-has-content", Field: "kind", Pos: "3:7", Fix: "add a build: recipe or a companion k.dockerfile"},
		},
	},
	{rule: "SPEC-v3 §3.4/set-has-kits", desc: "invalid: a set without kits, an empty kits list",
		src: "kind: set\n",
		want: []diagnostic{
			{Code: "set-has-kits", Ref: "SPEC-v3 §3.4/set-has-kits", Field: "kits", Pos: "3:7", Fix: "a set's content is the kits it lists, so add a kits: list of"},
		},
	},
	{rule: "SPEC-v3 §3.4/set-has-kits", desc: "invalid: empty kits on a mixin",
		src: "kind: mixin\nkits: []\n",
		want: []diagnostic{
			{Code: "set-has-kits", Ref: "SPEC-v3 §3.4/set-has-kits", Field: "kits", Pos: "4:7", Fix: "list the kits this one is merged from, or remove the field"},
		},
	},
	{rule: "SPEC-v3 §3.4/set-declares-no-recipe", desc: "invalid: kits with build and dockerfile",
		src: "kind: set\nkits: [{ref: docker.io/example/a:1}]\nbuild: FROM scratch\ndockerfile: x.dockerfile\n",
		want: []diagnostic{
			{Code: "set-declares-no-recipe", Ref: "SPEC-v3 §3.4/set-declares-no-recipe", Field: "build", Pos: "5:8", Fix: "a set's content is the kits it lists, so it has no recipe"},
			{Code: "one-recipe", Ref: "", Field: "dockerfile", Pos: "6:13", Fix: "a kit's content recipe lives in exactly one place"},
			{Code: "set-declares-no-recipe", Ref: "SPEC-v3 §3.4/set-declares-no-recipe", Field: "dockerfile", Pos: "6:13", Fix: "a set's content is the kits it lists, so it has no recipe"},
		},
	},
	{rule: "SPEC-v3 §3.4/set-declares-no-recipe", desc: "invalid: kits and a companion recipe",
		src:   "kind: set\nkits: [{ref: docker.io/example/a:1}]\n",
		files: map[string]string{"k.dockerfile": "FROM scratch\n"},
		want: []diagnostic{
			{Code: "set-declares-no-recipe", Ref: "SPEC-v3 §3.4/set-declares-no-recipe", Field: "kits", Pos: "4:1", Fix: "remove or rename it"},
		},
	},
	{rule: "SPEC-v3 §3.4/kit-published-reference", desc: "invalid: git, local, whitespace, URL, empty",
		src: `kind: set
kits:
  - ref: git+https://github.com/example/kit
  - ref: ./local-kit
  - ref: "docker.io/example/a :1"
  - ref: https://registry.example.com/kit
  - ref: ""
`,
		want: []diagnostic{
			{Code: "kit-ref", Ref: "SPEC-v3 §3.4/kit-published-reference", Field: "kits[0].ref", Pos: "5:10", Fix: "a set lists published kit images, so publish the kit and wri"},
			{Code: "kit-ref", Ref: "SPEC-v3 §3.4/kit-published-reference", Field: "kits[1].ref", Pos: "6:10", Fix: "a set lists published kit images, so it builds the same anyw"},
			{Code: "kit-ref", Ref: "SPEC-v3 §3.4/kit-published-reference", Field: "kits[2].ref", Pos: "7:10", Fix: "remove it"},
			{Code: "kit-ref", Ref: "SPEC-v3 §3.4/kit-published-reference", Field: "kits[3].ref", Pos: "8:10", Fix: "write registry/repository:tag or registry/repository@sha256:"},
			{Code: "kit-ref", Ref: "SPEC-v3 §3.4/kit-published-reference", Field: "kits[4].ref", Pos: "9:10", Fix: "write the registry reference the kit is published at"},
		},
	},
	{rule: "SPEC-v3 §3.4/kit-published-reference", desc: "valid: registry references, a build-phase registry",
		src: `kind: set
args: {registry: {default: docker.io/example, buildArg: REGISTRY}}
kits:
  - ref: ${{ kit.args.registry }}/shell:1.0.0
  - ref: docker.io/example/tool@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    digest: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
  - ref: localhost:5000/kit:dev
    args: {version: "1.2", model: "${{ kit.args.registry }}"}
`},
	{rule: "ks/kit-entry", desc: "invalid: digests, duplicate, create-phase ref, arg names",
		src: `kind: set
args: {reg: {default: docker.io}}
kits:
  - ref: docker.io/example/a:1
    digest: sha1:abc
  - ref: docker.io/example/b@sha256:0000000000000000000000000000000000000000000000000000000000000000
    digest: sha256:1111111111111111111111111111111111111111111111111111111111111111
  - ref: docker.io/example/a:1
  - ref: ${{ kit.args.reg }}/example/c:1
  - ref: docker.io/example/d:1
    args: {"bad-name": x}
`,
		want: []diagnostic{
			{Code: "kit-digest", Ref: "", Field: "kits[0].digest", Pos: "7:13", Fix: "write sha256: and 64 lowercase hex digits, or remove it"},
			{Code: "kit-digest", Ref: "", Field: "kits[1].digest", Pos: "9:13", Fix: "one kit has one pin, so make them agree or drop one"},
			{Code: "kit-duplicate", Ref: "", Field: "kits[2].ref", Pos: "10:10", Fix: "remove one"},
			{Code: "kit-ref-build-phase", Ref: "", Field: "kits[3].ref", Pos: "11:10", Fix: "give the arg a buildArg or write the reference out"},
			{Code: "kit-args", Ref: "", Field: "kits[4].args", Pos: "13:11", Fix: "use letters, digits and underscores, not starting with a dig"},
		},
	},
}

// Package lint finds the pitfalls that make a Docker Sandboxes kit fail
// silently inside a sandbox, although it is valid by the specification:
// proxy variables that bypass the sandbox proxy, host.docker.internal where
// the proxy only sees localhost, hook variables the hook's env: list does
// not declare, literal secrets, unpinned images and more.
//
// Run lints loaded kits (see package spec) with a Registry of Rules,
// DefaultRules unless WithRules says otherwise. Each rule sees an Input:
// the kit with source positions, its recipe parsed with BuildKit's
// Dockerfile parser, and every lifecycle hook, shell-like lifecycle file
// and script a hook runs from the kit (a lifecycle file, or a kit file the
// recipe copies to the path the hook runs, read with spec.Kit.ReadFile)
// parsed with a real shell parser (mvdan.cc/sh), so that quoting,
// here-documents, assignments and parameter expansions are understood
// rather than guessed. Rules only return Findings with a Range and a
// Message; the runner then
//
//   - reports the kit's specification errors and warnings as findings
//     under "spec/<code>" IDs (what kitsmith validate reports),
//   - applies the Config (WithConfig, or with WithKitConfig each kit's
//     .kitsmith.yaml found upward from it, as kitsmith lint and publish
//     do): enabled rules, severity overrides, ignored paths, and the
//     WithEnable and WithDisable selections over it,
//   - applies inline suppressions, "# kitsmith:ignore <rule-id>[,<rule-id>]
//     <reason>" on the finding's line or the line above, in the descriptor,
//     the recipe or a hook script, and reports the meta rules
//     malformed-suppression (no rule ID, or no reason) and
//     unused-suppression (a suppression that silenced nothing).
//
// The Config's egress section (EgressConfig), or WithRegistryHosts, tells
// egress-not-allowed which hosts package tools reach by default, by tool
// family; without it, a tool's default registry is not inferred. kitsmith
// names no registry host of its own.
//
// Positions point at the offending value: file, line and column, and the
// end when it is known. Messages say why the finding matters and Fix says
// what to write instead; secrets are shown masked.
//
// Package lint/format renders a Result as text, JSON, SARIF 2.1.0 or
// GitHub workflow commands. Every rule has a page under docs/rules,
// generated from the registry and the fixtures in testdata, whose URL
// Rule.HelpURI returns; a rule from elsewhere gives its own (Rule.DocURL).
package lint

package lint_test

import (
	"context"
	"fmt"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// A mixin copied from an older kit: the allow rule names
// host.docker.internal, and the hook reads a variable it does not declare.
const exampleKit = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
description: Registers the host's MCP server.
version: "1.0.0"
sourceUrl: https://example.com/kits/mcp
licenses: [MIT]
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime:
        allow: [host.docker.internal:7777]
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: claude mcp add --transport http mcp "http://host.docker.internal:$PORT/mcp"
`

func ExampleRun() {
	k, err := spec.Parse("mcp.yaml", []byte(exampleKit))
	if err != nil {
		panic(err)
	}
	res, err := lint.Run(context.Background(), []*spec.Kit{k})
	if err != nil {
		panic(err)
	}
	for _, f := range res.Findings {
		fmt.Printf("%s: %s [%s]\n", f.Range.Start, f.Severity, f.RuleID)
	}
	fmt.Println("fails at error:", res.Fails(lint.SeverityError))
	// Output:
	// mcp.yaml:12:17: error [host-docker-internal]
	// mcp.yaml:16:85: error [hook-env-undeclared]
	// fails at error: true
}

func ExampleRun_configuration() {
	k, err := spec.Parse("mcp.yaml", []byte(exampleKit))
	if err != nil {
		panic(err)
	}
	cfg := &lint.Config{
		Disable:  []string{"hook-env-undeclared"},
		Severity: map[string]lint.Severity{"host-docker-internal": lint.SeverityWarning},
	}
	res, err := lint.Run(context.Background(), []*spec.Kit{k}, lint.WithConfig(cfg))
	if err != nil {
		panic(err)
	}
	for _, f := range res.Findings {
		fmt.Printf("%s: %s [%s]\n", f.Range.Start, f.Severity, f.RuleID)
	}
	fmt.Println("fails at error:", res.Fails(lint.SeverityError))
	// Output:
	// mcp.yaml:12:17: warning [host-docker-internal]
	// fails at error: false
}

// A kit whose install hook runs npm without naming a registry: which host
// that reaches is configuration, so only a configured npm family is
// checked.
const npmExampleKit = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
description: Installs a CLI from npm.
version: "1.0.0"
sourceUrl: https://example.com/kits/cli
licenses: [MIT]
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      install:
        allow: [api.example.org]
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: npm install -g tool-cli
          env: [HTTP_PROXY, HTTPS_PROXY]
`

func ExampleWithRegistryHosts() {
	k, err := spec.Parse("cli.yaml", []byte(npmExampleKit))
	if err != nil {
		panic(err)
	}
	for _, reg := range []lint.RegistryHosts{nil, {"npm": {"npm.example.org"}}} {
		res, err := lint.Run(context.Background(), []*spec.Kit{k}, lint.WithRegistryHosts(reg))
		if err != nil {
			panic(err)
		}
		fmt.Printf("npm registry %v: %d findings\n", reg["npm"], len(res.Findings))
		for _, f := range res.Findings {
			fmt.Printf("  %s: %s [%s] %s\n", f.Range.Start, f.Severity, f.RuleID, f.Fix)
		}
	}
	// Output:
	// npm registry []: 1 findings
	//   cli.yaml:16:20: info [egress-not-allowed] name the host in .kitsmith.yaml: egress: {registries: {npm: ["<host>:443"]}}
	// npm registry [npm.example.org]: 1 findings
	//   cli.yaml:16:20: warning [egress-not-allowed] add "npm.example.org:443" to capabilities[0].config.install.allow
}

func ExampleHookBaselineEnv() {
	fmt.Println(lint.HookBaselineEnv())
	// Output: [PATH HOME HOSTNAME TERM PWD OLDPWD SHLVL _]
}

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

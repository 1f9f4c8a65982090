package spec_test

import (
	"fmt"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Parse a descriptor held in memory and validate it: every problem comes
// with its position, field, rule and a message that says what to change.
func ExampleParse() {
	src := []byte(`# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
provides: [gh]
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime: {allow: [api.github.com]}
  - type: com.docker.sandbox/credential@1
    config:
      service: github
      phase: runtime
      apiKey:
        name: GH_TOKEN
        inject: [{domain: uploads.github.com, header: Authorization}]
`)
	k, err := spec.Parse("gh.yaml", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	report := k.Validate()
	for _, e := range report.Errors {
		fmt.Printf("%s: %s [%s]\n", e.Range.Start, e.Msg, e.Rule())
	}
	// Published descriptors carry a version for every provide.
	for _, e := range k.Validate(spec.WithMode(spec.ModePublished)).Errors {
		fmt.Printf("published: %s: %s\n", e.Field, e.Msg)
	}
	// Output:
	// gh.yaml:15:27: inject domain "uploads.github.com" is not in the network policy's runtime allow list; add "uploads.github.com" to runtime allow [credential@1/inject-domain-in-allow]
	// published: provides[0]: provides entry "gh" has no version: add @<version> here or a top-level version: field
}

// SurfaceOf lists what a kit asks the user to grant, normalized so that
// two versions of a kit can be compared with Widenings.
func ExampleSurfaceOf() {
	parse := func(allow string) *spec.Descriptor {
		k, _ := spec.Parse("tool.yaml", []byte(`# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime: {allow: [`+allow+`]}
  - type: com.docker.sandbox/volume@1
    config: {path: /home/agent/.tool, size: 1g}
`))
		return k.Descriptor
	}
	granted := spec.SurfaceOf(parse("api.example.com"))
	fmt.Print(granted)
	candidate := spec.SurfaceOf(parse("api.example.com, uploads.example.com"))
	for _, w := range granted.Widenings(candidate) {
		fmt.Println("widens:", w)
	}
	// Output:
	// network.runtime.allow: api.example.com
	// network.runtime.http.allow: ANY api.example.com/**
	// storage: /home/agent/.tool
	// widens: network.runtime.allow: uploads.example.com
}

// Hosts are parsed before they are judged: case and a trailing dot do not
// count, a pinned port covers only that port, **.domain covers the
// patterns under it, and what is not a host is refused.
func ExampleParseHost() {
	ceiling, _ := spec.ParseHost("**.Example.NET")
	for _, s := range []string{"api.example.net.", "*.a.example.net:443", "example.net", "evil.com,x.example.net"} {
		h, err := spec.ParseHost(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(h, ceiling.Covers(h))
	}
	// Output:
	// api.example.net true
	// *.a.example.net:443 true
	// example.net false
	// not a host pattern: "evil.com,x.example.net" holds ',': write one host per entry
}

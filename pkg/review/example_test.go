package review_test

import (
	"fmt"
	"os"

	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

func kit(name, body string) *review.Kit {
	k, err := spec.Parse(name, []byte(spec.SyntaxLine+"\nschemaVersion: \"3\"\n"+body))
	if err != nil {
		panic(err)
	}
	return &review.Kit{Name: name, Descriptor: k.Descriptor, Source: k}
}

func ExampleDiff() {
	old := kit("v1.yaml", `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {runtime: {allow: [api.example.org]}}
`)
	new := kit("v2.yaml", `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {runtime: {allow: [api.example.org, upload.example.net]}}
`)
	d := review.Diff(old, new)
	for _, w := range d.Widenings {
		fmt.Printf("%s: %s %s at %s\n", w.Kind, w.Category, w.Detail, w.At)
	}
	// Output:
	// widening: network.runtime.allow upload.example.net at v2.yaml:6:49
}

func ExampleResolve() {
	w := kit("shell.yaml", "kind: workload\nbuild: \"FROM scratch\\nCMD [\\\"sh\\\"]\\n\"\nprovides: [\"shell@1.0\"]\n")
	m := kit("tool.yaml", "kind: mixin\nrequires: [\"shell >= 1\"]\nconflicts: [podman]\n")
	r, err := review.Resolve([]*review.Kit{m, w})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.OK(), r.Order)
	// Output:
	// true [shell.yaml tool.yaml]
}

func ExampleCheckKit() {
	p, err := review.ParsePolicy("policy.yaml", []byte(`policyVersion: "1"
ceiling:
  network:
    runtime: ["*.example.org"]
`))
	if err != nil {
		panic(err)
	}
	k := kit("tool.yaml", `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config: {runtime: {allow: [api.example.org, upload.example.net]}}
`)
	r, err := review.CheckKit(k, p)
	if err != nil {
		panic(err)
	}
	if err := review.WriteCeiling(os.Stdout, r, review.FormatText); err != nil {
		panic(err)
	}
	// Output:
	// tool.yaml is beyond the permission ceiling: 1 violation
	//   tool.yaml:6:49: network.runtime.allow upload.example.net is beyond the ceiling: no pattern of ceiling.network.runtime matches it [ceiling.network.runtime]
}

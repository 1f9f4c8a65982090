package migrate_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/kitsmith/kitsmith/pkg/migrate"
)

func ExampleMigrate() {
	v2 := fstest.MapFS{"hello/spec.yaml": {Data: []byte(`schemaVersion: "2"
kind: mixin
name: hello
version: "1.0.0"
description: Greets.
permissions:
  network:
    allow: [api.example.org]
credentials:
  - service: example
    apiKey:
      name: EXAMPLE_API_KEY
      inject: [{domain: api.example.org, scheme: bearer}]
    oauth:
      tokenEndpoint: {host: api.example.org, path: /token}
      sentinels: {accessToken: a, refreshToken: r}
      skipIfEnv: [EXAMPLE_API_KEY]
`)}}
	res, err := migrate.Migrate(context.Background(), v2, "hello")
	if err != nil {
		panic(err)
	}
	for _, f := range res.Files {
		fmt.Println("file:", f.Name)
	}
	for _, n := range res.Notes {
		if n.Action {
			fmt.Println(n)
		}
	}
	fmt.Println("valid:", res.Validation.OK(), "needs a human:", res.NeedsHuman())
	// Output:
	// file: hello.yaml
	// hello/spec.yaml:17:7: action [oauth-skip-if-env] credentials[0].oauth.skipIfEnv: v3 removed skipIfEnv (v2 never consulted it); dropped: to prefer an API key, declare apiKey beside oauth
	// valid: true needs a human: true
}

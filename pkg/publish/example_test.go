package publish_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/publish"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Publish a declaration-only kit, unsigned, to an in-process registry; a
// second run finds the tag already at the digest and does nothing.
func ExampleRun() {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	kit, err := spec.LoadPath("testdata/good")
	if err != nil {
		log.Fatal(err)
	}
	epoch := int64(0)
	o := publish.Options{
		TagTemplate: strings.TrimPrefix(srv.URL, "http://") + "/kits/{stem}:{version}",
		Registry:    publish.NewRegistry(),
		Unsigned:    true,
		Build:       build.Options{SourceDateEpoch: &epoch},
	}
	for range 2 {
		res, err := publish.Run(context.Background(), nil, []*spec.Kit{kit}, o, nil)
		if err != nil {
			log.Fatal(err)
		}
		k := res.Kits[0]
		fmt.Println(k.Stem, k.Status(), "tagged:", k.Tagged, "unsigned:", k.Unsigned, "platforms:", len(k.Manifests))
	}
	// Output:
	// good published tagged: true unsigned: true platforms: 2
	// good unchanged tagged: false unsigned: false platforms: 2
}

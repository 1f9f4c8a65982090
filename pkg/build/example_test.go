package build_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// A declaration-only mixin needs no BuildKit daemon: the Solver may be nil.
func ExampleBuild() {
	k, err := spec.LoadPath("testdata/kits/decl-mixin")
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	res, err := build.Build(context.Background(), nil, k, build.Options{
		BuildArgs: map[string]string{"version": "1.2.0"},
		Outputs:   []build.Output{{Type: build.OutputOCI, Dest: filepath.Join(dir, "layout")}},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Stem, res.Kind, res.Route)
	for _, m := range res.Manifests {
		fmt.Println(m.Platform)
	}
	fmt.Println(res.Annotations["org.opencontainers.image.version"])
	// Output:
	// decl-mixin mixin in-process
	// linux/amd64
	// linux/arm64
	// 1.2.0
}

func ExampleParseOutput() {
	out, err := build.ParseOutput("oci-archive:dist/gh.tar")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Type, out.Dest)
	// Output: oci-archive dist/gh.tar
}

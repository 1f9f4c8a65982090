package conform_test

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/v1/empty"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
)

func ExampleCheck() {
	// An image with no annotations and no layers is not a kit.
	rep, err := conform.Check(context.Background(), artifact.FromImage(empty.Image))
	if err != nil {
		panic(err)
	}
	for _, f := range rep.Findings {
		fmt.Printf("%s %s (%s)\n", f.Severity, f.Check, f.Spec)
	}
	fmt.Println("failed:", rep.Failed())
	// Output:
	// fail oci-media-types (SPEC-v3 §10)
	// fail descriptor-annotation (SPEC-v3 §9.3)
	// failed: true
}

func ExampleDerivedProvides() {
	amd64 := conform.DerivedProvides([]byte("Package: bash\nStatus: install ok installed\nVersion: 5.2.15-2+b2\n\n"+
		"Package: libc6\nStatus: install ok installed\nVersion: 2.36-9+deb12u4\n"), nil)
	arm64 := conform.DerivedProvides([]byte("Package: bash\nStatus: install ok installed\nVersion: 5.2.15-2+b2\n\n"+
		"Package: libc6\nStatus: install ok installed\nVersion: 2.36-9+deb12u7~rc1\n"), nil)
	fmt.Println(amd64)
	fmt.Println(conform.IntersectProvides(amd64, arm64))
	// Output:
	// [deb/bash@5.2.15 deb/libc6@2.36]
	// [deb/bash@5.2.15 deb/libc6@2.36]
}

func ExamplePackageVersion() {
	for _, v := range []string{"1:2.5.2-3+dhi1", "9.20.26-1~deb13u1", "1.36.1-r15", "2.0~rc1-1"} {
		fmt.Printf("%q → %q\n", v, conform.PackageVersion(v))
	}
	// Output:
	// "1:2.5.2-3+dhi1" → "2.5.2"
	// "9.20.26-1~deb13u1" → "9.20.26"
	// "1.36.1-r15" → "1.36.1"
	// "2.0~rc1-1" → ""
}

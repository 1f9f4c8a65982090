// Package newpkg is not declared and joins build and lint.
package newpkg

import (
	_ "github.com/kitsmith/kitsmith/pkg/build"
	_ "github.com/kitsmith/kitsmith/pkg/lint"
)

// Package review is declared but joins build and lint, which it may not.
package review

import (
	_ "github.com/kitsmith/kitsmith/pkg/build"
	_ "github.com/kitsmith/kitsmith/pkg/lint"
)

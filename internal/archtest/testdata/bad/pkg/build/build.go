// Package build is clean.
package build

import _ "github.com/kitsmith/kitsmith/pkg/spec"

// Package sign imports cobra itself, besides a dependency that reaches it:
// the direct import must be reported although the dependency is walked
// first.
package sign

import (
	_ "github.com/sigstore/sigstore-go"
	_ "github.com/spf13/cobra"
)

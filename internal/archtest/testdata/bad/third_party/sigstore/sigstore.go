// Package sigstore stands in for sigstore-go, which reaches cobra through
// one of its own dependencies.
package sigstore

import _ "github.com/spf13/cobra"

// Package artifact imports BuildKit's client directly.
package artifact

import "github.com/moby/buildkit/client"

// Status is BuildKit's.
type Status = client.SolveStatus

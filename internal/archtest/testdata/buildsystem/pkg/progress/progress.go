// Package progress carries BuildKit's status type, as it once did.
package progress

import "github.com/moby/buildkit/client"

// Event is a progress event.
type Event struct{ Status *client.SolveStatus }

package publish

import (
	"context"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

// NewRegistry returns the Registry pkg/artifact implements: an
// *artifact.Client reaching registries with opts (artifact.WithKeychain,
// artifact.WithTransport, artifact.WithInsecureRegistry...), whose
// targets share one HTTP transport, so one run keeps its connections
// alive across kits. Options that contradict each other make every
// Target call fail with the reason.
func NewRegistry(opts ...artifact.Option) Registry {
	c, err := artifact.NewClient(opts...)
	if err != nil {
		return failedRegistry{err}
	}
	return c
}

var _ Registry = (*artifact.Client)(nil)

// failedRegistry is a Registry whose options did not check out.
type failedRegistry struct{ err error }

func (r failedRegistry) Target(context.Context, string) (artifact.Target, error) { return nil, r.err }

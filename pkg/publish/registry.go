package publish

import (
	"context"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// NewRegistry returns the Registry pkg/artifact implements, reaching
// registries with opts (artifact.WithKeychain, artifact.WithTransport,
// artifact.WithInsecureRegistry...).
func NewRegistry(opts ...artifact.Option) Registry { return artifactRegistry{opts: opts} }

type artifactRegistry struct{ opts []artifact.Option }

var (
	_ Registry          = artifactRegistry{}
	_ ConditionalTagger = artifactRegistry{}
)

func (r artifactRegistry) Push(ctx context.Context, a *artifact.Artifact, ref string) (v1.Descriptor, error) {
	return artifact.Push(ctx, a, ref, r.opts...)
}

func (r artifactRegistry) Tag(ctx context.Context, ref string, d v1.Descriptor) error {
	return artifact.Tag(ctx, ref, d, r.opts...)
}

// TagIf is Tag with artifact.WithTagPrecondition(prev).
func (r artifactRegistry) TagIf(ctx context.Context, ref string, d v1.Descriptor, prev *v1.Hash) error {
	return artifact.Tag(ctx, ref, d, append(append([]artifact.Option(nil), r.opts...), artifact.WithTagPrecondition(prev))...)
}

func (r artifactRegistry) Head(ctx context.Context, ref string) (v1.Descriptor, error) {
	return artifact.Head(ctx, ref, r.opts...)
}

func (r artifactRegistry) Store(ctx context.Context, ref string) (sign.ReferrerStore, error) {
	return artifact.NewStore(ctx, ref, r.opts...)
}

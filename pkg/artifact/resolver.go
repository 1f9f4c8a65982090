package artifact

import (
	"context"
	"fmt"
)

// KitResolver reads the kits a merged set lists, at the digest the set
// pinned, so that merged-set-declarations can judge the merge against
// them.
type KitResolver interface {
	// ResolveKit opens the kit ref names (a registry reference, usually
	// tagged) at manifest digest.
	ResolveKit(ctx context.Context, ref, digest string) (*Artifact, error)
}

// RegistryResolver returns a KitResolver that opens each listed kit from
// its registry as repo@digest, with opts as Open takes them. Options that
// contradict each other make every ResolveKit fail.
func RegistryResolver(opts ...Option) KitResolver {
	o, err := makeOptions(opts)
	return registryResolver{opts: o, err: err}
}

type registryResolver struct {
	opts *options
	err  error
}

var _ KitResolver = registryResolver{}

// ResolveKit opens ref's repository at digest.
func (r registryResolver) ResolveKit(ctx context.Context, ref, digest string) (*Artifact, error) {
	if r.err != nil {
		return nil, fmt.Errorf("resolving %s: %w", ref, r.err)
	}
	parsed, err := r.opts.registryRef(ref)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", ref, err)
	}
	pinned := parsed.Context().String() + "@" + digest
	return openRegistry(ctx, pinned, r.opts)
}

// Resolver returns the KitResolver Check uses by default for a merged set
// this artifact is: one that reads the listed kits from their registries
// with the options Open was given. It is nil for an artifact that was not
// opened from a registry.
func (a *Artifact) Resolver() KitResolver {
	if a.registry == nil {
		return nil
	}
	return registryResolver{opts: a.registry}
}

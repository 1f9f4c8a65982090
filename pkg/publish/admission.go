package publish

// The checks publish borrows from pkg/review: a kind: set resolved with
// the kits it lists (validate stage), and the permission ceiling of an
// admission policy (policy stage).

import (
	"context"
	"errors"
	"fmt"

	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// ErrComposition reports a kind: set whose listed kits do not compose:
// a runtime would refuse the set (review.ResolveSet's problems).
var ErrComposition = errors.New("the set's kits do not compose")

// ErrBeyondCeiling reports a kit whose permission surface asks for more
// than the admission policy's ceiling allows.
var ErrBeyondCeiling = errors.New("the kit is beyond the permission ceiling")

// resolveSet judges a kind: set as a runtime will: the kits it lists,
// read from their registries, and its own declarations must compose
// (closed requires, no conflicts, one provider per name, the merge rules
// of sets). Other kinds pass.
func (r *kitRun) resolveSet(ctx context.Context) error {
	if r.k.Descriptor == nil || r.k.Descriptor.Kind != spec.KindSet {
		return nil
	}
	res, err := review.ResolveSet(ctx, r.k, review.LoadOptions{BuildArgs: r.opts.Build.BuildArgs, Artifact: r.opts.Build.RegistryOptions()})
	if err != nil {
		return fmt.Errorf("resolving the set with the kits it lists: %w", err)
	}
	if res.OK() {
		return nil
	}
	lines := make([]string, len(res.Problems))
	for i, p := range res.Problems {
		lines[i] = fmt.Sprintf("%s [%s]", p.Message, p.ID)
	}
	return listError(ErrComposition, "problem", lines)
}

// judgeCeiling judges the built kit (its published descriptor, in the
// effective form with the defaults) against the policy's ceiling, with
// the positions of the source's declarations. A baseline digest is read
// from the repository the kit is published to.
func (r *kitRun) judgeCeiling(ctx context.Context) error {
	p := r.opts.Policy
	k, err := review.FromArtifact(ctx, r.art, r.k.Path, "")
	if err != nil {
		return err
	}
	k.Source = r.k
	if k, err = k.Effective(nil); err != nil {
		return err
	}
	var opts []review.CeilingOption
	if c := p.Ceiling; c.Baseline != nil && c.Baseline.Digest != "" && c.Baseline.Digest != k.Digest {
		base, err := r.baselineSurface(ctx, c.Baseline.Digest)
		if err != nil {
			return err
		}
		opts = append(opts, review.WithBaselineSurface(base))
	}
	res, err := review.CheckKit(k, p, opts...)
	if err != nil {
		return err
	}
	r.res.Ceiling = res
	if res.OK() {
		return nil
	}
	lines := make([]string, len(res.Violations))
	for i, v := range res.Violations {
		lines[i] = fmt.Sprintf("%s [%s]", v, v.Rule)
	}
	return listError(ErrBeyondCeiling, "violation", lines)
}

// baselineSurface reads the surface of the kit at digest in the
// repository the kit is published to.
func (r *kitRun) baselineSurface(ctx context.Context, digest string) (*spec.Surface, error) {
	s, err := review.BaselineSurface(ctx, r.res.Reference, digest, "", nil, r.opts.Build.RegistryOptions()...)
	if err != nil {
		return nil, fmt.Errorf("the policy's baseline: %w", err)
	}
	return s, nil
}

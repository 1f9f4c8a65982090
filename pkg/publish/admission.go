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

// judgeCeiling judges the built kit against the policy's ceiling as
// verify --policy does (review.CheckArtifact): every descriptor the
// image serves (the index's and each platform's), validated in published
// and effective mode and judged in its effective form with the defaults,
// with the positions of the source's declarations. A baseline digest is
// read from the repository the kit is published to. A kit the check
// refuses to judge fails as one beyond the ceiling.
func (r *kitRun) judgeCeiling(ctx context.Context) error {
	res, err := review.CheckArtifact(ctx, r.art, r.opts.Policy, review.WithName(r.k.Path),
		review.WithKit(&review.Kit{Name: r.k.Path, Source: r.k}), review.WithBaselineRef(r.res.Reference),
		review.WithArtifactOptions(r.opts.Build.RegistryOptions()...))
	if err != nil {
		return err
	}
	r.res.Ceiling = res
	if res.OK() {
		return nil
	}
	lines := make([]string, 0, len(res.Refusals)+len(res.Violations))
	for _, why := range res.Refusals {
		lines = append(lines, "refused: "+why)
	}
	for _, v := range res.Violations {
		lines = append(lines, fmt.Sprintf("%s [%s]", v, v.Rule))
	}
	return listError(ErrBeyondCeiling, "violation", lines)
}

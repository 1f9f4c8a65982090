package review

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// SetOwnName names a set's own declarations in the problems of
// ResolveSet.
const SetOwnName = spec.SetOwnName

// UnreadableError is a listed kit of a set that could not be read, so the
// set was not resolved.
type UnreadableError struct {
	Index int
	Ref   string
	Err   error
}

// Error names the kit and the cause.
func (e *UnreadableError) Error() string {
	return fmt.Sprintf("kits[%d] %s: %v", e.Index, e.Ref, e.Err)
}

// Unwrap returns the cause.
func (e *UnreadableError) Unwrap() error { return e.Err }

// ResolveSet judges a kind: set source as publishing it does (SPEC-v3
// §9.5): the kits it lists, read from their registries (at their pinned
// digest when kits[].digest is set, build-phase args from o.BuildArgs and
// defaults expanded in the references) with the args the set supplies
// them, and the set's own declarations last, as a composition that need
// not include a workload. A kit that cannot be read is an
// *UnreadableError.
func ResolveSet(ctx context.Context, k *spec.Kit, o LoadOptions, opts ...ResolveOption) (*Resolution, error) {
	kits, err := setKits(ctx, k, o)
	if err != nil {
		return nil, err
	}
	return Resolve(kits, append([]ResolveOption{WithoutWorkload()}, opts...)...)
}

// setKits reads the kits a set lists, then the set's own declarations as
// one more contribution.
func setKits(ctx context.Context, k *spec.Kit, o LoadOptions) ([]*Kit, error) {
	d := k.Descriptor
	values, errs := spec.ResolveArgs(d.Args, spec.PhaseBuild, o.BuildArgs)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: resolving build-phase args: %w", k.Path, errs)
	}
	exp, err := spec.ExpandDescriptor(d, values)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.Path, err)
	}
	kits := make([]*Kit, 0, len(exp.Kits)+1)
	for i, kr := range exp.Kits {
		m, err := readMember(ctx, kr, o)
		if err != nil {
			return nil, &UnreadableError{Index: i, Ref: kr.Ref, Err: err}
		}
		kits = append(kits, m)
	}
	return append(kits, &Kit{Name: SetOwnName, Descriptor: spec.SetOwnDeclarations(exp), Source: k}), nil
}

// readMember reads one listed kit and answers its args as the set does;
// a value that re-exports a set arg stays a reference.
func readMember(ctx context.Context, kr spec.KitRef, o LoadOptions) (*Kit, error) {
	ref := kr.Ref
	if kr.Digest != "" {
		r, err := artifact.ParseReference(ref)
		if err == nil {
			ref, err = r.Pinned(kr.Digest)
		}
		if err != nil {
			return nil, err
		}
	}
	a, err := artifact.Open(ctx, ref, o.Artifact...)
	if err != nil {
		return nil, err
	}
	args := maps.Clone(kr.Args)
	for n, v := range args {
		if strings.Contains(v, "${{") {
			delete(args, n)
		}
	}
	// As the gates read any published kit: every platform, validated,
	// effective; platforms that disagree are refused.
	ms, err := Published(ctx, a, kr.Ref, PublishedOptions{Platform: o.Platform, KitArgs: args})
	if err != nil {
		return nil, err
	}
	m, err := onePlatformSet(kr.Ref, ms)
	if err != nil {
		return nil, err
	}
	m.Platforms = nil
	return m, nil
}

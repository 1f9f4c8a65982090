package review

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// LoadOptions say how Load reads a kit.
type LoadOptions struct {
	// BuildArgs are the build-phase arg values a kit source is published
	// with (by kit arg name); defaults fill in the others.
	BuildArgs map[string]string
	// KitArgs are create-phase arg values; with Effective set, the kit is
	// judged in its effective form with them and the defaults. Values
	// for args the kit does not declare are left out, so that one set of
	// values serves every kit of a diff or a composition.
	KitArgs   map[string]string
	Effective bool
	// Platform selects the platform manifest of a published kit; "" is
	// the artifact's default.
	Platform string
	// Artifact are the options published kits are opened with.
	Artifact []artifact.Option
}

// Load reads the kit an input names: a kit source (a directory or a
// descriptor file, validated and published first, as FromSource), an
// oci:DIR[:tag] or oci-archive:FILE[:tag] reference, or a registry
// reference (the published descriptor read from the manifest annotation,
// as FromArtifact). A path that exists is a source; anything else is
// opened as an artifact. A descriptor file already in the published form
// (a staged kit.yaml, the annotation's JSON saved to a file) is taken as
// it is.
//
// A published kit with platforms that carry different descriptors is a
// *RefusalError unless o.Platform selects one; LoadAll returns them all.
func Load(ctx context.Context, input string, o LoadOptions) (*Kit, error) {
	kits, err := LoadAll(ctx, input, o)
	if err != nil {
		return nil, err
	}
	return onePlatformSet(input, kits)
}

// LoadAll is Load for every platform of a published kit: with Effective,
// each descriptor the artifact serves, validated and expanded as
// Published does (one Kit per distinct descriptor, its platforms in
// Platforms); without, the published descriptors as read. A kit source
// gives one Kit; with Effective it must also validate in effective
// mode (a *SourceError otherwise).
func LoadAll(ctx context.Context, input string, o LoadOptions) ([]*Kit, error) {
	isRef := strings.HasPrefix(input, artifact.LayoutPrefix) || strings.HasPrefix(input, artifact.ArchivePrefix)
	if _, err := os.Stat(input); err != nil || isRef {
		a, err := artifact.Open(ctx, input, o.Artifact...)
		if err != nil {
			return nil, err
		}
		if !o.Effective {
			k, err := FromArtifact(ctx, a, input, o.Platform)
			if err != nil {
				return nil, err
			}
			return []*Kit{k}, nil
		}
		return publishedOwnArgs(ctx, a, input, o)
	}
	k, err := load(ctx, input, o)
	if err != nil || !o.Effective {
		return []*Kit{k}, err
	}
	own := ownArgs(k, o.KitArgs)
	if k.Source != nil && k.Source.Descriptor.Kind != spec.KindSet {
		if rep := k.Source.Validate(spec.WithMode(spec.ModeEffective), spec.WithKitArgs(own), spec.WithBuildArgs(o.BuildArgs)); !rep.OK() {
			return nil, &SourceError{Kit: k.Name, Report: rep}
		}
	}
	k, err = k.Effective(own)
	if err != nil {
		return nil, err
	}
	return []*Kit{k}, nil
}

// ownArgs keeps the values of the args k declares, so that one set of
// values serves every kit of a diff or a composition.
func ownArgs(k *Kit, kitArgs map[string]string) map[string]string {
	own := map[string]string{}
	for n, v := range kitArgs {
		if _, ok := k.Descriptor.Args[n]; ok {
			own[n] = v
		}
	}
	return own
}

// publishedOwnArgs reads a published kit as Published does, with the
// kit arg values of the args it declares.
func publishedOwnArgs(ctx context.Context, a *artifact.Artifact, input string, o LoadOptions) ([]*Kit, error) {
	k, err := FromArtifact(ctx, a, input, o.Platform)
	if err != nil {
		return nil, err
	}
	return Published(ctx, a, input, PublishedOptions{Platform: o.Platform, KitArgs: ownArgs(k, o.KitArgs)})
}

func load(ctx context.Context, input string, o LoadOptions) (*Kit, error) {
	src, err := spec.LoadPath(input)
	if err != nil {
		return nil, err
	}
	if src.Descriptor != nil && src.Descriptor.Kind == spec.KindSet {
		return mergedSet(ctx, src, o)
	}
	k, err := FromSource(src, o.BuildArgs)
	if err == nil {
		return k, nil
	}
	if rep := src.Validate(spec.WithMode(spec.ModePublished)); rep.OK() && len(o.BuildArgs) == 0 {
		return &Kit{Name: src.Path, Descriptor: src.Descriptor, Source: src}, nil
	}
	return nil, fmt.Errorf("loading %s: %w", input, err)
}

// mergedSet reads a kind: set source as the kit publishing it makes: its
// listed kits resolved (as ResolveSet), then merged with the set's own
// published declarations by spec.MergeSet, the merge building the set
// runs, so that a set source and its built form compare equal. A set that
// does not resolve is a *SourceError.
func mergedSet(ctx context.Context, src *spec.Kit, o LoadOptions) (*Kit, error) {
	if rep := src.Validate(); !rep.OK() {
		return nil, &SourceError{Kit: src.Path, Report: rep}
	}
	kits, err := setKits(ctx, src, o)
	if err != nil {
		return nil, fmt.Errorf("resolving the set %s: %w", src.Path, err)
	}
	r, err := Resolve(kits, WithoutWorkload())
	if err != nil {
		return nil, err
	}
	if !r.OK() {
		rep := &spec.Report{}
		for _, p := range r.Problems {
			rep.Errors = append(rep.Errors, &spec.Error{Range: src.KeyPosOf("kits"), Field: "kits", Ref: p.ID, Msg: p.Message})
		}
		return nil, &SourceError{Kit: src.Path, Report: rep}
	}
	listed := kits[:len(kits)-1]
	kind, digests := spec.KindMixin, make([]string, len(listed))
	cs := make([]spec.Contribution, len(listed))
	for i, m := range listed {
		if m.Descriptor.Kind == spec.KindWorkload {
			kind = spec.KindWorkload
		}
		digests[i] = m.Digest
		cs[i] = spec.Contribution{Who: m.Name, Descriptor: m.Descriptor}
	}
	own, rep := src.PublishSet(kind, digests, o.BuildArgs)
	if own == nil {
		return nil, &SourceError{Kit: src.Path, Report: rep}
	}
	order, err := spec.DependencyOrder(cs)
	if err != nil {
		return nil, fmt.Errorf("ordering the kits of the set %s: %w", src.Path, err)
	}
	ordered := make([]spec.SetContribution, 0, len(cs)+1)
	for _, i := range order {
		ordered = append(ordered, spec.SetContribution{Contribution: cs[i]})
	}
	ordered = append(ordered, spec.SetContribution{Contribution: spec.Contribution{Who: SetOwnName, Descriptor: spec.SetOwnDeclarations(own.Descriptor)}})
	m, err := spec.MergeSet(own.Descriptor, src.Descriptor.Kind, src.Stem, ordered)
	if err != nil {
		return nil, fmt.Errorf("merging the set %s: %w", src.Path, err)
	}
	return &Kit{Name: src.Path, Descriptor: m.Descriptor}, nil
}

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
func Load(ctx context.Context, input string, o LoadOptions) (*Kit, error) {
	k, err := load(ctx, input, o)
	if err != nil || !o.Effective {
		return k, err
	}
	own := map[string]string{}
	for n, v := range o.KitArgs {
		if _, ok := k.Descriptor.Args[n]; ok {
			own[n] = v
		}
	}
	return k.Effective(own)
}

func load(ctx context.Context, input string, o LoadOptions) (*Kit, error) {
	isRef := strings.HasPrefix(input, artifact.LayoutPrefix) || strings.HasPrefix(input, artifact.ArchivePrefix)
	if _, err := os.Stat(input); err != nil || isRef {
		a, err := artifact.Open(ctx, input, o.Artifact...)
		if err != nil {
			return nil, err
		}
		return FromArtifact(ctx, a, input, o.Platform)
	}
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
// listed kits resolved (as ResolveSet) and merged with its own
// declarations, with the set's display fields, version, args and kits
// list, each kit pinned. A set that does not resolve is a *SourceError.
func mergedSet(ctx context.Context, src *spec.Kit, o LoadOptions) (*Kit, error) {
	if rep := src.Validate(); !rep.OK() {
		return nil, &SourceError{Path: src.Path, Report: rep}
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
		return nil, &SourceError{Path: src.Path, Report: rep}
	}
	d, own := *r.Merged, src.Descriptor
	d.DisplayName, d.Author, d.Description, d.SourceURL, d.IconURL = own.DisplayName, own.Author, own.Description, own.SourceURL, own.IconURL
	d.Version, d.Args = own.Version, own.Args
	// the kits list as published: every kit pinned to what it resolved to
	d.Kits = make([]spec.KitRef, len(own.Kits))
	for i, kr := range own.Kits {
		d.Kits[i] = kr
		if kr.Digest == "" {
			d.Kits[i].Digest = kits[i].Digest
		}
	}
	return &Kit{Name: src.Path, Descriptor: &d}, nil
}

package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Kit is one kit under review: the descriptor judged and where it came
// from.
type Kit struct {
	// Name labels the kit in reports: its path or reference.
	Name string `json:"name"`
	// Descriptor is the published descriptor, or the effective one after
	// Effective.
	Descriptor *spec.Descriptor `json:"-"`
	// Source is the kit source the descriptor was published from, or nil
	// for a published kit. It maps declarations to file:line:col.
	Source *spec.Kit `json:"-"`
	// Digest is the digest a published kit was read at, or "".
	Digest string `json:"digest,omitempty"`
	// Platforms are the platforms a published kit's descriptor is served
	// to (see Published), or nil for a kit source and for FromArtifact.
	Platforms []string `json:"platforms,omitempty"`
}

// ErrNoDescriptor is returned for an artifact that carries no readable
// kit descriptor.
var ErrNoDescriptor = errors.New("no kit descriptor")

// SourceError is a kit source that does not validate or publish; Report
// holds every problem, and errors.As finds its spec.Errors through it. It
// is spec.PublishError, the type build.DescriptorError also names.
type SourceError = spec.PublishError

// FromSource validates a kit source and publishes its descriptor
// (build-phase args from buildArgs, then defaults), as a build would
// before building anything. A source that does not publish is a
// *SourceError.
func FromSource(k *spec.Kit, buildArgs map[string]string) (*Kit, error) {
	pub, rep := k.Publish(buildArgs)
	if pub == nil {
		return nil, &SourceError{Kit: k.Path, Report: rep}
	}
	return &Kit{Name: k.Path, Descriptor: pub.Descriptor, Source: k}, nil
}

// FromArtifact reads the published descriptor of an opened kit artifact
// from its annotation (platform "" selects the artifact's default, as
// artifact.Inspect does). name labels the kit; "" uses the reference.
func FromArtifact(ctx context.Context, a *artifact.Artifact, name, platform string) (*Kit, error) {
	var opts []artifact.InspectOption
	if platform != "" {
		opts = append(opts, artifact.WithPlatform(platform))
	}
	in, err := a.Inspect(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("reading the kit descriptor: %w", err)
	}
	if name == "" {
		name = in.Reference
	}
	if in.Descriptor == nil {
		return nil, fmt.Errorf("%s: %w: %s", name, ErrNoDescriptor, in.DescriptorError)
	}
	return &Kit{Name: name, Descriptor: in.Descriptor, Digest: in.Digest}, nil
}

// Effective returns the kit in its effective form: create-phase args from
// kitArgs, then defaults, expanded as a runtime does at create (SPEC-v3
// §6), so the surface judged is the policy enforced. References to args
// without a value stay as written.
func (k *Kit) Effective(kitArgs map[string]string) (*Kit, error) {
	values, errs := spec.ResolveArgs(k.Descriptor.Args, spec.PhaseCreate, kitArgs)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: resolving create-phase args: %w", k.Name, errs)
	}
	d, err := spec.ExpandDescriptor(k.Descriptor, values)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.Name, err)
	}
	out := *k
	out.Descriptor = d
	return &out, nil
}

// pos returns where field is declared in the kit's source, or nil for a
// published kit.
func (k *Kit) pos(field string) *spec.Pos {
	if k == nil || k.Source == nil || field == "" {
		return nil
	}
	p := k.Source.PosOf(field).Start
	if !p.IsValid() {
		return nil
	}
	return &p
}

// origins returns where the grants of a kit source are declared, or nil
// for a published kit or when not needed.
func (k *Kit) origins(needed bool) []spec.Origin {
	if !needed || k.Source == nil {
		return nil
	}
	return spec.SurfaceOrigins(k.Descriptor)
}

// origin returns the field declaring a grant of the kit's surface, or "".
func origin(origins []spec.Origin, category, value string) string {
	for _, o := range origins {
		if o.Category == category && o.Value == value {
			return o.Field
		}
	}
	return ""
}

package build

import (
	"errors"
	"time"

	"github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Part is one kit of a composition, for Compose: its image for the
// platform composed, and what its args export.
type Part struct {
	// Name labels the kit in errors.
	Name string
	// Kind is the kit's kind (spec.KindWorkload or spec.KindMixin).
	Kind string
	// Image is the kit's image for the platform.
	Image v1.Image
	// Env are the variables its args export (arg env:), resolved.
	Env map[string]string
}

// Compose stacks the images of a composition as a set merge stacks its
// kits (SPEC-v3 §9.5): the workload's layers first, then the mixins' in
// the order given (the composition order), their image configs folded as
// the merge folds them, with the variables the args export set last.
// Exactly one part must be the workload. The image is an unannotated OCI
// image for platform, created at created.
func Compose(parts []Part, platform v1.Platform, created time.Time) (v1.Image, error) {
	var stack []*member
	for _, p := range parts {
		if p.Kind == spec.KindWorkload {
			stack = append(stack, partMember(p))
		}
	}
	if len(stack) != 1 {
		return nil, errors.New("compose: a composition has exactly one workload")
	}
	for _, p := range parts {
		if p.Kind != spec.KindWorkload {
			stack = append(stack, partMember(p))
		}
	}
	var layers []v1.Layer
	configs := make([]v1.Config, 0, len(stack))
	for _, m := range stack {
		ls, err := m.images[0].Layers()
		if err != nil {
			return nil, err
		}
		layers = append(layers, ls...)
		cf, err := m.images[0].ConfigFile()
		if err != nil {
			return nil, err
		}
		configs = append(configs, cf.Config)
	}
	cfg, err := mergeConfigs(stack, configs, spec.KindWorkload)
	if err != nil {
		return nil, err
	}
	cf := &v1.ConfigFile{Architecture: platform.Architecture, OS: platform.OS, Variant: platform.Variant, Config: cfg,
		Created: v1.Time{Time: created}}
	return ociImage(layers, cf, nil)
}

func partMember(p Part) *member {
	return &member{ref: p.Name, images: []v1.Image{p.Image}, desc: &spec.Descriptor{Kind: p.Kind}, env: p.Env}
}

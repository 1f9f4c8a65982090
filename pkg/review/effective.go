package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// RefusalError is a published kit the gates refuse to judge, because
// what it grants cannot be read soundly: a descriptor that does not
// validate in published or effective mode, a platform manifest whose
// descriptor differs from the index's, a platform without a descriptor.
// A gate fails closed on it: never a pass.
type RefusalError struct {
	Kit     string
	Reasons []string
	// Err classifies the refusal where a caller can act on it
	// (ErrPlatformsDiffer), or is nil.
	Err error
}

// ErrPlatformsDiffer classifies a refusal of a kit whose platform
// manifests carry different descriptors, where one kit was asked for:
// judge one platform at a time.
var ErrPlatformsDiffer = errors.New("the platforms carry different descriptors")

// Unwrap returns the refusal's class, or nil.
func (e *RefusalError) Unwrap() error { return e.Err }

// Error names the kit and every reason.
func (e *RefusalError) Error() string {
	return fmt.Sprintf("%s is refused: %s", e.Kit, strings.Join(e.Reasons, "; "))
}

// PublishedOptions say which form of a published kit Published reads.
type PublishedOptions struct {
	// Platform judges only the platform manifest of that platform
	// ("linux/arm64"; "linux/arm64/v8" matches too); "" judges every
	// platform.
	Platform string
	// KitArgs are create-phase arg values, expanded after the defaults
	// as sbx create --kit-arg does. A name the kit does not declare is
	// an error.
	KitArgs map[string]string
}

// Published reads every descriptor a consumer of the artifact can be
// granted: the index's, which a consumer reads first, and each platform
// manifest's, which it falls back to (SPEC-v3 §9.3). Each is validated in
// published mode and in effective mode (with o.KitArgs and the
// defaults), then expanded into its effective form. It returns one Kit
// per distinct effective descriptor, with the platforms it is served to
// in Platforms, in manifest order. A descriptor that does not validate,
// a platform manifest whose descriptor differs from the index's, and a
// platform with no descriptor at all make a *RefusalError listing every
// reason. name labels the kits; "" uses the reference.
func Published(ctx context.Context, a *artifact.Artifact, name string, o PublishedOptions) ([]*Kit, error) {
	in, err := a.Inspect(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the kit descriptor: %w", err)
	}
	if name == "" {
		name = in.Reference
	}
	index := in.IndexAnnotations[artifact.AnnotationDescriptor]
	var reasons, order []string
	served := map[string][]string{}
	var have []string
	for _, m := range in.Manifests {
		have = append(have, m.Platform)
		if o.Platform != "" && !platformMatches(m.Platform, o.Platform) {
			continue
		}
		own := m.Annotations[artifact.AnnotationDescriptor]
		eff := own
		switch {
		case index != "" && own != "" && !sameJSON(own, index):
			reasons = append(reasons, fmt.Sprintf("%s: the platform manifest's descriptor differs from the index's, so consumers reading one or the other would be granted different authority", m.Platform))
		case index != "":
			eff = index
		case own == "":
			reasons = append(reasons, fmt.Sprintf("%s: neither the index nor the platform manifest carries a %s annotation", m.Platform, artifact.AnnotationDescriptor))
			continue
		}
		if _, ok := served[eff]; !ok {
			order = append(order, eff)
		}
		served[eff] = append(served[eff], m.Platform)
	}
	if o.Platform != "" && len(served) == 0 && len(reasons) == 0 {
		return nil, fmt.Errorf("%w %s: the artifact carries %s", artifact.ErrNoPlatform, o.Platform, strings.Join(have, ", "))
	}
	var kits []*Kit
	for _, raw := range order {
		k, why, err := effectiveDescriptor(name, raw, o.KitArgs)
		if err != nil {
			return nil, err
		}
		label := strings.Join(served[raw], ", ")
		for _, w := range why {
			reasons = append(reasons, label+": "+w)
		}
		if k != nil {
			k.Digest, k.Platforms = in.Digest, served[raw]
			kits = append(kits, k)
		}
	}
	if len(reasons) > 0 {
		return nil, &RefusalError{Kit: name, Reasons: reasons}
	}
	return kits, nil
}

// effectiveDescriptor decodes, validates and expands one published
// descriptor. Reasons to refuse it come back in why; err is for a kit
// arg the descriptor does not declare.
func effectiveDescriptor(name, raw string, kitArgs map[string]string) (k *Kit, why []string, err error) {
	src, perr := spec.Parse(artifact.AnnotationDescriptor, []byte(raw))
	if perr != nil || src.Descriptor == nil {
		msg := "the descriptor annotation does not decode"
		if perr != nil {
			msg += ": " + perr.Error()
		}
		return nil, []string{msg}, nil
	}
	for n := range kitArgs {
		if _, ok := src.Descriptor.Args[n]; !ok {
			return nil, nil, fmt.Errorf("%s: kit arg %q is not declared by this kit", name, n)
		}
	}
	for _, mode := range []spec.Mode{spec.ModePublished, spec.ModeEffective} {
		if rep := src.Validate(spec.WithMode(mode), spec.WithKitArgs(kitArgs)); !rep.OK() {
			msgs := make([]string, len(rep.Errors))
			for i, e := range rep.Errors {
				msgs[i] = e.Error()
			}
			why = append(why, fmt.Sprintf("the descriptor does not validate in %s mode: %s", mode, strings.Join(msgs, "; ")))
		}
	}
	if len(why) > 0 {
		return nil, why, nil
	}
	k, err = (&Kit{Name: name, Descriptor: src.Descriptor}).Effective(kitArgs)
	if err != nil {
		return nil, []string{err.Error()}, nil
	}
	return k, nil, nil
}

// platformMatches reports whether a manifest's platform is the one
// asked for: the same, or a variant of it (linux/arm64/v8 for
// linux/arm64).
func platformMatches(have, want string) bool {
	return have == want || strings.HasPrefix(have, want+"/")
}

// sameJSON reports whether two annotation values hold the same JSON
// value (whatever their key order or spacing); values that do not decode
// compare as text.
func sameJSON(a, b string) bool {
	if a == b {
		return true
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// onePlatformSet returns the one kit of a published artifact whose
// platforms all serve the same descriptor, or an error naming them.
func onePlatformSet(name string, kits []*Kit) (*Kit, error) {
	if len(kits) == 1 {
		return kits[0], nil
	}
	var groups []string
	for _, k := range kits {
		groups = append(groups, strings.Join(k.Platforms, ", "))
	}
	slices.Sort(groups)
	return nil, &RefusalError{Kit: name, Err: ErrPlatformsDiffer,
		Reasons: []string{fmt.Sprintf("its platforms carry different descriptors (%s); judge one platform at a time", strings.Join(groups, " | "))}}
}

package build

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/containerd/platforms"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// member is one kit a set lists, resolved in its registry.
type member struct {
	// ref is the reference as listed (build-phase args expanded).
	ref string
	// digest is what ref resolved to (an index or a manifest).
	digest v1.Hash
	// images are its images, one per requested platform, in order.
	images []v1.Image
	// desc is its published descriptor, with the set's kits[].args applied
	// and its own args dropped.
	desc *spec.Descriptor
	// stem is where it stages its sources.
	stem string
	// env are the variables its args export (arg env:), resolved.
	env map[string]string
}

// resolveMember resolves a listed kit, picks its image for each platform
// and reads its published descriptor from the manifest annotations.
func resolveMember(ctx context.Context, i int, ref string, kr spec.KitRef, opts *options) (*member, error) {
	listed, err := name.ParseReference(ref)
	if err != nil {
		return nil, err
	}
	target := ref
	if kr.Digest != "" {
		target = listed.Context().Digest(kr.Digest).String()
	}
	// artifact.Open reads with the manifest and config bounds, the error
	// sentinels and the build's keychain, transport and insecure setting.
	a, err := artifact.Open(ctx, target, opts.artifactOptions()...)
	if err != nil {
		return nil, err
	}
	m := &member{ref: ref}
	if idx, ok := a.Index(); ok {
		if m.digest, err = idx.Digest(); err != nil {
			return nil, err
		}
		if m.images, err = platformImages(idx, opts); err != nil {
			return nil, err
		}
	} else {
		img, _ := a.Image()
		if m.digest, err = img.Digest(); err != nil {
			return nil, err
		}
		cf, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		have := platforms.Normalize(ocispecs.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant})
		for j, pl := range opts.platforms {
			if !platforms.NewMatcher(pl).Match(have) {
				return nil, fmt.Errorf("it is a single %s image, and the set is built for %s too; publish the kit for every platform of the set", platforms.Format(have), opts.ids[j])
			}
			m.images = append(m.images, img)
		}
	}
	raw := ""
	for j, img := range m.images {
		mf, err := img.Manifest()
		if err != nil {
			return nil, err
		}
		a, ok := mf.Annotations[artifact.AnnotationDescriptor]
		if !ok {
			return nil, fmt.Errorf("its %s manifest has no %s annotation; a set lists published kit images", opts.ids[j], artifact.AnnotationDescriptor)
		}
		if j > 0 && a != raw {
			return nil, fmt.Errorf("its %s and %s manifests carry different descriptors; a kit's descriptor describes the kit, not one platform", opts.ids[0], opts.ids[j])
		}
		raw = a
	}
	pk, err := spec.Parse(ref, []byte(raw))
	if err != nil {
		return nil, err
	}
	if rep := pk.Validate(spec.WithMode(spec.ModePublished)); !rep.OK() {
		return nil, fmt.Errorf("its published descriptor is invalid: %w", rep.Err())
	}
	m.desc = pk.Descriptor
	m.desc.Version = spec.EffectiveVersion(listed.String(), m.desc)
	if m.desc.Kind != spec.KindWorkload && m.desc.Kind != spec.KindMixin {
		return nil, fmt.Errorf("its published kind is %q, not workload or mixin", m.desc.Kind)
	}
	if m.stem, err = stagedStem(m.images[0]); err != nil {
		return nil, err
	}
	return m, nil
}

// platformImages picks the image of each requested platform from idx,
// skipping attestation manifests.
func platformImages(idx v1.ImageIndex, opts *options) ([]v1.Image, error) {
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	out := make([]v1.Image, 0, len(opts.platforms))
	for j, pl := range opts.platforms {
		match := platforms.NewMatcher(pl)
		var found *v1.Descriptor
		for _, d := range im.Manifests {
			if d.Platform == nil || artifact.IsAttestation(d) {
				continue
			}
			have := platforms.Normalize(ocispecs.Platform{OS: d.Platform.OS, Architecture: d.Platform.Architecture, Variant: d.Platform.Variant})
			if match.Match(have) {
				found = &d
				break
			}
		}
		if found == nil {
			return nil, fmt.Errorf("it has no %s image; publish the kit for every platform of the set", opts.ids[j])
		}
		img, err := idx.Image(found.Digest)
		if err != nil {
			return nil, err
		}
		out = append(out, img)
	}
	return out, nil
}

// stagedStem finds where a kit image stages its sources: the staged
// directory holding kit.yaml in the last layer that stages one (a kit's
// own staged layer comes last).
func stagedStem(img v1.Image) (string, error) {
	var stems []string
	err := scanLayers(img, func(name string, _ *tar.Reader) (bool, error) {
		dir, file := path.Split(name)
		if file == stagedDescriptor && path.Dir(path.Clean(dir)) == spec.StagedRoot {
			stems = append(stems, path.Base(dir))
		}
		return false, nil
	}, func() bool { return len(stems) > 0 })
	if err != nil {
		return "", err
	}
	switch len(stems) {
	case 0:
		return "", fmt.Errorf("it stages no sources under %s; a set lists published kit images", spec.StagedRoot)
	case 1:
		return stems[0], nil
	}
	slices.Sort(stems)
	return "", fmt.Errorf("its last staged layer holds the sources of %d kits (%s), so which one this reference names is unclear; list those kits instead", len(stems), strings.Join(stems, ", "))
}

// scanLayers walks the tar entries of img's layers, last layer first,
// calling visit with each entry's absolute path, until visit returns true
// or, after a whole layer, enough returns true.
func scanLayers(img v1.Image, visit func(name string, tr *tar.Reader) (bool, error), enough func() bool) error {
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	for i := len(layers) - 1; i >= 0; i-- {
		rc, err := layers[i].Uncompressed()
		if err != nil {
			return fmt.Errorf("reading a layer: %w", err)
		}
		tr := tar.NewReader(rc)
		stop := false
		for !stop {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rc.Close()
				return fmt.Errorf("reading a layer: %w", err)
			}
			if stop, err = visit(path.Clean("/"+h.Name), tr); err != nil {
				rc.Close()
				return err
			}
		}
		rc.Close()
		if stop || enough() {
			return nil
		}
	}
	return nil
}

// body reads a file the member staged (an agent-context contentFile).
func (m *member) body(p string) ([]byte, error) {
	p = path.Clean(p)
	var out []byte
	found := false
	err := scanLayers(m.images[0], func(name string, tr *tar.Reader) (bool, error) {
		if name != p {
			return false, nil
		}
		b, err := io.ReadAll(io.LimitReader(tr, 8<<20))
		out, found = b, true
		return true, err
	}, func() bool { return found })
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("the image does not hold %s", p)
	}
	return out, nil
}

// applyArgs answers the member's create-phase args with the values the
// set gives in kits[].args (or their defaults), expands them into its
// declarations and drops its args: the merged kit's args are the set's.
// A value that is exactly ${{ kit.args.NAME }} re-exports the set's arg
// NAME, which the set must declare.
func (m *member) applyArgs(supplied map[string]string, setArgs map[string]spec.Arg) error {
	decls := m.desc.Args
	for _, n := range slices.Sorted(maps.Keys(supplied)) {
		if _, ok := decls[n]; !ok {
			return fmt.Errorf("kits[].args names %q, which the kit does not declare", n)
		}
	}
	values := map[string]string{}
	m.env = map[string]string{}
	for _, n := range slices.Sorted(maps.Keys(decls)) {
		a := decls[n]
		v, ok := supplied[n]
		if !ok && a.Default != nil {
			v, ok = *a.Default, true
		}
		if !ok {
			if a.Required {
				return fmt.Errorf("its arg %q is required; give it a value in kits[].args", n)
			}
			continue
		}
		if setArg, whole := spec.WholeArgRef(v); whole {
			if _, declared := setArgs[setArg]; !declared {
				return fmt.Errorf("kits[].args re-exports %q as the set's arg %q, which the set does not declare", n, setArg)
			}
			if a.Env != "" {
				return fmt.Errorf("its arg %q exports %s and is re-exported rather than given a value; the merged kit cannot hold a variable whose value arrives at create, so give it a literal value", n, a.Env)
			}
		} else if err := a.Check(v); err != nil {
			return fmt.Errorf("kits[].args %q: %w", n, err)
		} else if a.Env != "" {
			m.env[a.Env] = v
		}
		values[n] = v
	}
	d := *m.desc
	d.Args = nil
	out, err := spec.ExpandDescriptor(&d, values)
	if err != nil {
		return fmt.Errorf("its declarations do not take the set's args: %w", err)
	}
	j, err := json.Marshal(out)
	if err != nil {
		return err
	}
	for _, ref := range spec.FindArgRefs(string(j)) {
		if _, ok := values[ref.Name]; !ok {
			if _, own := decls[ref.Name]; own {
				return fmt.Errorf("its arg %q has no value or default; give it one in kits[].args", ref.Name)
			}
		}
	}
	m.desc = out
	return nil
}

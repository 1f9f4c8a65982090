package build

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"path"
	"slices"

	"github.com/google/go-containerregistry/pkg/v1"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// buildSet merges a kind: set in-process: every listed kit is resolved in
// its registry, their declarations are merged and their layers reused as
// they are, with the set's own staged sources on top.
func buildSet(ctx context.Context, p progress.Reporter, k *spec.Kit, opts *options) (*built, error) {
	d := k.Descriptor
	done := p.Step(ctx, "publish", "[kitsmith] check the set "+k.Stem)
	rep := k.Validate()
	if !rep.OK() {
		err := &DescriptorError{Kit: k.Path, Report: rep}
		done(err)
		return nil, err
	}
	values, errs := spec.ResolveArgs(d.Args, spec.PhaseBuild, opts.BuildArgs)
	if len(errs) > 0 {
		err := &DescriptorError{Kit: k.Path, Report: &spec.Report{Errors: errs}}
		done(err)
		return nil, err
	}
	done(nil)

	members := make([]*member, len(d.Kits))
	for i, kr := range d.Kits {
		ref := spec.ExpandArgRefs(kr.Ref, func(name string) (string, bool) { return values[name], true })
		done := p.Step(ctx, fmt.Sprintf("resolve-%d", i), "[kitsmith] resolve "+ref)
		m, err := resolveMember(ctx, i, ref, kr, opts)
		if err == nil {
			err = m.applyArgs(kr.Args, d.Args)
		}
		done(err)
		if err != nil {
			return nil, fmt.Errorf("kits[%d] %s: %w", i, ref, err)
		}
		members[i] = m
	}
	if err := checkStems(k.Stem, members); err != nil {
		return nil, err
	}
	ordered, err := orderMembers(members)
	if err != nil {
		return nil, err
	}

	done = p.Step(ctx, "merge", "[kitsmith] merge the declarations of "+k.Stem)
	b, err := mergeAndAssemble(k, ordered, members, opts)
	done(err)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// mergeAndAssemble publishes the set's own declarations, merges them with
// the members' and assembles the index.
func mergeAndAssemble(k *spec.Kit, ordered, listed []*member, opts *options) (*built, error) {
	kind := spec.KindMixin
	for _, m := range listed {
		if m.desc.Kind == spec.KindWorkload {
			kind = spec.KindWorkload
		}
	}
	own, err := publishOwn(k, kind, listed, opts)
	if err != nil {
		return nil, err
	}
	cs := make([]contribution, 0, len(ordered)+1)
	for _, m := range ordered {
		cs = append(cs, contribution{who: m.ref, d: m.desc, body: m.body})
	}
	cs = append(cs, contribution{who: spec.SetOwnName, d: spec.SetOwnDeclarations(own.Descriptor), body: func(cf string) ([]byte, error) {
		rel, ok := own.Staged[cf]
		if !ok {
			return nil, fmt.Errorf("%s is not one of the set's files", cf)
		}
		return k.Files[rel], nil
	}})
	mg, err := mergeSet(own.Descriptor, k.Descriptor.Kind, k.Stem, cs)
	if err != nil {
		return nil, err
	}
	y, err := descriptorYAML(mg.d)
	if err != nil {
		return nil, err
	}
	pk, err := spec.Parse(path.Join(spec.StagedDir(k.Stem), stagedDescriptor), y)
	if err != nil {
		return nil, err
	}
	if rep := pk.Validate(spec.WithMode(spec.ModePublished)); !rep.OK() {
		return nil, fmt.Errorf("the merged descriptor of the set is not a valid published descriptor: %w", rep.Err())
	}
	files, err := stagedFiles(k, own, y)
	if err != nil {
		return nil, err
	}
	files = append(files, mg.files...)
	slices.SortFunc(files, func(a, b stagedFile) int { return cmpString(a.Path, b.Path) })
	for i := 1; i < len(files); i++ {
		if files[i].Path == files[i-1].Path {
			return nil, fmt.Errorf("the set would stage two files as %s", files[i].Path)
		}
	}
	tb, err := stagedTar(files, opts.epochTime())
	if err != nil {
		return nil, err
	}
	staged, err := newMemLayer(tb)
	if err != nil {
		return nil, err
	}
	ann, err := artifact.Annotations(pk.Descriptor, opts.builtBy, opts.created)
	if err != nil {
		return nil, err
	}
	imgs := make([]v1.Image, len(opts.platforms))
	for i := range opts.platforms {
		if imgs[i], err = assembleSetImage(ordered, i, staged, kind, opts, ann); err != nil {
			return nil, fmt.Errorf("%s: %w", opts.ids[i], err)
		}
	}
	idx, err := ociIndex(imgs, opts.platforms, ann)
	if err != nil {
		return nil, err
	}
	return &built{route: RouteSet, index: idx, published: pk.Descriptor, yaml: y, stem: k.Stem, kind: kind}, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// publishOwn publishes the set's own descriptor as the derived kind with
// every listed kit pinned to the digest it resolved to.
func publishOwn(k *spec.Kit, kind string, listed []*member, opts *options) (*spec.Published, error) {
	digests := make([]string, len(listed))
	for i, m := range listed {
		digests[i] = m.digest.String()
	}
	pub, rep := k.PublishSet(kind, digests, opts.BuildArgs)
	if pub == nil || !rep.OK() {
		return nil, &DescriptorError{Kit: k.Path, Report: rep}
	}
	return pub, nil
}

// descriptorYAML renders a descriptor as staged YAML, fields in the
// specification's order, block style.
func descriptorYAML(d *spec.Descriptor) ([]byte, error) {
	j, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(j, &n); err != nil {
		return nil, err
	}
	var plain func(*yaml.Node)
	plain = func(x *yaml.Node) {
		x.Style = 0
		for _, c := range x.Content {
			plain(c)
		}
	}
	plain(&n)
	var out bytes.Buffer
	out.WriteString(spec.SyntaxLine + "\n")
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// checkStems refuses two kits staging their sources in one directory.
func checkStems(stem string, members []*member) error {
	owner := map[string]string{stem: "the set itself"}
	for _, m := range members {
		if prev, dup := owner[m.stem]; dup {
			return fmt.Errorf("%s and %s both stage their sources in %s; rename one kit's descriptor", prev, m.ref, spec.StagedDir(m.stem))
		}
		owner[m.stem] = m.ref
	}
	return nil
}

// orderMembers orders the listed kits so that providers come before the
// kits that require or integrate them; ties keep the listed order. A
// dependency cycle is an error.
func orderMembers(members []*member) ([]*member, error) {
	cs := make([]spec.Contribution, len(members))
	for i, m := range members {
		cs[i] = spec.Contribution{Who: m.ref, Descriptor: m.desc}
	}
	order, err := spec.DependencyOrder(cs)
	if err != nil {
		return nil, err
	}
	out := make([]*member, len(order))
	for i, j := range order {
		out[i] = members[j]
	}
	return out, nil
}

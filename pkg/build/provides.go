package build

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"

	gateway "github.com/moby/buildkit/frontend/gateway/client"
	"golang.org/x/sync/errgroup"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Package databases read for derived provides (SPEC-v3 §9.6).
const (
	dpkgStatusPath   = "/var/lib/dpkg/status"
	apkInstalledPath = "/lib/apk/db/installed"
)

// derivedProvides reads the package databases of a built workload and
// returns its deb/ and apk/ provides.
func derivedProvides(ctx context.Context, ref gateway.Reference) ([]string, error) {
	if ref == nil {
		return nil, nil
	}
	var dpkg, apk []byte
	eg, ectx := errgroup.WithContext(ctx)
	eg.Go(func() (err error) { dpkg, err = readIfExists(ectx, ref, dpkgStatusPath); return err })
	eg.Go(func() (err error) { apk, err = readIfExists(ectx, ref, apkInstalledPath); return err })
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return conform.DerivedProvides(dpkg, apk), nil
}

// readIfExists reads a file of a solved filesystem; a file that does not
// exist reads as nil.
func readIfExists(ctx context.Context, ref gateway.Reference, p string) ([]byte, error) {
	st, err := ref.StatFile(ctx, gateway.StatRequest{Path: p})
	if err != nil || st == nil || st.IsDir() {
		return nil, nil //nolint:nilerr // a missing database contributes nothing
	}
	b, err := ref.ReadFile(ctx, gateway.ReadRequest{Filename: p})
	if err != nil {
		return nil, fmt.Errorf("reading %s from the built image: %w", p, err)
	}
	return b, nil
}

// withDerivedProvides appends derived provides entries to the published
// descriptor YAML and judges the result again as a published descriptor.
func withDerivedProvides(published []byte, stem string, derived []string) (*spec.Descriptor, []byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(published, &doc); err != nil {
		return nil, nil, fmt.Errorf("adding derived provides: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("adding derived provides: the published descriptor is not a mapping")
	}
	root := doc.Content[0]
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "provides" {
			continue
		}
		v := root.Content[i+1]
		switch {
		case v.Kind == yaml.AliasNode:
			return nil, nil, fmt.Errorf("adding derived provides: provides: is an alias (*%s); write the list out so the derived entries can be appended", v.Value)
		case v.Anchor != "":
			return nil, nil, fmt.Errorf("adding derived provides: provides: carries the anchor &%s; drop it so the derived entries do not leak into its aliases", v.Anchor)
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			*v = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		case v.Kind != yaml.SequenceNode:
			return nil, nil, fmt.Errorf("adding derived provides: published provides is not a list")
		}
		list = v
	}
	if list == nil {
		list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "provides"}, list)
	}
	list.Style = 0 // block style: flow style would put hundreds of entries on one line
	for _, p := range derived {
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p})
	}
	var body bytes.Buffer
	enc := yaml.NewEncoder(&body)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, nil, fmt.Errorf("adding derived provides: %w", err)
	}
	out := body.Bytes()
	if !bytes.HasPrefix(out, []byte("# syntax=")) {
		out = append([]byte(spec.SyntaxLine+"\n"), out...)
	}
	pk, err := spec.Parse(path.Join(spec.StagedDir(stem), stagedDescriptor), out)
	if err != nil {
		return nil, nil, fmt.Errorf("adding derived provides: %w", err)
	}
	if rep := pk.Validate(spec.WithMode(spec.ModePublished)); !rep.OK() {
		return nil, nil, fmt.Errorf("the descriptor with %d provides entries derived from the image's packages is not a valid published descriptor: %w",
			len(derived), rep.Err())
	}
	if pk.Descriptor == nil {
		return nil, nil, fmt.Errorf("adding derived provides: %s", strings.TrimSpace(string(out)))
	}
	return pk.Descriptor, out, nil
}

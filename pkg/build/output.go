package build

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/progress"
)

// writeOutputs writes idx to every output through artifact, the one OCI
// writer (registry outputs through one artifact.Client, so they share a
// transport), in the order that leaves the least behind on failure: every
// destination is checked first, then registry outputs get every blob and
// manifest by digest, then local outputs are written (each atomically),
// and registry tags are set last. A failed push therefore leaves no local
// output and moves no tag; a push that succeeded cannot be undone, but it
// is reachable only by digest until its tag is set.
func writeOutputs(ctx context.Context, p progress.Reporter, idx v1.ImageIndex, opts *options) ([]Written, error) {
	a := artifact.FromIndex(idx)
	ao := opts.artifactOptions()
	for _, out := range opts.Outputs {
		if err := artifact.CheckDestination(out.Reference()); err != nil {
			return nil, fmt.Errorf("output %s: %w", out, err)
		}
	}
	written := make([]Written, len(opts.Outputs))
	pushed := make([]v1.Descriptor, len(opts.Outputs))
	targets := make([]artifact.Target, len(opts.Outputs))
	client, err := artifact.NewClient(ao...)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	for i, out := range opts.Outputs {
		if out.Type != OutputRegistry {
			continue
		}
		done := p.Step(ctx, "output-"+out.String(), "[kitsmith] push "+out.Dest+" by digest")
		t, err := client.Target(ctx, out.Dest)
		var d v1.Descriptor
		if err == nil {
			targets[i] = t
			d, err = t.Push(ctx, a)
		}
		done(err)
		if err != nil {
			return nil, err
		}
		pushed[i] = d
	}
	for i, out := range opts.Outputs {
		if out.Type == OutputRegistry {
			continue
		}
		done := p.Step(ctx, "output-"+out.String(), "[kitsmith] write "+out.String())
		_, err := artifact.Write(ctx, a, out.Reference(), ao...)
		done(err)
		if err != nil {
			return nil, err
		}
		written[i] = Written{Output: out, Reference: out.Dest}
	}
	for i, out := range opts.Outputs {
		if out.Type != OutputRegistry {
			continue
		}
		pinned, tag, err := pinnedName(out.Dest, pushed[i])
		if err != nil {
			return nil, err
		}
		if tag {
			done := p.Step(ctx, "tag-"+out.String(), "[kitsmith] tag "+out.Dest)
			err := targets[i].Tag(ctx, pushed[i])
			done(err)
			if err != nil {
				return nil, err
			}
		}
		written[i] = Written{Output: out, Reference: pinned}
	}
	return written, nil
}

// pinnedName is ref pinned to d ("REGISTRY/REPO:TAG@DIGEST"), and whether
// ref names a tag to set.
func pinnedName(ref string, d v1.Descriptor) (string, bool, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return "", false, fmt.Errorf("output %s: %w", ref, err)
	}
	if _, ok := r.(name.Tag); ok {
		return r.Name() + "@" + d.Digest.String(), true, nil
	}
	return r.Name(), false, nil
}

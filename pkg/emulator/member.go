package emulator

import (
	"context"
	"fmt"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/review"
)

// MemberOf reads a published kit as a member of a test run: its
// descriptor and its image for platform (as "linux/amd64"). name labels
// the kit; "" uses the reference.
func MemberOf(ctx context.Context, a *artifact.Artifact, name string, platform v1.Platform) (Member, error) {
	pl := platform.OS + "/" + platform.Architecture
	k, err := review.FromArtifact(ctx, a, name, pl)
	if err != nil {
		return Member{}, err
	}
	if img, ok := a.Image(); ok {
		return Member{Kit: k, Image: img}, nil
	}
	idx, ok := a.Index()
	if !ok {
		return Member{}, fmt.Errorf("%s: neither an image nor an index", k.Name)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return Member{}, fmt.Errorf("%s: reading its index: %w", k.Name, err)
	}
	for _, d := range im.Manifests {
		if d.Platform != nil && d.Platform.OS == platform.OS && d.Platform.Architecture == platform.Architecture {
			img, err := idx.Image(d.Digest)
			if err != nil {
				return Member{}, fmt.Errorf("%s: reading its %s image: %w", k.Name, pl, err)
			}
			return Member{Kit: k, Image: img}, nil
		}
	}
	return Member{}, fmt.Errorf("%s has no %s image; kitsmith test runs the host's platform only", k.Name, pl)
}

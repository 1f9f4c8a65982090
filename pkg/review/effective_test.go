package review

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	atest "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// toolKit is the artifacttest tool mixin with its source edited by fn.
func toolKit(t *testing.T, fn func(string) string) *atest.Kit {
	t.Helper()
	files := maps.Clone(atest.MixinFiles)
	files["tool/tool.yaml"] = fn(files["tool/tool.yaml"])
	k := atest.NewKit(t, files, "tool/tool.yaml")
	k.Content = atest.Mixin(t).Content
	return k
}

func same(y string) string { return y }

func widen(y string) string {
	return strings.Replace(y, "allow: [example.com]", "allow: [example.com, evil.example.net]", 1)
}

// Published reads every descriptor a consumer can be served, or refuses.
func TestPublished(t *testing.T) {
	ctx := context.Background()
	platforms := []string{"linux/amd64", "linux/arm64"}
	split := func(a, b *atest.Kit, index map[string]string) *artifact.Artifact {
		return artifact.FromIndex(atest.Index(t, index, platforms, a.Images(t)[0], b.Images(t)[1]))
	}
	benign, wide := toolKit(t, same), toolKit(t, widen)

	kits, err := Published(ctx, benign.Artifact(t), "tool", PublishedOptions{})
	if err != nil || len(kits) != 1 || !cmp.Equal(kits[0].Platforms, platforms) {
		t.Fatalf("a uniform kit: %v, %v", kits, err)
	}
	kits, err = Published(ctx, split(benign, wide, nil), "tool", PublishedOptions{})
	if err != nil || len(kits) != 2 || kits[1].Platforms[0] != "linux/arm64" {
		t.Fatalf("platforms with their own descriptors: %v, %v", kits, err)
	}
	if kits, err = Published(ctx, split(benign, wide, nil), "tool", PublishedOptions{Platform: "linux/arm64"}); err != nil || len(kits) != 1 || kits[0].Platforms[0] != "linux/arm64" {
		t.Fatalf("one platform: %v, %v", kits, err)
	}
	if _, err := Published(ctx, benign.Artifact(t), "tool", PublishedOptions{Platform: "linux/s390x"}); !errors.Is(err, artifact.ErrNoPlatform) {
		t.Errorf("a platform the kit lacks: %v", err)
	}
	if _, err := Published(ctx, benign.Artifact(t), "tool", PublishedOptions{KitArgs: map[string]string{"nope": "1"}}); err == nil || !strings.Contains(err.Error(), `"nope" is not declared`) {
		t.Errorf("an undeclared kit arg: %v", err)
	}
	var re *RefusalError
	if _, err := Published(ctx, split(benign, wide, benign.IndexAnnotations), "tool", PublishedOptions{}); !errors.As(err, &re) || !strings.Contains(re.Error(), "linux/arm64: the platform manifest's descriptor differs from the index's") {
		t.Errorf("a platform disagreeing with the index: %v", err)
	}
	none := toolKit(t, same)
	none.IndexAnnotations = nil
	none.DeleteAnnotation(artifact.AnnotationDescriptor)
	if _, err := Published(ctx, none.Artifact(t), "tool", PublishedOptions{}); !errors.As(err, &re) || len(re.Reasons) != 2 {
		t.Errorf("no descriptor anywhere: %v", err)
	}
}

// DiffAll names the platforms a change is on, and none when it is on all.
func TestDiffAll(t *testing.T) {
	ctx := context.Background()
	platforms := []string{"linux/amd64", "linux/arm64"}
	benign, wide := toolKit(t, same), toolKit(t, widen)
	old, err := Published(ctx, benign.Artifact(t), "v1", PublishedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	armOnly, err := Published(ctx, artifact.FromIndex(atest.Index(t, nil, platforms, benign.Images(t)[0], wide.Images(t)[1])), "v2", PublishedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := DiffAll(old, armOnly)
	if len(r.Widenings) != 1 || r.Widenings[0].Detail != "evil.example.net" || !cmp.Equal(r.Widenings[0].Platforms, []string{"linux/arm64"}) {
		t.Errorf("a widening on arm64 only: %+v", r.Widenings)
	}
	both, err := Published(ctx, wide.Artifact(t), "v2", PublishedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := DiffAll(old, both); len(r.Widenings) != 1 || r.Widenings[0].Platforms != nil || !cmp.Equal(r.Platforms, platforms) {
		t.Errorf("a widening on every platform: %+v, %v", r.Widenings, r.Platforms)
	}
	if r := DiffAll(both, old); r.Widened() || len(r.Narrowings) != 1 {
		t.Errorf("the narrowing back: %+v", r)
	}
}

// CheckArtifact refuses what Published refuses, and names the platforms
// of a violation on some of them.
func TestCheckArtifactPlatforms(t *testing.T) {
	ctx := context.Background()
	platforms := []string{"linux/amd64", "linux/arm64"}
	benign, wide := toolKit(t, same), toolKit(t, widen)
	p := policy(t, "ceiling: {network: {runtime: [example.com]}}\n")
	r, err := CheckArtifact(ctx, artifact.FromIndex(atest.Index(t, nil, platforms, benign.Images(t)[0], wide.Images(t)[1])), p)
	if err != nil || r.OK() || len(r.Violations) != 1 || !cmp.Equal(r.Violations[0].Platforms, []string{"linux/arm64"}) {
		t.Errorf("arm64 beyond: %+v, %v", r, err)
	}
	r, err = CheckArtifact(ctx, artifact.FromIndex(atest.Index(t, benign.IndexAnnotations, platforms, benign.Images(t)[0], wide.Images(t)[1])), p)
	if err != nil || r.OK() || len(r.Refusals) != 1 || len(r.Violations) != 0 {
		t.Errorf("disagreeing platforms: %+v, %v", r, err)
	}
	if r, err = CheckArtifact(ctx, benign.Artifact(t), p); err != nil || !r.OK() {
		t.Errorf("a kit within: %+v, %v", r, err)
	}
}

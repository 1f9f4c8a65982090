package artifact_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// TestLayoutTarget: a layout target behaves as a registry repository does
// for publishing: Push adds blobs and no entry, Head finds nothing until
// Tag, Tag refuses a manifest that was never pushed, and Push then Tag
// leave the layout Write leaves.
func TestLayoutTarget(t *testing.T) {
	ctx := context.Background()
	kit := at.Mixin(t).Artifact(t)
	dir := filepath.Join(t.TempDir(), "sub", "layout")
	tg, err := artifact.NewTarget(ctx, "oci:"+dir+":1.2.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Head(ctx); !errors.Is(err, artifact.ErrNotFound) {
		t.Fatalf("Head before anything = %v, want ErrNotFound", err)
	}
	d, err := tg.Push(ctx, kit)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Head(ctx); !errors.Is(err, artifact.ErrNotFound) {
		t.Fatalf("Head after Push = %v, want ErrNotFound: Push sets no tag", err)
	}
	other := at.Workload(t).Artifact(t)
	od, err := artifact.Write(ctx, other, "oci:"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Tag(ctx, od); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("Tag of a manifest never pushed = %v, want ErrNotFound", err)
	}
	if err := tg.Tag(ctx, d); err != nil {
		t.Fatal(err)
	}
	got, err := tg.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, got); diff != "" {
		t.Errorf("Head after Tag (-want +got):\n%s", diff)
	}

	written := filepath.Join(t.TempDir(), "layout")
	if _, err := artifact.Write(ctx, kit, "oci:"+written+":1.2.0"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(layoutFiles(t, written), layoutFiles(t, dir)); diff != "" {
		t.Errorf("Push then Tag wrote another layout than Write (-Write +Push/Tag):\n%s", diff)
	}
}

// layoutFiles maps each file of a layout to its content.
func layoutFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLayoutTargetRetag: tagging another kit with the same tag replaces
// that entry only; other tags and referrers stay.
func TestLayoutTargetRetag(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "layout")
	od, err := artifact.Write(ctx, at.Workload(t).Artifact(t), "oci:"+dir+":other")
	if err != nil {
		t.Fatal(err)
	}
	kit := at.Mixin(t)
	first := kit.Artifact(t)
	second := kit.SetAnnotation("org.opencontainers.image.revision", "2").Artifact(t) // SetAnnotation changes kit
	tg, err := artifact.NewTarget(ctx, "oci:"+dir+":kit")
	if err != nil {
		t.Fatal(err)
	}
	var last v1.Descriptor
	for _, a := range []*artifact.Artifact{first, second} {
		d, err := tg.Push(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if d.Digest == last.Digest {
			t.Fatal("the second kit has the first one's digest")
		}
		if _, err := tg.PushReferrer(ctx, d, at.Referrer(t, d, at.BundleType, []byte(`{}`))); err != nil {
			t.Fatal(err)
		}
		if err := tg.Tag(ctx, d); err != nil {
			t.Fatal(err)
		}
		last = d
	}
	var tags []string
	referrers := 0
	for _, e := range readIndex(t, dir).Manifests {
		if e.ArtifactType == at.BundleType {
			referrers++
			continue
		}
		tags = append(tags, e.Annotations[artifact.AnnotationRefName]+"="+e.Digest.String())
	}
	slices.Sort(tags)
	want := []string{"kit=" + last.Digest.String(), "other=" + od.Digest.String()}
	if diff := cmp.Diff(want, tags); diff != "" || referrers != 2 {
		t.Errorf("index.json: %d referrers (want 2), entries (-want +got):\n%s", referrers, diff)
	}
}

func readIndex(t *testing.T, dir string) *v1.IndexManifest {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	im, err := v1.ParseIndexManifest(f)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// recordingTransport fails every request and records its host: a request
// that reached it is one that, on the default transport, would have
// looked its host up in DNS.
type recordingTransport struct {
	mu    sync.Mutex
	hosts []string
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hosts = append(r.hosts, req.URL.Host)
	return nil, fmt.Errorf("recordingTransport: no request may leave this test (%s)", req.URL)
}

// TestLocalReferencesMakeNoRequest is issue 21: Push, Tag, Head and
// NewTarget on an oci: reference write and read the layout, and a
// transport-like prefix is refused, without any request, so no scheme
// is ever looked up as a host ("registry unreachable: lookup oci").
func TestLocalReferencesMakeNoRequest(t *testing.T) {
	ctx := context.Background()
	kit := at.Mixin(t).Artifact(t)
	rt := &recordingTransport{}
	opt := artifact.WithTransport(rt)
	// "oci:out/gh" is the shape that was read as registry "oci:out".
	ref := "oci:" + filepath.Join(t.TempDir(), "out", "gh") + ":1.2.0"
	d, err := artifact.Push(ctx, kit, ref, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := artifact.Tag(ctx, ref, d, opt); err != nil {
		t.Fatal(err)
	}
	if got, err := artifact.Head(ctx, ref, opt); err != nil || got.Digest != d.Digest {
		t.Errorf("Head = %v, %v; want %s", got.Digest, err, d.Digest)
	}
	if a, err := artifact.Open(ctx, ref, opt); err != nil || a.Origin() != artifact.OriginLayout {
		t.Errorf("Open = %v; want the layout", err)
	}
	for _, bad := range []string{"oci-layout:out/gh:1", "docker://registry.example/kits/gh:1", "dir:/tmp/gh"} {
		var de *artifact.DestinationError
		if _, err := artifact.Push(ctx, kit, bad, opt); !errors.As(err, &de) {
			t.Errorf("Push(%s) = %v; want a *DestinationError", bad, err)
		}
		if err := artifact.Tag(ctx, bad, d, opt); !errors.As(err, &de) {
			t.Errorf("Tag(%s) = %v; want a *DestinationError", bad, err)
		}
		if _, err := artifact.NewTarget(ctx, bad, opt); !errors.As(err, &de) {
			t.Errorf("NewTarget(%s) = %v; want a *DestinationError", bad, err)
		}
	}
	if len(rt.hosts) != 0 {
		t.Errorf("requests to %v; want none", rt.hosts)
	}
}

// TestIsAttestation: the one rule for "is this index entry an
// attestation": BuildKit's marker annotation, whatever the platform.
func TestIsAttestation(t *testing.T) {
	marker := map[string]string{artifact.AnnotationReferenceType: artifact.ReferenceTypeAttestation}
	unknown := &v1.Platform{OS: "unknown", Architecture: "unknown"}
	amd64 := &v1.Platform{OS: "linux", Architecture: "amd64"}
	tests := []struct {
		name string
		d    v1.Descriptor
		want bool
	}{
		{"BuildKit's attestation: marker and unknown/unknown", v1.Descriptor{Platform: unknown, Annotations: marker}, true},
		{"the marker on another platform", v1.Descriptor{Platform: amd64, Annotations: marker}, true},
		{"the marker without a platform", v1.Descriptor{Annotations: marker}, true},
		{"unknown/unknown without the marker", v1.Descriptor{Platform: unknown}, false},
		{"another reference type", v1.Descriptor{Platform: unknown, Annotations: map[string]string{artifact.AnnotationReferenceType: "signature"}}, false},
		{"a platform image", v1.Descriptor{Platform: amd64}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := artifact.IsAttestation(tt.d); got != tt.want {
				t.Errorf("IsAttestation = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLayoutTargetsConcurrent: targets of one Client that tag kits and
// attach referrers in the same layout at once (publish --tag-template
// 'oci:DIR:{stem}' with several kits) lose no index.json entry.
func TestLayoutTargetsConcurrent(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "layout")
	c, err := artifact.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 8
	kit := at.Mixin(t)
	arts := make([]*artifact.Artifact, n)
	for i := range arts {
		arts[i] = kit.SetAnnotation("org.opencontainers.image.revision", fmt.Sprint(i)).Artifact(t)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			tg, err := c.Target(ctx, fmt.Sprintf("oci:%s:kit%d", dir, i))
			if err == nil {
				var d v1.Descriptor
				if d, err = tg.Push(ctx, arts[i]); err == nil {
					if _, err = tg.PushReferrer(ctx, d, at.Referrer(t, d, at.BundleType, []byte(`{}`))); err == nil {
						err = tg.Tag(ctx, d)
					}
				}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	tags, referrers := 0, 0
	for _, e := range readIndex(t, dir).Manifests {
		if e.ArtifactType == at.BundleType {
			referrers++
		} else if e.Annotations[artifact.AnnotationRefName] != "" {
			tags++
		}
	}
	if tags != n || referrers != n {
		t.Errorf("index.json holds %d tagged kits and %d referrers; want %d of each", tags, referrers, n)
	}
}

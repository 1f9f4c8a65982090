package artifact_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

var _ sign.ReferrerStore = artifact.Target(nil)

// noDeleteRegistry is a registry without the referrers API that answers
// every DELETE with 405, as GHCR and Docker Hub do (docker/sbx-releases#553),
// and counts the DELETEs it refused.
func noDeleteRegistry(t *testing.T, deletes *atomic.Int64) string {
	t.Helper()
	reg := registry.New(registry.WithReferrersSupport(false), registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deletes.Add(1)
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// storeCase is where a kit and its referrers are kept: the kit is written
// to ref, the store opened on it.
type storeCase struct {
	name string
	ref  func(t *testing.T) string
	// fallbackTag says the registry has no referrers API, so the
	// tag-schema index must exist after a push.
	fallbackTag bool
}

func storeCases(deletes *atomic.Int64) []storeCase {
	return []storeCase{
		{name: "referrers API", ref: func(t *testing.T) string { return at.Registry(t, true) + "/kits/gh:1.2.0" }},
		{name: "tag schema", ref: func(t *testing.T) string { return at.Registry(t, false) + "/kits/gh:1.2.0" }, fallbackTag: true},
		{name: "DELETE 405", ref: func(t *testing.T) string { return noDeleteRegistry(t, deletes) + "/kits/gh:1.2.0" }, fallbackTag: true},
		{name: "layout", ref: func(t *testing.T) string { return "oci:" + filepath.Join(t.TempDir(), "layout") + ":1.2.0" }},
	}
}

func TestStore(t *testing.T) {
	var deletes atomic.Int64
	for _, tc := range storeCases(&deletes) {
		t.Run(tc.name, func(t *testing.T) {
			ref := tc.ref(t)
			exerciseStore(t, ref, tc.fallbackTag)
		})
	}
	// The pushes succeeded against a registry that refuses DELETE because
	// none is needed: the tag-schema index is replaced by a PUT.
	if n := deletes.Load(); n != 0 {
		t.Errorf("pushing referrers sent %d DELETEs; the tag schema needs none", n)
	}
}

// exerciseStore writes a kit to ref, attaches two referrers, and reads
// them back.
func exerciseStore(t *testing.T, ref string, fallbackTag bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	subject, err := artifact.Write(ctx, at.Mixin(t).Artifact(t), ref)
	if err != nil {
		t.Fatal(err)
	}
	st, err := artifact.NewTarget(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.Referrers(ctx, subject)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Fatalf("a fresh kit has referrers: %+v", list)
	}
	bodies := map[v1.Hash]string{}
	var pushed []string
	for _, body := range []string{`{"bundle":1}`, `{"bundle":2}`} {
		r := at.Referrer(t, subject, at.BundleType, []byte(body))
		d, err := st.PushReferrer(ctx, subject, r)
		if err != nil {
			t.Fatal(err)
		}
		bodies[d.Digest] = body
		pushed = append(pushed, d.Digest.String())
		// Pushing the same referrer again changes nothing.
		if _, err := st.PushReferrer(ctx, subject, r); err != nil {
			t.Fatal(err)
		}
	}
	list, err = st.Referrers(ctx, subject)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range list {
		got = append(got, d.Digest.String())
	}
	slices.Sort(got)
	slices.Sort(pushed)
	if diff := cmp.Diff(pushed, got); diff != "" {
		t.Errorf("Referrers (-pushed +listed):\n%s", diff)
	}
	for _, d := range list {
		checkReferrer(ctx, t, st, d, subject, bodies[d.Digest])
	}
	if fallbackTag {
		repo := ref[:strings.LastIndex(ref, ":")]
		tag := repo + ":" + strings.Replace(subject.Digest.String(), ":", "-", 1)
		if _, err := artifact.Head(ctx, tag); err != nil {
			t.Errorf("no tag-schema index at %s: %v", tag, err)
		}
	}
	// The kit itself still reads by its reference.
	a, err := artifact.Open(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustCheck(t, a); len(got) != 0 {
		t.Errorf("Check after attaching referrers = %v", got)
	}
}

// checkReferrer reads the referrer d back and compares it with what was
// pushed: its artifactType, subject and one layer holding body.
func checkReferrer(ctx context.Context, t *testing.T, st artifact.Target, d, subject v1.Descriptor, body string) {
	t.Helper()
	img, err := st.Referrer(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.ArtifactType != at.BundleType || m.Subject == nil || m.Subject.Digest != subject.Digest {
		t.Errorf("referrer %s: artifactType %q, subject %+v", d.Digest, m.ArtifactType, m.Subject)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("referrer %s layers: %d, %v", d.Digest, len(layers), err)
	}
	rc, err := layers[0].Compressed()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(b) != body {
		t.Errorf("referrer %s body = %q, %v; want %q", d.Digest, b, err, body)
	}
}

func TestTargetRefuses(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "layout")
	subject, err := artifact.Write(ctx, at.Mixin(t).Artifact(t), "oci:"+dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := artifact.NewTarget(ctx, "oci:"+dir)
	if err != nil {
		t.Fatal(err)
	}
	other := subject
	other.Digest.Hex = strings.Repeat("0", 64)
	if _, err := st.PushReferrer(ctx, subject, at.Referrer(t, other, at.BundleType, []byte("{}"))); err == nil {
		t.Error("PushReferrer accepted a manifest whose subject is another digest")
	}
	d, err := st.PushReferrer(ctx, subject, at.Referrer(t, subject, at.BundleType, []byte("{}")))
	if err != nil {
		t.Fatal(err)
	}
	wrong := d
	wrong.Size++
	if _, err := st.Referrer(ctx, wrong); err == nil {
		t.Error("Referrer accepted a descriptor with the wrong size")
	}
	notLayout := t.TempDir()
	if err := os.WriteFile(filepath.Join(notLayout, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"oci-archive:" + filepath.Join(t.TempDir(), "kit.tar"), "oci:" + notLayout, "oci:" + file, "oci:" + file + "/under"} {
		var de *artifact.DestinationError
		if _, err := artifact.NewTarget(ctx, ref); !errors.As(err, &de) {
			t.Errorf("NewTarget(%s) = %v; want a *DestinationError", ref, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "index.json")); err != nil {
		t.Fatal(err)
	}
}

// TestStoreDistribution shows, against the real distribution registry
// (which has no referrers API), that the tag schema is written and found
// again.
func TestStoreDistribution(t *testing.T) {
	reg := os.Getenv("KITSMITH_TEST_REGISTRY")
	if reg == "" {
		if os.Getenv("KITSMITH_INTEGRATION") == "1" {
			t.Fatal("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_REGISTRY is not set; start the services with scripts/services.sh")
		}
		t.Skip("KITSMITH_TEST_REGISTRY is not set (scripts/services.sh env)")
	}
	repo := reg + "/kitsmith-test/artifact-store-" + strings.ToLower(strings.ReplaceAll(time.Now().UTC().Format("20060102t150405.000000000"), ".", ""))
	exerciseStore(t, repo+":1.2.0", true)
}

// TestLegacySignatureStore: a registry target reads cosign's legacy
// signatures (pkg/sign's LegacySignatureStore); a fresh kit has none.
func TestLegacySignatureStore(t *testing.T) {
	ctx := context.Background()
	ref := at.Registry(t, false) + "/kits/legacy:1.0.0"
	subject, err := artifact.Write(ctx, at.Mixin(t).Artifact(t), ref)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := artifact.NewTarget(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	ls, ok := tg.(sign.LegacySignatureStore)
	if !ok {
		t.Fatalf("%T is not a sign.LegacySignatureStore", tg)
	}
	if img, err := ls.LegacySignatures(ctx, subject); img != nil || err != nil {
		t.Errorf("LegacySignatures of an unsigned kit = %v, %v; want none", img, err)
	}
}

package publish

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// denyingRegistry is an in-process registry that answers 403 DENIED to
// every write under /v2/denied/.
func denyingRegistry(t *testing.T) string {
	t.Helper()
	h := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead && strings.HasPrefix(r.URL.Path, "/v2/denied/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"errors":[{"code":"DENIED","message":"repository is read-only"}]}`)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestRunRealRegistry publishes through pkg/artifact to an in-process
// registry: the tag appears last, the referrers are discoverable, and a
// registry refusing the push leaves no tag.
func TestRunRealRegistry(t *testing.T) {
	host := denyingRegistry(t)
	f := newFixture()
	o := f.options(t)
	o.Registry = NewRegistry()
	kit := load(t, "testdata/good")

	o.Tag = host + "/kits/good:1.0.0"
	res, err, _ := run(t, []*spec.Kit{kit}, o)
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kits[0]
	d, err := artifact.Head(context.Background(), o.Tag)
	if err != nil || d.Digest != k.Index.Digest {
		t.Fatalf("tag = %v, %v; want %s", d.Digest, err, k.Index.Digest)
	}
	st, err := artifact.NewTarget(context.Background(), o.Tag)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := st.Referrers(context.Background(), k.Index)
	if err != nil || len(refs) != 2 {
		t.Errorf("referrers = %v, %v; want the signature and the provenance", refs, err)
	}

	o.Tag = host + "/denied/good:1.0.0"
	res, err, _ = run(t, []*spec.Kit{kit}, o)
	var se *StageError
	if !errors.As(err, &se) || se.Stage != StagePush || !errors.Is(err, artifact.ErrDenied) {
		t.Fatalf("err = %v; want a push failure wrapping artifact.ErrDenied", err)
	}
	if !strings.Contains(err.Error(), "push failed") || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("message %q; want it to name the push and the registry's reason", err)
	}
	if _, err := artifact.Head(context.Background(), o.Tag); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("tag after a refused push: %v; want none", err)
	}
	if res.Kits[0].Tagged {
		t.Error("result says tagged")
	}
}

// TestCheckReference: what publish accepts as a destination, checked
// before anything runs (Run returns no Result), for Tag and for each
// reference a template gives.
func TestCheckReference(t *testing.T) {
	tests := []struct {
		ref string
		ok  bool
	}{
		{"registry.example.org/kits/gh:1.2.0", true},
		{"127.0.0.1:5000/kits/gh:1", true},
		{"oci:out/gh:1.2.0", true},
		{"oci:out/gh", true},
		{"oci-archive:out/gh.tar", false},
		{"docker://registry.example.org/kits/gh:1", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			err := CheckReference(tt.ref)
			var de *artifact.DestinationError
			if tt.ok != (err == nil) || (err != nil && !errors.As(err, &de)) {
				t.Errorf("CheckReference = %v; want ok %v, else a *artifact.DestinationError", err, tt.ok)
			}
			if tt.ok || tt.ref == "" {
				return
			}
			f := newFixture()
			o := f.options(t)
			o.Tag, o.Unsigned, o.Signer, o.Verifier = tt.ref, true, nil, nil
			if res, err := Run(context.Background(), nil, []*spec.Kit{load(t, "testdata/good")}, o, nil); res != nil || !errors.As(err, &de) {
				t.Errorf("Run = %v, %v; want no result and the *artifact.DestinationError", res, err)
			}
			if len(f.j.calls) != 0 {
				t.Errorf("calls before the options were checked: %v", f.j.calls)
			}
		})
	}
}

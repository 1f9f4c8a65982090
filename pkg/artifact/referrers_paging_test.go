package artifact_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// pagingRegistry is go-containerregistry's registry with the referrers API
// answering in pages of size entries, sorted by digest, each page but the
// last with a Link rel="next" header, as the distribution spec allows.
func pagingRegistry(t *testing.T, size int) string {
	t.Helper()
	reg := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/referrers/") {
			reg.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		plain := r.Clone(r.Context())
		plain.URL.RawQuery = ""
		reg.ServeHTTP(rec, plain)
		var im v1.IndexManifest
		if err := json.Unmarshal(rec.Body.Bytes(), &im); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		slices.SortFunc(im.Manifests, func(a, b v1.Descriptor) int { return strings.Compare(a.Digest.String(), b.Digest.String()) })
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		from, to := min(page*size, len(im.Manifests)), min((page+1)*size, len(im.Manifests))
		if to < len(im.Manifests) {
			w.Header().Set("Link", fmt.Sprintf(`<%s?page=%d>; rel="next"`, r.URL.Path, page+1))
		}
		im.Manifests = im.Manifests[from:to]
		w.Header().Set("Content-Type", string(types.OCIImageIndex))
		_ = json.NewEncoder(w).Encode(im)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestStoreReferrersPaged lists every referrer of a registry that pages
// its answer, not only the first page.
func TestStoreReferrersPaged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ref := pagingRegistry(t, 40) + "/kits/paged:1.0.0"
	subject, err := artifact.Write(ctx, at.Mixin(t).Artifact(t), ref)
	if err != nil {
		t.Fatal(err)
	}
	st, err := artifact.NewTarget(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	const n = 130
	for i := range n {
		if _, err := st.PushReferrer(ctx, subject, at.Referrer(t, subject, at.BundleType, []byte(fmt.Sprintf(`{"n":%d}`, i)))); err != nil {
			t.Fatal(err)
		}
	}
	list, err := st.Referrers(ctx, subject)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Errorf("Referrers listed %d of %d referrers on a registry answering 40 a page", len(list), n)
	}
}

// endlessReferrers answers every page of the referrers API with size new
// made-up descriptors and a Link to the next page, forever.
func endlessReferrers(t *testing.T, size int, sameDigests bool) (string, *int) {
	t.Helper()
	pages := 0
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/referrers/") {
			reg.ServeHTTP(w, r)
			return
		}
		pages++
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		im := v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex}
		for i := range size {
			seed := fmt.Sprintf("%d-%d", page, i)
			if sameDigests {
				seed = strconv.Itoa(i)
			}
			h, _, _ := v1.SHA256(strings.NewReader(seed))
			im.Manifests = append(im.Manifests, v1.Descriptor{MediaType: types.OCIManifestSchema1, Digest: h, Size: 100, ArtifactType: at.BundleType})
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s?page=%d>; rel="next"`, r.URL.Path, page+1))
		w.Header().Set("Content-Type", string(types.OCIImageIndex))
		_ = json.NewEncoder(w).Encode(im)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), &pages
}

// TestStoreReferrersBounded stops a listing that never ends at the
// documented bounds and says so, with what it listed.
func TestStoreReferrersBounded(t *testing.T) {
	tests := []struct {
		name       string
		size       int
		same       bool
		wantListed int
		wantBound  string
	}{
		{name: "more than MaxReferrers", size: 500, wantListed: artifact.MaxReferrers, wantBound: "more than 4096 referrers"},
		{name: "the same page forever", size: 3, same: true, wantListed: 3, wantBound: "past 256 pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			reg, pages := endlessReferrers(t, tt.size, tt.same)
			st, err := artifact.NewTarget(ctx, reg+"/kits/endless:1.0.0")
			if err != nil {
				t.Fatal(err)
			}
			h, _, _ := v1.SHA256(strings.NewReader("subject"))
			list, err := st.Referrers(ctx, v1.Descriptor{MediaType: types.OCIImageIndex, Digest: h, Size: 1})
			var te *artifact.ReferrersTruncatedError
			if !errors.As(err, &te) || !errors.Is(err, artifact.ErrTooLarge) {
				t.Fatalf("Referrers error = %v, want a *ReferrersTruncatedError", err)
			}
			if len(list) != tt.wantListed || te.Listed != tt.wantListed || !strings.Contains(te.Error(), tt.wantBound) {
				t.Errorf("listed %d (error says %d): %v; want %d and %q", len(list), te.Listed, err, tt.wantListed, tt.wantBound)
			}
			if *pages > 256 {
				t.Errorf("followed %d pages", *pages)
			}
		})
	}
}

// TestStoreReferrersOtherHost refuses a next page on another host: a
// registry cannot send the client's credentials elsewhere.
func TestStoreReferrersOtherHost(t *testing.T) {
	ctx := context.Background()
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/referrers/") {
			reg.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Link", `<http://127.0.0.2:1/v2/x/referrers/y>; rel="next"`)
		w.Header().Set("Content-Type", string(types.OCIImageIndex))
		_, _ = io.WriteString(w, `{"schemaVersion":2,"manifests":[]}`)
	}))
	t.Cleanup(srv.Close)
	st, err := artifact.NewTarget(ctx, srv.Listener.Addr().String()+"/kits/x:1")
	if err != nil {
		t.Fatal(err)
	}
	h, _, _ := v1.SHA256(strings.NewReader("subject"))
	if _, err := st.Referrers(ctx, v1.Descriptor{Digest: h}); !errors.Is(err, artifact.ErrMalformed) {
		t.Errorf("Referrers with a Link to another host = %v, want ErrMalformed", err)
	}
}

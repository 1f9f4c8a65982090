package main

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

// tagDenyingRegistry accepts every push by digest and answers 403 DENIED
// to a manifest PUT by tag, as a registry with immutable or protected tags
// does.
func tagDenyingRegistry(t *testing.T) string {
	t.Helper()
	reg := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if i := strings.LastIndex(r.URL.Path, "/manifests/"); r.Method == http.MethodPut && i >= 0 && !strings.HasPrefix(r.URL.Path[i+len("/manifests/"):], "sha256:") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"errors":[{"code":"DENIED","message":"tag is protected"}]}`)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestPublishTagRefused: the one rule for a registry's refusal (401 or 403,
// or no answer) is exit 2, at the tag PUT as at any other stage; the stage
// and the registry's reason are named and no tag is written.
func TestPublishTagRefused(t *testing.T) {
	ref := tagDenyingRegistry(t) + "/kits/protected:1.0.0"
	stdout, stderr, code := runPublish(t, env{"SOURCE_DATE_EPOCH": "0"}, "--unsigned", "-t", ref, "../../kits/outside")
	if code != exitUsage || !strings.Contains(stderr, "at tag") || !strings.Contains(stdout+stderr, "tag is protected") || !strings.Contains(stderr, "hint:") {
		t.Errorf("exit %d, want 2 naming the tag stage, the reason and a hint\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if _, err := artifact.Head(context.Background(), ref); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("tag after a refused tag PUT: %v", err)
	}
}

package artifact

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// TagIf is Tag as a conditional write (RFC 9110 §13.1, as
// opencontainers/distribution-spec#251 proposes it for registries): the
// manifest PUT carries If-Match with prev's digest, the ETag registries
// give a manifest, or, with prev nil, If-None-Match: * (the tag must not
// exist yet). A registry that honours the condition answers 412 when the
// tag has moved since, and TagIf fails with ErrTagMoved; a registry that
// ignores conditional requests (the distribution spec does not define
// them; distribution v3 ignores them) writes the tag unconditionally, so
// callers read the tag back to know.
func (t *registryTarget) TagIf(ctx context.Context, d v1.Descriptor, prev *v1.Hash) error {
	ctx, cancel := t.opts.operation(ctx)
	defer cancel()
	tag, m, err := t.taggable(ctx, d)
	if err != nil {
		return err
	}
	// A session of its own (not the shared pusher's), so that the PUT goes
	// through the transport that adds the condition.
	ropts := append(t.opts.sessionOptions(), remote.WithContext(ctx),
		remote.WithTransport(&conditionalPut{inner: t.opts.transport, path: "/manifests/" + tag.TagStr(), prev: prev}))
	if err := remote.Tag(tag, m, ropts...); err != nil {
		var te *transport.Error
		if errors.As(err, &te) && te.StatusCode == http.StatusPreconditionFailed {
			return fmt.Errorf("tagging %s: %w: the registry refused the conditional write: %w", tag, ErrTagMoved, err)
		}
		return fmt.Errorf("tagging %s: %w", tag, classifyRegistryError(tag, err))
	}
	return nil
}

// conditionalPut adds a tag precondition to the manifest PUT of one tag.
type conditionalPut struct {
	inner http.RoundTripper
	path  string
	prev  *v1.Hash
}

func (c *conditionalPut) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && strings.HasSuffix(req.URL.Path, c.path) {
		req = req.Clone(req.Context())
		if c.prev != nil {
			req.Header.Set("If-Match", `"`+c.prev.String()+`"`)
		} else {
			req.Header.Set("If-None-Match", "*")
		}
	}
	return c.inner.RoundTrip(req)
}

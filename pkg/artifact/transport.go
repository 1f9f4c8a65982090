package artifact

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// guardTransport bounds what a registry can make kitsmith do: it stops a
// redirect chain after maxRedirects (go-containerregistry's client allows
// same-host redirects without limit), caps manifest and referrer-list
// responses at maxManifestBytes while they are read (go-containerregistry
// reads up to 100 MiB first), and gives each request, its body included,
// at most the per-operation timeout.
type guardTransport struct {
	inner   http.RoundTripper
	timeout time.Duration
}

// RoundTrip sends one request.
func (g *guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	n := 0
	for r := req.Response; r != nil; {
		if n++; n > maxRedirects {
			return nil, fmt.Errorf("%w: %s %s: stopped after %d redirects", ErrUnreachable, req.Method, req.URL.Redacted(), maxRedirects)
		}
		if r.Request == nil {
			break
		}
		r = r.Request.Response
	}
	ctx, cancel := context.WithTimeout(req.Context(), g.timeout)
	resp, err := g.inner.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	limit := int64(-1)
	if p := req.URL.Path; strings.Contains(p, "/manifests/") || strings.Contains(p, "/referrers/") {
		limit = maxManifestBytes
		if resp.ContentLength > limit {
			resp.Body.Close()
			cancel()
			return nil, fmt.Errorf("%w: %s answers %s with %d bytes, over the %d byte manifest limit",
				ErrTooLarge, req.URL.Host, req.URL.Path, resp.ContentLength, limit)
		}
	}
	resp.Body = &guardBody{rc: resp.Body, cancel: cancel, limit: limit, what: req.URL.Path}
	return resp, nil
}

// guardBody is a response body that ends the request's deadline when it
// is closed and fails once it passes its limit (-1: none).
type guardBody struct {
	rc     io.ReadCloser
	cancel context.CancelFunc
	limit  int64
	n      int64
	what   string
}

func (b *guardBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.limit >= 0 && b.n > b.limit {
		return n, fmt.Errorf("%w: %s is over the %d byte manifest limit", ErrTooLarge, b.what, b.limit)
	}
	return n, err
}

func (b *guardBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

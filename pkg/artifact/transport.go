package artifact

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// guardTransport bounds what a registry can make kitsmith do: it stops a
// redirect chain after maxRedirects (go-containerregistry's client allows
// same-host redirects without limit), caps manifest and referrer-list
// responses at maxManifestBytes while they are read (go-containerregistry
// reads up to 100 MiB first), and gives each request, its body included,
// at most the per-operation timeout.
//
// It also remembers the hosts that answered over plain HTTP, and refuses
// HTTPS to them at once: go-containerregistry tries HTTPS first whenever
// it pings a registry it may reach over HTTP (a loopback one, or any with
// WithInsecureRegistry), and against a plain-HTTP port that attempt only
// costs a TCP connection before it fails.
type guardTransport struct {
	inner   http.RoundTripper
	timeout time.Duration
	plain   sync.Map // host:port → true, once it answered over HTTP
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
	if _, ok := g.plain.Load(req.URL.Host); ok && req.URL.Scheme == "https" {
		return nil, fmt.Errorf("%s %s: %s answers over plain HTTP, not HTTPS", req.Method, req.URL.Redacted(), req.URL.Host)
	}
	ctx, cancel := context.WithTimeout(req.Context(), g.timeout)
	resp, err := g.inner.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	if req.URL.Scheme == "http" && (resp.StatusCode < 300 || resp.StatusCode >= 400) {
		// A redirect may lead to HTTPS on the same port (a server that
		// tells the protocols apart): only an answer counts.
		g.plain.Store(req.URL.Host, true)
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

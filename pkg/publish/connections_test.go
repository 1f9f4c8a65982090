package publish

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// countingProxy is a loopback reverse proxy in front of a registry. It
// counts the requests it forwards, the most in flight at once, and the
// TCP connections clients open to it: those that carried a request and
// those that carried none (an HTTPS attempt on a plain-HTTP port).
type countingProxy struct {
	host string

	mu                      sync.Mutex
	requests, inFlight, max int
	conns, used             int
	active                  map[net.Conn]bool
}

type connKey struct{}

// newCountingProxy starts the proxy, over TLS with HTTP/2 when tls is
// set, else over plain HTTP/1.1.
func newCountingProxy(t *testing.T, registry string, tls bool) *countingProxy {
	t.Helper()
	p := &countingProxy{active: map[net.Conn]bool{}}
	target := &url.URL{Scheme: "http", Host: registry}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.SetXForwarded() // the registry writes upload locations for the proxy's scheme and host
		r.Out.Host = r.In.Host
	}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		if c, ok := r.Context().Value(connKey{}).(net.Conn); ok && !p.active[c] {
			p.active[c] = true
			p.used++
		}
		p.requests++
		p.inFlight++
		p.max = max(p.max, p.inFlight)
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
		p.mu.Lock()
		p.inFlight--
		p.mu.Unlock()
	}))
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.conns++
		return context.WithValue(ctx, connKey{}, c)
	}
	if tls {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	p.host = srv.Listener.Addr().String()
	return p
}

// TestRunConnections is issue 21: an unsigned publish of the repository's
// two kits to the real registry (distribution, scripts/services.sh), as
// kitsmith publish --unsigned --tag-template does, counting requests and
// TCP connections through a loopback proxy. One run shares one transport
// and one authenticated session per repository, so connections are kept
// alive across stages and kits: over TLS with HTTP/2 (what public
// registries serve) the whole run takes one connection; over plain
// HTTP/1.1 it takes no more connections than requests in flight at once,
// and HTTPS is tried on the plain port only before it first answered.
// Before, one such run made 54 requests over 22 connections.
func TestRunConnections(t *testing.T) {
	reg := os.Getenv("KITSMITH_TEST_REGISTRY")
	if reg == "" {
		if os.Getenv("KITSMITH_INTEGRATION") == "1" {
			t.Fatal("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_REGISTRY is not set; start the services with scripts/services.sh")
		}
		t.Skip("KITSMITH_TEST_REGISTRY is not set (scripts/services.sh env)")
	}
	const jobs = 2
	for _, tt := range []struct {
		name string
		tls  bool
		opts []artifact.Option
	}{
		{"plain HTTP/1.1", false, nil},
		// The proxy's certificate is its own: the bypass, as for a registry
		// with a self-signed certificate.
		{"TLS with HTTP/2", true, []artifact.Option{artifact.WithInsecureRegistry()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			proxy := newCountingProxy(t, reg, tt.tls)
			kits := []*spec.Kit{load(t, "../../kits/outside"), load(t, "../../kits/inside")}
			epoch := int64(0)
			o := Options{
				TagTemplate: fmt.Sprintf("%s/kitsmith-connections-%d/{stem}:{version}", proxy.host, time.Now().UnixNano()),
				Unsigned:    true, Jobs: jobs, Registry: NewRegistry(tt.opts...),
				Build: build.Options{SourceDateEpoch: &epoch, TempDir: t.TempDir()},
			}
			res, err, _ := run(t, kits, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range res.Kits {
				if !k.Tagged {
					t.Fatalf("%s not tagged", k.Kit)
				}
			}
			p := proxy
			p.mu.Lock()
			defer p.mu.Unlock()
			t.Logf("unsigned publish of %d kits: %d requests over %d TCP connections (%d carried requests; at most %d requests in flight)",
				len(kits), p.requests, p.conns, p.used, p.max)
			// Each repository's two sessions (reading, writing) ping once; a
			// ping that starts before any answer over plain HTTP was seen
			// may try HTTPS first (plain HTTP) or dial a spare connection
			// it then closes unused (HTTP/2). Before, every operation
			// pinged: 10 such connections.
			if probes := p.conns - p.used; probes > 2*len(kits) {
				t.Errorf("%d connections carried no request; want at most %d, one per session's first ping", probes, 2*len(kits))
			}
			if tt.tls {
				if p.used != 1 {
					t.Errorf("%d TCP connections carried requests over HTTP/2; want 1 for the run", p.used)
				}
				return
			}
			if p.used > p.max {
				t.Errorf("%d connections carried requests, but at most %d requests were in flight: connections were not kept alive", p.used, p.max)
			}
		})
	}
}

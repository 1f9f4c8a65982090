package artifact

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/kitsmith/kitsmith/internal/version"
)

// Option configures how Open, Write, Push, Tag, Head, NewClient and
// NewTarget reach a registry and write local outputs. Options are checked
// together when the operation starts: contradictions are errors, not
// silent picks.
type Option func(*options) error

// Defaults of the registry client.
const (
	// DefaultTimeout bounds one whole operation (an Open's manifest read, a
	// Push, a Tag, a referrer listing) unless WithTimeout says otherwise.
	DefaultTimeout = 10 * time.Minute
	// maxRedirects bounds the redirects one request follows, as Go's
	// default client does; go-containerregistry follows same-host
	// redirects without limit.
	maxRedirects = 10
	// retrySteps bounds the attempts of one request that fails with a
	// temporary error.
	retrySteps = 3
)

type options struct {
	insecure  bool
	keychain  authn.Keychain
	transport http.RoundTripper
	userAgent string
	timeout   time.Duration
	// headerTimeout, dialTimeout and idleTimeout configure the default
	// transport only; a transport given with WithTransport keeps its own.
	headerTimeout time.Duration
	dialTimeout   time.Duration
	idleTimeout   time.Duration
	retryWait     time.Duration
	modTime       time.Time
	// insecureSet and transportSet record which options were given, for
	// the cross-option checks.
	insecureSet, transportSet bool
	// own is the default transport makeOptions made, closed by done; nil
	// when WithTransport gave one.
	own *http.Transport
	// puller and pusher keep go-containerregistry's authenticated session
	// per repository (the /v2/ ping, the token) from one operation to the
	// next, so that operations with the same options do not start over.
	puller *remote.Puller
	pusher *remote.Pusher
}

// WithInsecureRegistry lets a registry be reached over plain HTTP, or over
// HTTPS without verifying its certificate. It is a bypass, for registries
// on a trusted network only. Loopback registries (localhost, 127.0.0.0/8,
// ::1) are reached over plain HTTP without it. It has no effect on oci:
// and oci-archive: references, and cannot be combined with WithTransport
// (configure TLS on that transport instead).
func WithInsecureRegistry() Option {
	return func(o *options) error { o.insecure, o.insecureSet = true, true; return nil }
}

// WithKeychain sets where registry credentials come from. The default is
// authn.DefaultKeychain: the Docker config file and its credential
// helpers. A nil keychain means anonymous access.
func WithKeychain(kc authn.Keychain) Option {
	return func(o *options) error {
		if kc == nil {
			kc = authn.NewMultiKeychain()
		}
		o.keychain = kc
		return nil
	}
}

// WithTransport sets the HTTP transport registry requests go through. The
// default is a transport with connect, response-header and idle timeouts.
// Redirect, retry, read-size and per-operation bounds apply to either. A
// nil transport is an error.
func WithTransport(rt http.RoundTripper) Option {
	return func(o *options) error {
		if rt == nil {
			return errors.New("WithTransport: nil transport")
		}
		o.transport, o.transportSet = rt, true
		return nil
	}
}

// WithUserAgent sets the User-Agent of registry requests. The default is
// "kitsmith/<version>". An empty agent is an error.
func WithUserAgent(ua string) Option {
	return func(o *options) error {
		if ua == "" {
			return errors.New("WithUserAgent: empty user agent")
		}
		o.userAgent = ua
		return nil
	}
}

// WithTimeout bounds each operation (Open's manifest read and each later
// registry request, a Push, a Tag, a Head, a Write, a referrer listing or
// push) to d. The default is DefaultTimeout; d must be positive.
func WithTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("WithTimeout: %s is not a positive duration", d)
		}
		o.timeout = d
		return nil
	}
}

// WithModTime sets the timestamp of every entry of an oci-archive: Write
// writes. The default is the Unix epoch, so archives are reproducible.
func WithModTime(t time.Time) Option {
	return func(o *options) error { o.modTime = t.UTC(); return nil }
}

// withHeaderTimeout shortens the default transport's response-header
// timeout, for tests.
func withHeaderTimeout(d time.Duration) Option {
	return func(o *options) error { o.headerTimeout = d; return nil }
}

func makeOptions(opts []Option) (*options, error) {
	o := &options{
		keychain:      authn.DefaultKeychain,
		userAgent:     version.Name + "/" + version.Get().Version,
		timeout:       DefaultTimeout,
		headerTimeout: 30 * time.Second,
		dialTimeout:   30 * time.Second,
		idleTimeout:   90 * time.Second,
		retryWait:     500 * time.Millisecond,
		modTime:       time.Unix(0, 0).UTC(),
	}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	if o.insecureSet && o.transportSet {
		return nil, errors.New("WithInsecureRegistry and WithTransport contradict each other: the given transport decides how TLS is verified; configure it there")
	}
	if o.transport == nil {
		o.own = o.defaultTransport()
		o.transport = o.own
	}
	o.transport = &guardTransport{inner: o.transport, timeout: o.timeout}
	var err error
	if o.puller, err = remote.NewPuller(o.sessionOptions()...); err != nil {
		return nil, err
	}
	if o.pusher, err = remote.NewPusher(o.sessionOptions()...); err != nil {
		return nil, err
	}
	return o, nil
}

// defaultTransport is go-containerregistry's default transport with
// kitsmith's timeouts, skipping certificate verification when
// WithInsecureRegistry asked for it.
func (o *options) defaultTransport() *http.Transport {
	t := remote.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: o.dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.ResponseHeaderTimeout = o.headerTimeout
	t.IdleConnTimeout = o.idleTimeout
	t.TLSHandshakeTimeout = 10 * time.Second
	if o.insecure {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // WithInsecureRegistry asked for it.
	}
	return t
}

// nameOptions are the reference-parsing options.
func (o *options) nameOptions() []name.Option {
	if o.insecure {
		return []name.Option{name.Insecure}
	}
	return nil
}

// remoteOptions are the registry client options for an operation under
// ctx: the session options, reusing the options' sessions.
func (o *options) remoteOptions(ctx context.Context) []remote.Option {
	return append(o.sessionOptions(), remote.WithContext(ctx), remote.Reuse(o.puller), remote.Reuse(o.pusher))
}

// sessionOptions are the registry client options every operation shares:
// credentials, the guarded transport, the user agent and bounded retries.
func (o *options) sessionOptions() []remote.Option {
	return []remote.Option{
		remote.WithAuthFromKeychain(o.keychain),
		remote.WithUserAgent(o.userAgent),
		remote.WithTransport(o.transport),
		remote.WithRetryBackoff(remote.Backoff{Duration: o.retryWait, Factor: 2, Jitter: 0.1, Steps: retrySteps}),
		remote.WithJobs(4),
	}
}

// done releases the idle connections of the transport makeOptions made,
// once the package functions that return nothing still reading (Write,
// Push, Tag, Head) are over, or when a Client is closed. Until then every
// operation with these options shares the transport's kept-alive
// connections and the sessions.
func (o *options) done() {
	if o.own != nil {
		o.own.CloseIdleConnections()
	}
}

// operation bounds one operation by the per-operation timeout.
func (o *options) operation(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, o.timeout)
}

package sign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"time"

	"github.com/go-openapi/runtime"
	httptransport "github.com/go-openapi/runtime/client"
	"github.com/go-openapi/strfmt"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	rekorpb "github.com/sigstore/rekor-tiles/v2/pkg/generated/protobuf"
	rekorclient "github.com/sigstore/rekor/pkg/generated/client"
	rekorutil "github.com/sigstore/rekor/pkg/util"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/tuf"
	"google.golang.org/protobuf/encoding/protojson"
)

// serviceTimeout bounds each request to a Sigstore service; sigstore-go
// retries a failed request once more.
const serviceTimeout = 30 * time.Second

// Services names the Sigstore services a signature is made with.
type Services struct {
	// Fulcio is the certificate authority's base URL; "" signs with the
	// Keypair's own key and no certificate.
	Fulcio string
	// OIDCIssuer is the identity provider a person signs in at, when the
	// signing config names one.
	OIDCIssuer string
	// TSAs are the full URLs of RFC 3161 timestamp authorities, e.g.
	// http://127.0.0.1:15556/api/v1/timestamp.
	TSAs []string
	// Logs are the transparency logs a signature is entered in.
	Logs []Log
}

// Log is one transparency log.
type Log struct {
	// URL is the log's base URL.
	URL string
	// Version is Rekor's major API version: 1, or 2 for rekor-tiles.
	Version uint32
}

// ServicesFromSigningConfig selects the services a Sigstore signing config
// names (signing_config.json, v0.2) as they are valid at now, following the
// config's selectors: Rekor v2 over v1 where both are listed.
func ServicesFromSigningConfig(sc *root.SigningConfig, now time.Time) (Services, error) {
	var s Services
	if urls := sc.FulcioCertificateAuthorityURLs(); len(urls) > 0 {
		ca, err := root.SelectService(urls, sgsign.FulcioAPIVersions, now)
		if err != nil {
			return Services{}, fmt.Errorf("choosing a certificate authority from the signing config: %w", err)
		}
		s.Fulcio = ca.URL
	}
	if urls := sc.OIDCProviderURLs(); len(urls) > 0 {
		if oidc, err := root.SelectService(urls, []uint32{1}, now); err == nil {
			s.OIDCIssuer = oidc.URL
		}
	}
	if urls := sc.TimestampAuthorityURLs(); len(urls) > 0 {
		tsas, err := root.SelectServices(urls, sc.TimestampAuthorityURLsConfig(), sgsign.TimestampAuthorityAPIVersions, now)
		if err != nil {
			return Services{}, fmt.Errorf("choosing timestamp authorities from the signing config: %w", err)
		}
		for _, t := range tsas {
			s.TSAs = append(s.TSAs, t.URL)
		}
	}
	if urls := sc.RekorLogURLs(); len(urls) > 0 {
		logs, err := root.SelectServices(urls, sc.RekorLogURLsConfig(), sgsign.RekorAPIVersions, now)
		if err != nil {
			return Services{}, fmt.Errorf("choosing transparency logs from the signing config: %w", err)
		}
		for _, l := range logs {
			s.Logs = append(s.Logs, Log{URL: l.URL, Version: l.MajorAPIVersion})
		}
	}
	return s, nil
}

// LoadTrustedRoot reads a trusted_root.json.
func LoadTrustedRoot(data []byte) (*root.TrustedRoot, error) {
	tr, err := root.NewTrustedRootFromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parsing the trusted root: %w", err)
	}
	return tr, nil
}

// LoadSigningConfig reads a signing_config.json (v0.2).
func LoadSigningConfig(data []byte) (*root.SigningConfig, error) {
	sc, err := root.NewSigningConfigFromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parsing the signing config: %w", err)
	}
	return sc, nil
}

// TUFOption changes where PublicGood reads its TUF repository from.
type TUFOption func(*tuf.Options) error

// WithTUFRepository reads a TUF repository other than public-good
// Sigstore's: its base URL and the root.json it is trusted by.
func WithTUFRepository(baseURL string, rootJSON []byte) TUFOption {
	return func(o *tuf.Options) error {
		if baseURL == "" || len(rootJSON) == 0 {
			return errors.New("a TUF repository needs a base URL and a root")
		}
		o.RepositoryBaseURL = baseURL
		o.Root = rootJSON
		return nil
	}
}

// PublicGood fetches the trusted root and the signing config of public-good
// Sigstore through its TUF repository, with sigstore-go's TUF client, and
// keeps them in cacheDir. It needs the network the first time, and whenever
// the cached metadata has expired.
func PublicGood(ctx context.Context, cacheDir string, opts ...TUFOption) (*root.TrustedRoot, *root.SigningConfig, error) {
	if cacheDir == "" {
		return nil, nil, errors.New("the TUF cache needs a directory")
	}
	o := tuf.DefaultOptions().WithCachePath(cacheDir).WithContext(ctx)
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, nil, err
		}
	}
	c, err := tuf.New(o)
	if err != nil {
		return nil, nil, fmt.Errorf("updating Sigstore's trust from %s: %w", o.RepositoryBaseURL, err)
	}
	tr, err := root.GetTrustedRoot(c)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the trusted root from TUF: %w", err)
	}
	sc, err := root.GetSigningConfig(c)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the signing config from TUF: %w", err)
	}
	return tr, sc, nil
}

// rekorV2 writes entries to a Rekor v2 (rekor-tiles) log through a caller's
// http.RoundTripper.
type rekorV2 struct {
	base   string
	client *http.Client
}

var _ sgsign.RekorV2Client = (*rekorV2)(nil)

// Add uploads a hashedrekord v0.0.2 entry and returns its log entry, with
// the inclusion proof and checkpoint.
func (r *rekorV2) Add(ctx context.Context, entry any) (*protorekor.TransparencyLogEntry, error) {
	h, ok := entry.(*rekorpb.HashedRekordRequestV002)
	if !ok {
		return nil, fmt.Errorf("rekor v2: unsupported entry type %T", entry)
	}
	body, err := protojson.Marshal(&rekorpb.CreateEntryRequest{
		Spec: &rekorpb.CreateEntryRequest_HashedRekordRequestV002{HashedRekordRequestV002: h},
	})
	if err != nil {
		return nil, fmt.Errorf("rekor v2: encoding the entry: %w", err)
	}
	u, err := url.Parse(r.base)
	if err != nil {
		return nil, fmt.Errorf("rekor v2: parsing %q: %w", r.base, err)
	}
	u.Path = path.Join(u.Path, "/api/v2/log/entries")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("rekor v2: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rekor v2: %w", err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, maxBundleSize))
	if err != nil {
		return nil, fmt.Errorf("rekor v2: reading the response: %w", err)
	}
	if resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("rekor v2: %s answered %s: %s", u.Redacted(), resp.Status, bytes.TrimSpace(out))
	}
	var tle protorekor.TransparencyLogEntry
	if err := protojson.Unmarshal(out, &tle); err != nil {
		return nil, fmt.Errorf("rekor v2: decoding the log entry: %w", err)
	}
	return &tle, nil
}

// rekorV1 returns a Rekor v1 entries client at base that sends its requests
// through rt.
func rekorV1(base string, rt http.RoundTripper) (sgsign.RekorClient, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("rekor: parsing %q: %w", base, err)
	}
	if u.Path == "" {
		u.Path = rekorclient.DefaultBasePath
	}
	t := httptransport.NewWithClient(u.Host, u.Path, []string{u.Scheme}, &http.Client{Transport: rt, Timeout: serviceTimeout})
	t.Consumers["application/json"] = runtime.JSONConsumer()
	t.Consumers["application/x-pem-file"] = runtime.TextConsumer()
	t.Producers["application/json"] = runtime.JSONProducer()
	reg := strfmt.NewFormats()
	reg.Add("signedCheckpoint", &rekorutil.SignedNote{}, rekorutil.SignedCheckpointValidator)
	return rekorclient.New(t, reg).Entries, nil
}

// ctxTransport sends each request with a context of its own: for clients
// (sigstore-go's Fulcio and timestamp authority) that build their requests
// without one, so that cancelling the command stops a request to a service
// that accepted the connection and never answers.
type ctxTransport struct {
	ctx   context.Context
	inner http.RoundTripper
}

// withContext returns rt sending every request under ctx as well as the
// request's own context.
func withContext(ctx context.Context, rt http.RoundTripper) http.RoundTripper {
	return &ctxTransport{ctx: ctx, inner: rt}
}

func (t *ctxTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.ctx.Err(); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(t.ctx, cancel)
	resp, err := t.inner.RoundTrip(req.WithContext(rctx))
	if err != nil {
		stop()
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, stop: func() { stop(); cancel() }}
	return resp, nil
}

// cancelBody releases its request's context once the body is closed.
type cancelBody struct {
	io.ReadCloser
	stop func()
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.stop()
	return err
}

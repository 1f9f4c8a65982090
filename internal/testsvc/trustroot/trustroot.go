// Package trustroot builds the trust files of a private Sigstore instance
// from its running services: trusted_root.json (Fulcio's CA, the timestamp
// authority's chain, the Rekor v2 log key and optionally a CT log key) and
// signing_config.json (Sigstore signing config v0.2 naming the services).
// scripts/services.sh uses it, through kitsmith-trustroot, for the local
// stack; both files are what sigstore-go and cosign --trusted-root /
// --signing-config read.
package trustroot

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	prototrustroot "github.com/sigstore/protobuf-specs/gen/pb-go/trustroot/v1"
	"github.com/sigstore/rekor-tiles/v2/pkg/note"
	"github.com/sigstore/sigstore-go/pkg/root"
)

// Operator is the operator named in the signing config's services.
const Operator = "kitsmith-local"

// maxBody bounds every response read from a service.
const maxBody = 1 << 20

// Services describes the running instance.
type Services struct {
	FulcioURL string // base URL; its CA comes from GET /api/v2/trustBundle
	TSAURL    string // full timestamp URL, ending in /api/v1/timestamp; its chain comes from TSAURL+"/certchain"
	RekorURL  string // Rekor v2 base URL; its host name must be the log's --hostname (the checkpoint origin)
	RekorKey  crypto.PublicKey
	CTLogURL  string           // optional CT log base URL
	CTLogKey  crypto.PublicKey // required with CTLogURL
	OIDCURL   string           // OIDC issuer URL for the signing config (optional)
}

type options struct {
	client    *http.Client
	validFrom time.Time
}

// Option configures TrustedRoot and SigningConfig.
type Option func(*options) error

// WithHTTPClient sets the client used to query the services (default: a
// client with a 10 s timeout).
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) error {
		if c == nil {
			return errors.New("nil HTTP client")
		}
		o.client = c
		return nil
	}
}

// WithValidFrom sets the start of the validity of the log keys and of the
// signing config's services (default: 24 hours ago, so clock skew between
// the services and the verifier does not matter).
func WithValidFrom(t time.Time) Option {
	return func(o *options) error {
		if t.IsZero() {
			return errors.New("zero validity start")
		}
		o.validFrom = t
		return nil
	}
}

func makeOptions(opts []Option) (options, error) {
	o := options{client: &http.Client{Timeout: 10 * time.Second}, validFrom: time.Now().Add(-24 * time.Hour).UTC()}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// TrustedRoot queries Fulcio and the timestamp authority and returns the
// trusted root of the instance. Certificate chains are leaf first; each
// CA is valid from its root's NotBefore.
func TrustedRoot(ctx context.Context, s Services, opts ...Option) (*root.TrustedRoot, error) {
	o, err := makeOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("trusted root options: %w", err)
	}
	if s.FulcioURL == "" || s.TSAURL == "" || s.RekorURL == "" || s.RekorKey == nil {
		return nil, errors.New("trusted root: Fulcio, TSA and Rekor URLs and the Rekor key are required")
	}
	ca, err := fulcioCA(ctx, o.client, s.FulcioURL)
	if err != nil {
		return nil, err
	}
	tsa, err := timestampAuthority(ctx, o.client, s.TSAURL)
	if err != nil {
		return nil, err
	}
	rekor, err := rekorLog(s.RekorURL, s.RekorKey, o.validFrom)
	if err != nil {
		return nil, err
	}
	ctlogs := map[string]*root.TransparencyLog{}
	if s.CTLogURL != "" {
		ct, err := ctLog(s.CTLogURL, s.CTLogKey, o.validFrom)
		if err != nil {
			return nil, err
		}
		ctlogs[fmt.Sprintf("%x", ct.ID)] = ct
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01,
		[]root.CertificateAuthority{ca}, ctlogs, []root.TimestampingAuthority{tsa},
		map[string]*root.TransparencyLog{fmt.Sprintf("%x", rekor.ID): rekor})
	if err != nil {
		return nil, fmt.Errorf("building trusted root: %w", err)
	}
	return tr, nil
}

// SigningConfig returns the signing config v0.2 of the instance: Fulcio
// (API v1), the OIDC issuer if set, Rekor (API v2) and the TSA (API v1),
// with the selector ANY for logs and timestamp authorities.
func SigningConfig(s Services, opts ...Option) (*root.SigningConfig, error) {
	o, err := makeOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("signing config options: %w", err)
	}
	svc := func(u string, v uint32) []root.Service {
		if u == "" {
			return nil
		}
		return []root.Service{{URL: u, MajorAPIVersion: v, ValidityPeriodStart: o.validFrom, Operator: Operator}}
	}
	anyOne := root.ServiceConfiguration{Selector: prototrustroot.ServiceSelector_ANY}
	sc, err := root.NewSigningConfig(root.SigningConfigMediaType02,
		svc(s.FulcioURL, 1), svc(s.OIDCURL, 1), svc(s.RekorURL, 2), anyOne, svc(s.TSAURL, 1), anyOne)
	if err != nil {
		return nil, fmt.Errorf("building signing config: %w", err)
	}
	return sc, nil
}

func fulcioCA(ctx context.Context, c *http.Client, base string) (*root.FulcioCertificateAuthority, error) {
	body, err := get(ctx, c, strings.TrimSuffix(base, "/")+"/api/v2/trustBundle")
	if err != nil {
		return nil, fmt.Errorf("fetching Fulcio trust bundle: %w", err)
	}
	var tb struct {
		Chains []struct {
			Certificates []string `json:"certificates"`
		} `json:"chains"`
	}
	if err := json.Unmarshal(body, &tb); err != nil {
		return nil, fmt.Errorf("decoding Fulcio trust bundle: %w", err)
	}
	if len(tb.Chains) == 0 {
		return nil, errors.New("fulcio trust bundle has no chain")
	}
	chain, err := parseCerts([]byte(strings.Join(tb.Chains[0].Certificates, "\n")))
	if err != nil {
		return nil, fmt.Errorf("fulcio trust bundle: %w", err)
	}
	rootCert := chain[len(chain)-1]
	return &root.FulcioCertificateAuthority{
		Root: rootCert, Intermediates: chain[:len(chain)-1],
		ValidityPeriodStart: rootCert.NotBefore, URI: base,
	}, nil
}

func timestampAuthority(ctx context.Context, c *http.Client, tsaURL string) (*root.SigstoreTimestampingAuthority, error) {
	body, err := get(ctx, c, strings.TrimSuffix(tsaURL, "/")+"/certchain")
	if err != nil {
		return nil, fmt.Errorf("fetching TSA certificate chain: %w", err)
	}
	chain, err := parseCerts(body)
	if err != nil {
		return nil, fmt.Errorf("TSA certificate chain: %w", err)
	}
	if len(chain) < 2 {
		return nil, fmt.Errorf("TSA certificate chain has %d certificate(s), want leaf ... root", len(chain))
	}
	rootCert := chain[len(chain)-1]
	return &root.SigstoreTimestampingAuthority{
		Leaf: chain[0], Intermediates: chain[1 : len(chain)-1], Root: rootCert,
		ValidityPeriodStart: rootCert.NotBefore, URI: tsaURL,
	}, nil
}

// rekorLog is the Rekor v2 log: its ID is the note key hash of the origin
// (the URL's host name, which the server uses as --hostname) and the key.
func rekorLog(base string, key crypto.PublicKey, from time.Time) (*root.TransparencyLog, error) {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("rekor URL %q: no host name", base)
	}
	_, id, err := note.KeyHash(u.Hostname(), key)
	if err != nil {
		return nil, fmt.Errorf("rekor log ID: %w", err)
	}
	return &root.TransparencyLog{
		BaseURL: base, ID: id, ValidityPeriodStart: from,
		HashFunc: crypto.SHA256, SignatureHashFunc: crypto.SHA256, PublicKey: key,
	}, nil
}

// ctLog is an RFC 6962 log: its ID is sha256 of the DER public key.
func ctLog(base string, key crypto.PublicKey, from time.Time) (*root.TransparencyLog, error) {
	if key == nil {
		return nil, errors.New("CT log URL given without its public key")
	}
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		return nil, fmt.Errorf("CT log key: %w", err)
	}
	id := crypto.SHA256.New()
	id.Write(der)
	return &root.TransparencyLog{
		BaseURL: base, ID: id.Sum(nil), ValidityPeriodStart: from,
		HashFunc: crypto.SHA256, SignatureHashFunc: crypto.SHA256, PublicKey: key,
	}, nil
}

func get(ctx context.Context, c *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return body, nil
}

// parseCerts decodes PEM certificates, in order; anything else is an error.
func parseCerts(b []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("unexpected PEM block %q", blk.Type)
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing certificate: %w", err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM certificate")
	}
	if len(strings.TrimSpace(string(b))) != 0 {
		return nil, errors.New("trailing data after the PEM certificates")
	}
	return out, nil
}

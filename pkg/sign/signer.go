package sign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
)

// CertificateProvider issues the certificate a keyless signature is
// verified with, for the public key of kp.
type CertificateProvider interface {
	// Certificate returns the DER leaf certificate for kp's public key.
	Certificate(ctx context.Context, kp Keypair) ([]byte, error)
}

var _ CertificateProvider = (*Fulcio)(nil)

// Fulcio is a CertificateProvider that asks a Fulcio certificate authority
// for a short-lived certificate binding the identity of a token.
type Fulcio struct {
	tokens  TokenSource
	baseURL string
	rt      http.RoundTripper
}

// NewFulcio returns the Fulcio at baseURL, proving identity with tokens.
// rt nil means http.DefaultTransport.
func NewFulcio(baseURL string, tokens TokenSource, rt http.RoundTripper) *Fulcio {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &Fulcio{tokens: tokens, baseURL: baseURL, rt: rt}
}

// Certificate gets a token and exchanges it for a certificate. The token
// never appears in the error.
func (f *Fulcio) Certificate(ctx context.Context, kp Keypair) ([]byte, error) {
	if f.tokens == nil {
		return nil, fmt.Errorf("getting a signing certificate: %w", ErrNoToken)
	}
	tok, err := f.tokens.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("getting a signing certificate: %w", err)
	}
	// sigstore-go makes its request without ctx: the transport carries it.
	fc := sgsign.NewFulcio(&sgsign.FulcioOptions{BaseURL: f.baseURL, Timeout: serviceTimeout, Retries: 1, Transport: withContext(ctx, f.rt)})
	der, err := fc.GetCertificate(ctx, kp, &sgsign.CertificateProviderOptions{IDToken: tok})
	if err != nil {
		return nil, redact(fmt.Errorf("getting a signing certificate from Fulcio: %w", err), tok)
	}
	return der, nil
}

// certAdapter presents a CertificateProvider to sigstore-go.
type certAdapter struct{ p CertificateProvider }

func (a certAdapter) GetCertificate(ctx context.Context, kp sgsign.Keypair, _ *sgsign.CertificateProviderOptions) ([]byte, error) {
	return a.p.Certificate(ctx, kp)
}

// Signer makes Sigstore bundles over kit digests.
type Signer struct {
	kp    Keypair
	certs CertificateProvider
	o     *signerOptions
}

// SignerOption configures a Signer.
type SignerOption func(*signerOptions) error

type signerOptions struct {
	tsaURLs []string
	logs    []Log
	rt      http.RoundTripper
	trust   root.TrustedMaterial
	rep     progress.Reporter

	tlogs []sgsign.Transparency
}

// timestampAuthorities are the TSA clients for one signature, their
// requests carrying ctx (sigstore-go makes them without one).
func (o *signerOptions) timestampAuthorities(ctx context.Context) []*sgsign.TimestampAuthority {
	rt := o.rt
	if rt == nil {
		rt = http.DefaultTransport
	}
	var tsas []*sgsign.TimestampAuthority
	for _, u := range o.tsaURLs {
		tsas = append(tsas, sgsign.NewTimestampAuthority(&sgsign.TimestampAuthorityOptions{
			URL: u, Timeout: serviceTimeout, Retries: 1, Transport: withContext(ctx, rt),
		}))
	}
	return tsas
}

// WithTimestampAuthority adds an RFC 3161 timestamp authority, by its full
// URL (for Sigstore's TSA, ending in /api/v1/timestamp).
func WithTimestampAuthority(url string) SignerOption {
	return func(o *signerOptions) error {
		if url == "" {
			return errors.New("a timestamp authority needs a URL")
		}
		o.tsaURLs = append(o.tsaURLs, url)
		return nil
	}
}

// WithTransparencyLog adds a transparency log each signature is entered
// in: Rekor v1 or v2.
func WithTransparencyLog(l Log) SignerOption {
	return func(o *signerOptions) error {
		if l.URL == "" {
			return errors.New("a transparency log needs a URL")
		}
		if l.Version != 1 && l.Version != 2 {
			return fmt.Errorf("transparency log %s: Rekor API version %d is not 1 or 2", l.URL, l.Version)
		}
		o.logs = append(o.logs, l)
		return nil
	}
}

// WithServices adds the timestamp authorities and logs of s (its Fulcio is
// given to NewFulcio).
func WithServices(s Services) SignerOption {
	return func(o *signerOptions) error {
		for _, u := range s.TSAs {
			if err := WithTimestampAuthority(u)(o); err != nil {
				return err
			}
		}
		for _, l := range s.Logs {
			if err := WithTransparencyLog(l)(o); err != nil {
				return err
			}
		}
		return nil
	}
}

// WithTransport sends the timestamp and log requests (Rekor v1 and v2)
// through rt instead of http.DefaultTransport. Without it, a Rekor v1 log
// is reached with rekor's own retrying client.
func WithTransport(rt http.RoundTripper) SignerOption {
	return func(o *signerOptions) error { o.rt = rt; return nil }
}

// WithSelfVerification verifies each new bundle against tm before it is
// returned, as sigstore-go does when given a trusted root. Without it, a
// bundle is returned unverified.
func WithSelfVerification(tm root.TrustedMaterial) SignerOption {
	return func(o *signerOptions) error { o.trust = tm; return nil }
}

// WithSignerReporter reports each signature as a progress step.
func WithSignerReporter(r progress.Reporter) SignerOption {
	return func(o *signerOptions) error { o.rep = r; return nil }
}

func makeSignerOptions(keyless bool, opts []SignerOption) (*signerOptions, error) {
	o := &signerOptions{}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	rt := o.rt
	if rt == nil {
		rt = http.DefaultTransport
	}
	hasV2 := false
	for _, l := range o.logs {
		ro := &sgsign.RekorOptions{BaseURL: l.URL, Timeout: serviceTimeout, Retries: 1, Version: l.Version}
		switch {
		case l.Version == 2:
			hasV2 = true
			ro.ClientV2 = &rekorV2{base: l.URL, client: &http.Client{Transport: rt, Timeout: serviceTimeout}}
		case o.rt != nil:
			c, err := rekorV1(l.URL, o.rt)
			if err != nil {
				return nil, err
			}
			ro.Client = c
		}
		o.tlogs = append(o.tlogs, sgsign.NewRekor(ro))
	}
	if keyless && hasV2 && len(o.tsaURLs) == 0 {
		return nil, errors.New("a keyless signature logged in Rekor v2 needs a timestamp authority: Rekor v2 gives no signing time")
	}
	return o, nil
}

// NewSigner returns a Signer. For a keyless signature, certs issues the
// certificate (NewFulcio) and kp is nil: each signature gets a fresh
// ephemeral key. For a key-based signature, kp is the publisher's key
// (LoadPrivateKey) and certs is nil: the bundle names the public key.
func NewSigner(kp Keypair, certs CertificateProvider, opts ...SignerOption) (*Signer, error) {
	if kp == nil && certs == nil {
		return nil, errors.New("a signer needs a key or a certificate provider")
	}
	o, err := makeSignerOptions(certs != nil, opts)
	if err != nil {
		return nil, err
	}
	return &Signer{kp: kp, certs: certs, o: o}, nil
}

// Sign signs subject as `cosign sign` signs an image: an in-toto statement
// with predicate type CosignSignPredicateType and an empty predicate.
func (s *Signer) Sign(ctx context.Context, subject v1.Descriptor) (*Bundle, error) {
	return s.Attest(ctx, subject, CosignSignPredicateType, json.RawMessage("{}"))
}

// Attest signs an in-toto statement about subject with any predicate, such
// as SLSA provenance (predicate type https://slsa.dev/provenance/v1).
func (s *Signer) Attest(ctx context.Context, subject v1.Descriptor, predicateType string, predicate json.RawMessage) (b *Bundle, err error) {
	done := s.o.rep.Step(ctx, "sign-"+subject.Digest.String()+"-"+predicateType, fmt.Sprintf("[kitsmith] sign %s (%s)", subject.Digest, predicateType))
	defer func() { done(err) }()
	payload, err := newStatement(subject, predicateType, predicate)
	if err != nil {
		return nil, err
	}
	kp := s.kp
	if kp == nil {
		if kp, err = NewEphemeralKeypair(); err != nil {
			return nil, err
		}
	}
	bo := sgsign.BundleOptions{
		TimestampAuthorities: s.o.timestampAuthorities(ctx),
		TransparencyLogs:     s.o.tlogs,
		Context:              ctx,
		TrustedRoot:          s.o.trust,
	}
	if s.certs != nil {
		bo.CertificateProvider = certAdapter{s.certs}
	}
	pb, err := sgsign.Bundle(&sgsign.DSSEData{Data: payload, PayloadType: InTotoPayloadType}, kp, bo)
	if err != nil {
		return nil, fmt.Errorf("signing %s: %w", subject.Digest, err)
	}
	sb, err := bundle.NewBundle(pb)
	if err != nil {
		return nil, fmt.Errorf("signing %s: the new bundle is invalid: %w", subject.Digest, err)
	}
	return &Bundle{b: sb, predicateType: predicateType}, nil
}

package sign

import (
	"context"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// FormatVersion is the version of Result's JSON shape (its formatVersion),
// the one name every kitsmith package gives its documents' version.
const FormatVersion = 1

// ResultFormatVersion is the old name of FormatVersion.
//
// Deprecated: use FormatVersion.
const ResultFormatVersion = FormatVersion

// maxReferrers bounds how many referrers of one kit are examined.
const maxReferrers = 256

// Result is what Verify found: one entry per Sigstore bundle among the
// kit's referrers, accepted or not.
type Result struct {
	// FormatVersion is FormatVersion.
	FormatVersion int `json:"formatVersion"`
	// Subject is the verified kit.
	Subject v1.Descriptor `json:"subject"`
	// Signatures are the bundles found, in the store's order.
	Signatures []Signature `json:"signatures"`
}

// Accepted returns the signatures that satisfy the policy.
func (r *Result) Accepted() []Signature {
	var out []Signature
	for _, s := range r.Signatures {
		if s.Accepted {
			out = append(out, s)
		}
	}
	return out
}

// Signature is one bundle's verification.
type Signature struct {
	// Referrer is the digest of the referrer manifest holding the bundle.
	Referrer v1.Hash `json:"referrer"`
	// PredicateType is the statement's predicate type, "" if unreadable.
	PredicateType string `json:"predicateType,omitempty"`
	// Identity is the certificate's SAN: verified when Accepted, only
	// claimed otherwise. "" for a key-based signature.
	Identity string `json:"identity,omitempty"`
	// Issuer is the certificate's OIDC issuer, verified or claimed as
	// Identity is.
	Issuer string `json:"issuer,omitempty"`
	// KeyHint names the public key of a key-based signature.
	KeyHint string `json:"keyHint,omitempty"`
	// Timestamps are the verified times the signature was observed at.
	Timestamps []Timestamp `json:"timestamps,omitempty"`
	// LogIndex is the transparency log index, when the bundle has an entry.
	LogIndex *int64 `json:"logIndex,omitempty"`
	// Accepted is whether the signature satisfies the trust and the policy.
	Accepted bool `json:"accepted"`
	// Reason is why it was rejected, "" when accepted.
	Reason string `json:"reason,omitempty"`
	// Err is the rejection as an error, nil when accepted.
	Err error `json:"-"`
}

// Timestamp is one verified observation of a signature.
type Timestamp struct {
	// Source is "timestamp-authority" or "transparency-log".
	Source string `json:"source"`
	// URI names the authority or log.
	URI string `json:"uri,omitempty"`
	// Time is the observed time.
	Time time.Time `json:"time"`
}

// Verifier verifies the Sigstore signatures of kits against trusted
// material.
type Verifier struct {
	cert *verify.Verifier // for bundles with a certificate
	key  *verify.Verifier // for bundles with a public key hint
}

// VerifierOption configures a Verifier.
type VerifierOption func(*verifierOptions) error

type verifierOptions struct {
	noSCT, noTlog bool
}

// WithoutSCTUnsafe accepts certificates with no signed certificate
// timestamp from a CT log, as cosign's --insecure-ignore-sct: for a private
// instance that runs no CT log.
func WithoutSCTUnsafe() VerifierOption {
	return func(o *verifierOptions) error { o.noSCT = true; return nil }
}

// WithoutTlogUnsafe accepts signatures with no transparency-log entry, as
// cosign's --insecure-ignore-tlog. A keyless signature then still needs a
// signed timestamp from a timestamp authority.
func WithoutTlogUnsafe() VerifierOption {
	return func(o *verifierOptions) error { o.noTlog = true; return nil }
}

// NewVerifier returns a Verifier trusting trust: a trusted root
// (LoadTrustedRoot, PublicGood) for keyless signatures, or PublicKeyTrust
// for key-based ones. By default a signature needs a transparency-log
// entry, a certificate needs an SCT, and a keyless signature needs an
// observed time (a signed timestamp or a Rekor v1 integrated time) inside
// its certificate's validity.
func NewVerifier(trust root.TrustedMaterial, opts ...VerifierOption) (*Verifier, error) {
	if trust == nil {
		return nil, errors.New("a verifier needs trusted material")
	}
	o := &verifierOptions{}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	var certOpts, keyOpts []verify.VerifierOption
	if o.noTlog {
		certOpts = append(certOpts, verify.WithSignedTimestamps(1))
	} else {
		certOpts = append(certOpts, verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1))
		keyOpts = append(keyOpts, verify.WithTransparencyLog(1))
	}
	if !o.noSCT {
		certOpts = append(certOpts, verify.WithSignedCertificateTimestamps(1))
	}
	keyOpts = append(keyOpts, verify.WithNoObserverTimestamps())
	cv, err := verify.NewVerifier(trust, certOpts...)
	if err != nil {
		return nil, fmt.Errorf("configuring the verifier: %w", err)
	}
	kv, err := verify.NewVerifier(trust, keyOpts...)
	if err != nil {
		return nil, fmt.Errorf("configuring the verifier: %w", err)
	}
	return &Verifier{cert: cv, key: kv}, nil
}

// Verify finds the Sigstore bundles among subject's referrers in st and
// verifies each one: against the trusted material, for a statement whose
// subject is subject's digest, and against p. Referrers are not filtered
// by the store: each manifest's artifactType and single layer are checked
// here, as cosign does; referrers of other kinds (SBOMs, old-style
// signatures) are skipped, and at most the first 256 referrers are read.
//
// It returns the Result with a nil error when at least one signature is
// accepted; the Result with an error wrapping ErrNoSignature when no
// bundle was found; the Result with a *VerificationError when none was
// accepted; and a nil Result for a malformed policy or a store failure.
func (v *Verifier) Verify(ctx context.Context, st ReferrerStore, subject v1.Descriptor, p Policy) (*Result, error) {
	ids, idErr := p.identities()
	if idErr != nil && !errors.Is(idErr, errNoIdentity) {
		return nil, idErr
	}
	refs, err := st.Referrers(ctx, subject)
	if err != nil {
		return nil, fmt.Errorf("listing the signatures of %s: %w", subject.Digest, err)
	}
	if len(refs) > maxReferrers {
		refs = refs[:maxReferrers]
	}
	res := &Result{FormatVersion: FormatVersion, Subject: subject, Signatures: []Signature{}}
	for _, d := range refs {
		b, err := readBundle(ctx, st, subject, d)
		if errors.Is(err, errNotBundle) {
			continue
		}
		if err != nil && !errors.As(err, new(*rejection)) {
			return nil, err
		}
		var sig Signature
		if err != nil {
			sig = Signature{Referrer: d.Digest, Reason: err.Error(), Err: err}
		} else {
			sig = v.check(b, d.Digest, subject, ids, idErr, p)
		}
		res.Signatures = append(res.Signatures, sig)
	}
	if len(res.Signatures) == 0 {
		return res, fmt.Errorf("verifying %s: %w", subject.Digest, ErrNoSignature)
	}
	if len(res.Accepted()) > 0 {
		return res, nil
	}
	return res, &VerificationError{Result: res, Err: res.Signatures[len(res.Signatures)-1].Err}
}

// check verifies one bundle.
func (v *Verifier) check(b *Bundle, ref v1.Hash, subject v1.Descriptor, ids verify.CertificateIdentities, idErr error, p Policy) Signature {
	sig := Signature{Referrer: ref, PredicateType: b.PredicateType()}
	reject := func(err error) Signature {
		sig.Err = &rejection{err}
		sig.Reason = err.Error()
		return sig
	}
	vc, err := b.b.VerificationContent()
	if err != nil {
		return reject(fmt.Errorf("the bundle has no verification material: %w", err))
	}
	cert := vc.Certificate()
	if cert != nil {
		sig.Identity, sig.Issuer = claimedIdentity(cert)
	} else if pk := vc.PublicKey(); pk != nil {
		sig.KeyHint = pk.Hint()
	}
	entries, _ := b.b.TlogEntries()
	if len(entries) > 0 {
		i := entries[0].LogIndex()
		sig.LogIndex = &i
	}
	if tss, _ := b.b.Timestamps(); cert != nil && len(tss) == 0 && len(entries) == 0 {
		return reject(fmt.Errorf("the signature has no signed timestamp and no log entry, so its certificate (valid %s to %s) cannot be checked against the time of signing",
			cert.NotBefore.UTC().Format(time.RFC3339), cert.NotAfter.UTC().Format(time.RFC3339)))
	}
	st, err := b.statement()
	if err != nil {
		return reject(fmt.Errorf("the bundle holds no in-toto statement (cosign verify needs a DSSE envelope): %w", err))
	}
	if !st.covers(subject.Digest) {
		return reject(fmt.Errorf("the signature is over %s, not over this kit (%s)", statementDigests(st), subject.Digest))
	}
	if p.PredicateType != "" && st.PredicateType != p.PredicateType {
		return reject(fmt.Errorf("predicate type %q is not the required %q", st.PredicateType, p.PredicateType))
	}
	digest, _ := hex.DecodeString(subject.Digest.Hex)
	artifact := verify.WithArtifactDigest(subject.Digest.Algorithm, digest)
	var vr *verify.VerificationResult
	if cert != nil {
		if idErr != nil {
			return reject(fmt.Errorf("a keyless signature, and %w", idErr))
		}
		var popts []verify.PolicyOption
		for _, id := range ids {
			popts = append(popts, verify.WithCertificateIdentity(id))
		}
		vr, err = v.cert.Verify(b.b, verify.NewPolicy(artifact, popts...))
	} else {
		vr, err = v.key.Verify(b.b, verify.NewPolicy(artifact, verify.WithKey()))
	}
	if err != nil {
		return reject(err)
	}
	for _, t := range vr.VerifiedTimestamps {
		src := "transparency-log"
		if t.Type == "TimestampAuthority" {
			src = "timestamp-authority"
		}
		sig.Timestamps = append(sig.Timestamps, Timestamp{Source: src, URI: t.URI, Time: t.Timestamp.UTC()})
	}
	sig.Accepted = true
	return sig
}

// claimedIdentity reads a certificate's SAN and issuer, unverified.
func claimedIdentity(cert *x509.Certificate) (identity, issuer string) {
	s, err := certificate.SummarizeCertificate(cert)
	if err != nil {
		return "", ""
	}
	return s.SubjectAlternativeName, s.Extensions.Issuer
}

func statementDigests(st *statement) string {
	var ds []string
	for _, s := range st.Subject {
		for alg, h := range s.Digest {
			ds = append(ds, alg+":"+h)
		}
	}
	if len(ds) == 0 {
		return "no subject"
	}
	return strings.Join(ds, ", ")
}

// rejection marks a problem with one signature, as opposed to a failure to
// read the store.
type rejection struct{ err error }

func (r *rejection) Error() string { return r.err.Error() }
func (r *rejection) Unwrap() error { return r.err }

// errNotBundle marks a referrer that is not a Sigstore bundle (an SBOM, a
// legacy signature...): it is skipped.
var errNotBundle = errors.New("not a Sigstore bundle")

// readBundle reads the bundle of referrer d of subject; errNotBundle for a
// referrer of another kind, a *rejection for a malformed one.
func readBundle(ctx context.Context, st ReferrerStore, subject v1.Descriptor, d v1.Descriptor) (*Bundle, error) {
	img, err := st.Referrer(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("reading referrer %s: %w", d.Digest, err)
	}
	raw, err := img.RawManifest()
	if err != nil {
		return nil, fmt.Errorf("reading referrer %s: %w", d.Digest, err)
	}
	var m v1.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &rejection{fmt.Errorf("referrer %s: parsing its manifest: %w", d.Digest, err)}
	}
	isBundle := func(mt string) bool { return strings.HasPrefix(mt, "application/vnd.dev.sigstore.bundle") }
	if !isBundle(m.ArtifactType) && !(len(m.Layers) == 1 && isBundle(string(m.Layers[0].MediaType))) {
		return nil, errNotBundle
	}
	if len(m.Layers) != 1 || !isBundle(string(m.Layers[0].MediaType)) {
		return nil, &rejection{fmt.Errorf("referrer %s: a Sigstore bundle referrer has exactly one bundle layer, this one has %d layers", d.Digest, len(m.Layers))}
	}
	if m.Subject != nil && m.Subject.Digest != subject.Digest {
		return nil, &rejection{fmt.Errorf("referrer %s: its subject is %s, not this kit", d.Digest, m.Subject.Digest)}
	}
	l, err := img.LayerByDigest(m.Layers[0].Digest)
	if err != nil {
		return nil, fmt.Errorf("reading the bundle of referrer %s: %w", d.Digest, err)
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, fmt.Errorf("reading the bundle of referrer %s: %w", d.Digest, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxBundleSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading the bundle of referrer %s: %w", d.Digest, err)
	}
	b, err := ParseBundle(data)
	if err != nil {
		return nil, &rejection{fmt.Errorf("referrer %s: %w", d.Digest, err)}
	}
	return b, nil
}

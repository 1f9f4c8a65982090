package sign

import (
	"context"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
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

// Result is what Verify found: one entry per Sigstore bundle among the
// kit's referrers, accepted or not.
type Result struct {
	// FormatVersion is FormatVersion.
	FormatVersion int `json:"formatVersion"`
	// Subject is the verified kit.
	Subject v1.Descriptor `json:"subject"`
	// Signatures are the bundles found, accepted or rejected: those the
	// registry marks as Sigstore bundles first, then in the store's order.
	Signatures []Signature `json:"signatures"`
	// Referrers counts what was listed and examined.
	Referrers ReferrerCounts `json:"referrers"`
}

// ReferrerCounts says how much of a kit's referrers Verify looked at.
type ReferrerCounts struct {
	// Listed is how many referrers the store listed.
	Listed int `json:"listed"`
	// Examined is how many of them were read (their manifest at least).
	Examined int `json:"examined"`
	// Skipped is how many examined referrers are not Sigstore signatures
	// (SBOMs, other artifacts): neither accepted nor rejected.
	Skipped int `json:"skipped"`
	// NotExamined is how many listed referrers were left unread because
	// the examination bounds (MaxExaminedReferrers, MaxExaminedBytes) were
	// reached.
	NotExamined int `json:"notExamined"`
	// Truncated reports that the store's listing stopped at its own bound:
	// the kit has more referrers than were listed.
	Truncated bool `json:"truncated,omitempty"`
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
	// Kind is "bundle" for a Sigstore bundle referrer, "legacy" for a
	// legacy cosign signature (a layer of the sha256-<hex>.sig manifest,
	// whose digest Referrer then is).
	Kind string `json:"kind"`
	// Reason is why it was rejected, one readable line; "" when accepted.
	Reason string `json:"reason,omitempty"`
	// Detail is the rejection's full error text, when it says more than
	// Reason.
	Detail string `json:"detail,omitempty"`
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
	// referrerTimeout bounds reading one referrer (WithReferrerTimeout).
	referrerTimeout time.Duration
}

// VerifierOption configures a Verifier.
type VerifierOption func(*verifierOptions) error

type verifierOptions struct {
	noSCT, noTlog   bool
	referrerTimeout time.Duration
}

// WithReferrerTimeout bounds reading one referrer (its manifest and its
// bundle) to d instead of ReferrerTimeout; a referrer not read by then is
// rejected, saying so, and the others are still examined. d must be
// positive.
func WithReferrerTimeout(d time.Duration) VerifierOption {
	return func(o *verifierOptions) error {
		if d <= 0 {
			return fmt.Errorf("WithReferrerTimeout: %s is not a positive duration", d)
		}
		o.referrerTimeout = d
		return nil
	}
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
	o := &verifierOptions{referrerTimeout: ReferrerTimeout}
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
	return &Verifier{cert: cv, key: kv, referrerTimeout: o.referrerTimeout}, nil
}

// Verify finds the Sigstore bundles among subject's referrers in st and
// verifies each one: against the trusted material, for a statement whose
// subject is subject's digest, and against p. Referrers are not filtered
// by the store: each manifest's artifactType and single layer are checked
// here, as cosign does; referrers of other kinds (SBOMs) are skipped.
// When st is a LegacySignatureStore, the legacy cosign signatures of the
// sha256-<hex>.sig tag are verified too, through the same trust and
// identities, as signatures of kind "legacy" (refused with
// Policy.RequireBundle).
//
// Each referrer is judged on its own (see examine): one that cannot be
// read, is too large, too slow or malformed is rejected with its reason
// and the others are still examined. Referrers the listing marks as
// Sigstore bundles (artifactType or annotations) are examined first; at
// most MaxExaminedReferrers of them and MaxExaminedBytes in all are read,
// and Result.Referrers says how many were listed, examined, skipped and
// left unread.
//
// It returns the Result with a nil error when at least one signature is
// accepted; the Result with an error wrapping ErrNoSignature when no
// bundle was found; the Result with a *VerificationError when none was
// accepted; and a nil Result for a malformed policy, a listing that
// failed, or a cancelled ctx.
func (v *Verifier) Verify(ctx context.Context, st ReferrerStore, subject v1.Descriptor, p Policy) (*Result, error) {
	ids, idErr := p.identities()
	if idErr != nil && !errors.Is(idErr, errNoIdentity) {
		return nil, idErr
	}
	refs, err := st.Referrers(ctx, subject)
	var tr interface{ Truncated() bool }
	truncated := err != nil && errors.As(err, &tr) && tr.Truncated()
	if err != nil && !truncated {
		return nil, fmt.Errorf("listing the signatures of %s: %w", subject.Digest, err)
	}
	res := &Result{FormatVersion: FormatVersion, Subject: subject, Signatures: []Signature{}}
	res.Referrers.Truncated = truncated
	sigs, err := examine(ctx, st, subject, refs, v.referrerTimeout, &res.Referrers, func(b *Bundle, ref v1.Hash) Signature {
		return v.check(b, ref, subject, ids, idErr, p)
	})
	if err != nil {
		return nil, err
	}
	legacy, err := v.examineLegacy(ctx, st, subject, ids, idErr, p)
	if err != nil {
		return nil, err
	}
	res.Signatures = append(sigs, legacy...)
	if len(res.Signatures) == 0 {
		return res, fmt.Errorf("verifying %s: %w", subject.Digest, ErrNoSignature)
	}
	if len(res.Accepted()) > 0 {
		return res, nil
	}
	return res, &VerificationError{Result: res, Err: res.Signatures[len(res.Signatures)-1].Err}
}

// rejected is the Signature of referrer ref rejected for err.
func rejected(ref v1.Hash, kind string, err error) Signature {
	reason, detail := readable(err)
	return Signature{Referrer: ref, Kind: kind, Reason: reason, Detail: detail, Err: &rejection{err}}
}

// check verifies one bundle.
func (v *Verifier) check(b *Bundle, ref v1.Hash, subject v1.Descriptor, ids verify.CertificateIdentities, idErr error, p Policy) Signature {
	sig := Signature{Referrer: ref, Kind: "bundle", PredicateType: b.PredicateType()}
	return v.verifyEntity(sig, b.b, ids, idErr, func() (verify.ArtifactPolicyOption, error) {
		st, err := b.statement()
		if err != nil {
			return nil, err
		}
		if !st.covers(subject.Digest) {
			return nil, fmt.Errorf("the signature is over %s, not over this kit (%s)", statementDigests(st), subject.Digest)
		}
		if p.PredicateType != "" && st.PredicateType != p.PredicateType {
			return nil, fmt.Errorf("predicate type %q is not the required %q", st.PredicateType, p.PredicateType)
		}
		digest, _ := hex.DecodeString(subject.Digest.Hex)
		return verify.WithArtifactDigest(subject.Digest.Algorithm, digest), nil
	})
}

// verifyEntity fills sig with what sb claims (signer, log index), asks
// content for the artifact policy (it checks what was signed), and
// verifies sb against the trust and the identities.
func (v *Verifier) verifyEntity(sig Signature, sb *bundle.Bundle, ids verify.CertificateIdentities, idErr error, content func() (verify.ArtifactPolicyOption, error)) Signature {
	reject := func(err error) Signature {
		sig.Err = &rejection{err}
		sig.Reason, sig.Detail = readable(err)
		return sig
	}
	vc, err := sb.VerificationContent()
	if err != nil {
		return reject(fmt.Errorf("the bundle has no verification material: %w", err))
	}
	cert := vc.Certificate()
	if cert != nil {
		sig.Identity, sig.Issuer = claimedIdentity(cert)
	} else if pk := vc.PublicKey(); pk != nil {
		sig.KeyHint = pk.Hint()
	}
	entries, _ := sb.TlogEntries()
	if len(entries) > 0 {
		i := entries[0].LogIndex()
		sig.LogIndex = &i
	}
	if tss, _ := sb.Timestamps(); cert != nil && len(tss) == 0 && len(entries) == 0 {
		return reject(fmt.Errorf("the signature has no signed timestamp and no log entry, so its certificate (valid %s to %s) cannot be checked against the time of signing",
			cert.NotBefore.UTC().Format(time.RFC3339), cert.NotAfter.UTC().Format(time.RFC3339)))
	}
	artifact, err := content()
	if err != nil {
		return reject(err)
	}
	var vr *verify.VerificationResult
	if cert != nil {
		if idErr != nil {
			return reject(fmt.Errorf("a keyless signature, and %w", idErr))
		}
		var popts []verify.PolicyOption
		for _, id := range ids {
			popts = append(popts, verify.WithCertificateIdentity(id))
		}
		vr, err = v.cert.Verify(sb, verify.NewPolicy(artifact, popts...))
	} else {
		vr, err = v.key.Verify(sb, verify.NewPolicy(artifact, verify.WithKey()))
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

package sign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature/payload"
)

// LegacySignatureStore is a ReferrerStore that can also read the
// signatures cosign wrote before Sigstore bundles (cosign v2's default,
// v3 with --new-bundle-format=false): the image manifest tagged
// sha256-<hex>.sig next to the subject. Verify reads them when its store
// implements it; pkg/artifact's Store does.
type LegacySignatureStore interface {
	ReferrerStore
	// LegacySignatures returns the manifest tagged sha256-<hex>.sig for
	// subject, read within the store's bounds, with its layers readable;
	// nil and no error when there is none.
	LegacySignatures(ctx context.Context, subject v1.Descriptor) (v1.Image, error)
}

// Annotations of a legacy cosign signature layer (cosign's pkg/oci/static).
const (
	legacySignatureAnnotation   = "dev.cosignproject.cosign/signature"
	legacyCertificateAnnotation = "dev.sigstore.cosign/certificate"
	legacyBundleAnnotation      = "dev.sigstore.cosign/bundle"
	legacyTimestampAnnotation   = "dev.sigstore.cosign/rfc3161timestamp"
	// legacyPayloadMediaType is a legacy signature layer's: the payload is
	// a simple-signing JSON document.
	legacyPayloadMediaType = "application/vnd.dev.cosign.simplesigning.v1+json"
	// maxLegacySignatures bounds the layers read from one .sig manifest;
	// maxLegacyPayload one payload (about 250 bytes as cosign writes it).
	maxLegacySignatures = 64
	maxLegacyPayload    = 64 << 10
	// legacyBundleMediaType is the bundle version a legacy signature is
	// verified as: v0.1 admits a Rekor v1 entry with only its signed entry
	// timestamp, as cosign's annotation has.
	legacyBundleMediaType = "application/vnd.dev.sigstore.bundle+json;version=0.1"
)

// legacyRekorBundle is cosign's dev.sigstore.cosign/bundle annotation
// (cosign's bundle.RekorBundle, in a package that would bring all of
// cosign in): a Rekor v1 entry with its signed entry timestamp.
type legacyRekorBundle struct {
	SignedEntryTimestamp []byte `json:"SignedEntryTimestamp"`
	Payload              struct {
		Body           []byte `json:"body"`
		IntegratedTime int64  `json:"integratedTime"`
		LogIndex       int64  `json:"logIndex"`
		LogID          string `json:"logID"`
	} `json:"Payload"`
}

// legacyTimestamp is cosign's dev.sigstore.cosign/rfc3161timestamp
// annotation.
type legacyTimestamp struct {
	SignedRFC3161Timestamp []byte `json:"SignedRFC3161Timestamp"`
}

// examineLegacy reads the legacy signatures of subject, if st has any, and
// judges each one: a Signature of kind "legacy" per signature layer, its
// Referrer the layer's digest. A .sig manifest that cannot be read is one
// rejected signature, named by the manifest's tag.
func (v *Verifier) examineLegacy(ctx context.Context, st ReferrerStore, subject v1.Descriptor, ids verify.CertificateIdentities, idErr error, p Policy) ([]Signature, error) {
	ls, ok := st.(LegacySignatureStore)
	if !ok {
		return nil, nil
	}
	rctx, cancel := context.WithTimeout(ctx, v.referrerTimeout)
	defer cancel()
	img, err := ls.LegacySignatures(rctx, subject)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err != nil {
		return []Signature{rejected(subject.Digest, "legacy", fmt.Errorf("reading the legacy signatures (%s-%s.sig): %w", subject.Digest.Algorithm, subject.Digest.Hex, readFailure(rctx, err, v.referrerTimeout)))}, nil
	}
	if img == nil {
		return nil, nil
	}
	m, err := img.Manifest()
	if err != nil {
		return []Signature{rejected(subject.Digest, "legacy", fmt.Errorf("the legacy signature manifest does not parse: %w", err))}, nil
	}
	var out []Signature
	for i, l := range m.Layers {
		if i == maxLegacySignatures {
			break
		}
		if string(l.MediaType) != legacyPayloadMediaType {
			continue
		}
		if p.RequireBundle {
			out = append(out, rejected(l.Digest, "legacy", errors.New("a legacy cosign signature (sha256-<hex>.sig), and the policy requires Sigstore bundles")))
			continue
		}
		sig := Signature{Referrer: l.Digest, Kind: "legacy"}
		data, err := legacyPayload(rctx, img, l)
		if err != nil {
			out = append(out, rejected(l.Digest, "legacy", readFailure(rctx, err, v.referrerTimeout)))
			continue
		}
		sb, err := legacyBundle(l.Annotations, data)
		if err != nil {
			out = append(out, rejected(l.Digest, "legacy", err))
			continue
		}
		out = append(out, v.verifyEntity(sig, sb, ids, idErr, func() (verify.ArtifactPolicyOption, error) {
			var c payload.Cosign
			if err := json.Unmarshal(data, &c); err != nil {
				return nil, fmt.Errorf("its simple-signing payload: %w", err)
			}
			if got := c.Image.DigestStr(); got != subject.Digest.String() {
				return nil, fmt.Errorf("the signature is over %s, not over this kit (%s)", got, subject.Digest)
			}
			if p.PredicateType != "" && p.PredicateType != CosignSignPredicateType {
				return nil, fmt.Errorf("a legacy image signature has no predicate, and the policy requires %q", p.PredicateType)
			}
			return verify.WithArtifact(bytes.NewReader(data)), nil
		}))
	}
	return out, nil
}

// legacyPayload reads a signature layer's payload within its bound.
func legacyPayload(ctx context.Context, img v1.Image, l v1.Descriptor) ([]byte, error) {
	if l.Size > maxLegacyPayload {
		return nil, fmt.Errorf("its payload is %d bytes, over the %d byte limit", l.Size, maxLegacyPayload)
	}
	layer, err := img.LayerByDigest(l.Digest)
	if err != nil {
		return nil, fmt.Errorf("reading its payload: %w", err)
	}
	rc, err := layer.Compressed()
	if err != nil {
		return nil, fmt.Errorf("reading its payload: %w", err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxLegacyPayload+1))
	if err != nil {
		return nil, fmt.Errorf("reading its payload: %w", err)
	}
	if len(data) > maxLegacyPayload {
		return nil, fmt.Errorf("its payload is over the %d byte limit", maxLegacyPayload)
	}
	return data, ctx.Err()
}

// legacyBundle assembles a legacy signature's annotations into the
// Sigstore bundle they amount to: a message signature over the payload,
// the certificate (or, without one, an unnamed public key), the RFC 3161
// timestamp and the Rekor v1 entry with its signed entry timestamp.
func legacyBundle(ann map[string]string, data []byte) (*bundle.Bundle, error) {
	sig, err := base64.StdEncoding.DecodeString(ann[legacySignatureAnnotation])
	if err != nil || len(sig) == 0 {
		return nil, fmt.Errorf("its %s annotation holds no base64 signature", legacySignatureAnnotation)
	}
	digest := sha256.Sum256(data)
	vm := &protobundle.VerificationMaterial{}
	if pemCert := ann[legacyCertificateAnnotation]; pemCert != "" {
		certs, err := cryptoutils.UnmarshalCertificatesFromPEM([]byte(pemCert))
		if err != nil || len(certs) == 0 {
			return nil, fmt.Errorf("its %s annotation holds no PEM certificate", legacyCertificateAnnotation)
		}
		vm.Content = &protobundle.VerificationMaterial_X509CertificateChain{X509CertificateChain: &protocommon.X509CertificateChain{
			Certificates: []*protocommon.X509Certificate{{RawBytes: certs[0].Raw}},
		}}
	} else {
		vm.Content = &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{}}
	}
	if a := ann[legacyTimestampAnnotation]; a != "" {
		var ts legacyTimestamp
		if err := json.Unmarshal([]byte(a), &ts); err != nil || len(ts.SignedRFC3161Timestamp) == 0 {
			return nil, fmt.Errorf("its %s annotation holds no RFC 3161 timestamp", legacyTimestampAnnotation)
		}
		vm.TimestampVerificationData = &protobundle.TimestampVerificationData{
			Rfc3161Timestamps: []*protocommon.RFC3161SignedTimestamp{{SignedTimestamp: ts.SignedRFC3161Timestamp}},
		}
	}
	if a := ann[legacyBundleAnnotation]; a != "" {
		tle, err := legacyLogEntry([]byte(a))
		if err != nil {
			return nil, fmt.Errorf("its %s annotation: %w", legacyBundleAnnotation, err)
		}
		vm.TlogEntries = []*protorekor.TransparencyLogEntry{tle}
	}
	pb := &protobundle.Bundle{
		MediaType:            legacyBundleMediaType,
		VerificationMaterial: vm,
		Content: &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: digest[:]},
			Signature:     sig,
		}},
	}
	b, err := bundle.NewBundle(pb)
	if err != nil {
		return nil, fmt.Errorf("its annotations do not make a Sigstore bundle: %w", err)
	}
	return b, nil
}

// legacyLogEntry turns cosign's Rekor bundle annotation into a
// transparency-log entry with sigstore-go's tlog.NewEntry.
func legacyLogEntry(data []byte) (*protorekor.TransparencyLogEntry, error) {
	var rb legacyRekorBundle
	if err := json.Unmarshal(data, &rb); err != nil {
		return nil, err
	}
	logID, err := hex.DecodeString(rb.Payload.LogID)
	if err != nil {
		return nil, fmt.Errorf("log ID %q: %w", rb.Payload.LogID, err)
	}
	e, err := tlog.NewEntry(rb.Payload.Body, rb.Payload.IntegratedTime, rb.Payload.LogIndex, logID, rb.SignedEntryTimestamp, nil)
	if err != nil {
		return nil, err
	}
	return e.TransparencyLogEntry(), nil
}

package signtest

import (
	"fmt"

	"encoding/base64"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"google.golang.org/protobuf/encoding/protojson"
)

// VirtualBundle returns the bundle JSON of a DSSE entity that sigstore-go's
// VirtualSigstore made (Attest, AttestHashedRekordV2): its certificate,
// signed timestamps, log entries and envelope.
func VirtualBundle(e *ca.TestEntity) ([]byte, error) {
	vc, err := e.VerificationContent()
	if err != nil {
		return nil, err
	}
	sc, err := e.SignatureContent()
	if err != nil {
		return nil, err
	}
	ec := sc.EnvelopeContent()
	if ec == nil {
		return nil, fmt.Errorf("the entity holds no DSSE envelope")
	}
	env := ec.RawEnvelope()
	payload, err := env.DecodeB64Payload()
	if err != nil {
		return nil, err
	}
	pe := &protodsse.Envelope{Payload: payload, PayloadType: env.PayloadType}
	for _, s := range env.Signatures {
		sig, err := base64.StdEncoding.DecodeString(s.Sig)
		if err != nil {
			return nil, err
		}
		pe.Signatures = append(pe.Signatures, &protodsse.Signature{Sig: sig, Keyid: s.KeyID})
	}
	tss, err := e.Timestamps()
	if err != nil {
		return nil, err
	}
	tvd := &protobundle.TimestampVerificationData{}
	for _, ts := range tss {
		tvd.Rfc3161Timestamps = append(tvd.Rfc3161Timestamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: ts})
	}
	entries, err := e.TlogEntries()
	if err != nil {
		return nil, err
	}
	var tles []*protorekor.TransparencyLogEntry
	for _, en := range entries {
		tles = append(tles, en.TransparencyLogEntry())
	}
	pb := &protobundle.Bundle{
		MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_Certificate{
				Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw},
			},
			TlogEntries:               tles,
			TimestampVerificationData: tvd,
		},
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: pe},
	}
	if _, err := bundle.NewBundle(pb); err != nil {
		return nil, fmt.Errorf("the virtual entity makes no valid bundle: %w", err)
	}
	return protojson.Marshal(pb)
}

package sign

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// Keypair is a signing key as sigstore-go uses it: an ephemeral key for a
// keyless signature (NewEphemeralKeypair) or a publisher's own key
// (LoadPrivateKey).
type Keypair = sgsign.Keypair

var _ Keypair = (*keyPair)(nil)

// NewEphemeralKeypair returns a fresh ECDSA P-256 key for one keyless
// signature.
func NewEphemeralKeypair() (Keypair, error) {
	kp, err := sgsign.NewEphemeralKeypair(nil)
	if err != nil {
		return nil, fmt.Errorf("generating an ephemeral key: %w", err)
	}
	return kp, nil
}

// LoadPrivateKey decodes a PEM private key: PKCS#8, PKCS#1 or SEC 1, or
// cosign's encrypted cosign.key ("ENCRYPTED SIGSTORE PRIVATE KEY", or the
// older "ENCRYPTED COSIGN PRIVATE KEY"), decrypted with password. password
// may be nil for an unencrypted key.
func LoadPrivateKey(pemBytes, password []byte) (Keypair, error) {
	var pf cryptoutils.PassFunc
	if password != nil {
		pf = cryptoutils.StaticPasswordFunc(password)
	}
	priv, err := cryptoutils.UnmarshalPEMToPrivateKey(pemBytes, pf)
	if err != nil {
		return nil, fmt.Errorf("loading the private key: %w", err)
	}
	s, ok := priv.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("loading the private key: a %T cannot sign", priv)
	}
	return newKeyPair(s)
}

// LoadPublicKey decodes a PEM public key, such as cosign.pub.
func LoadPublicKey(pemBytes []byte) (crypto.PublicKey, error) {
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("loading the public key: %w", err)
	}
	return pub, nil
}

// PublicKeyTrust returns trusted material that trusts signatures made with
// pub, whatever key hint a bundle names, at any time.
func PublicKeyTrust(pub crypto.PublicKey) (root.TrustedMaterial, error) {
	v, err := signature.LoadDefaultVerifier(pub)
	if err != nil {
		return nil, fmt.Errorf("loading a verifier for the public key: %w", err)
	}
	key := root.NewExpiringKey(v, time.Time{}, time.Time{})
	return root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) { return key, nil }), nil
}

// keyPair is a Keypair over a publisher's own key.
type keyPair struct {
	s    crypto.Signer
	alg  signature.AlgorithmDetails
	hint []byte
}

func newKeyPair(s crypto.Signer) (*keyPair, error) {
	alg, err := signature.GetDefaultAlgorithmDetails(s.Public())
	if err != nil {
		return nil, fmt.Errorf("choosing a signature algorithm for the key: %w", err)
	}
	der, err := x509.MarshalPKIXPublicKey(s.Public())
	if err != nil {
		return nil, fmt.Errorf("encoding the public key: %w", err)
	}
	sum := sha256.Sum256(der)
	return &keyPair{s: s, alg: alg, hint: []byte(base64.StdEncoding.EncodeToString(sum[:]))}, nil
}

func (k *keyPair) GetHashAlgorithm() protocommon.HashAlgorithm { return k.alg.GetProtoHashType() }
func (k *keyPair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return k.alg.GetSignatureAlgorithm()
}
func (k *keyPair) GetHint() []byte                { return k.hint }
func (k *keyPair) GetPublicKey() crypto.PublicKey { return k.s.Public() }

func (k *keyPair) GetKeyAlgorithm() string {
	switch k.alg.GetKeyType() {
	case signature.ECDSA:
		return "ECDSA"
	case signature.RSA:
		return "RSA"
	case signature.ED25519:
		return "ED25519"
	}
	return ""
}

func (k *keyPair) GetPublicKeyPem() (string, error) {
	b, err := cryptoutils.MarshalPublicKeyToPEM(k.s.Public())
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// SignData signs data's digest (the data itself for pure Ed25519) and
// returns the signature and what was signed.
func (k *keyPair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	hf := k.alg.GetHashType()
	toSign := data
	if hf != crypto.Hash(0) {
		h := hf.New()
		h.Write(data)
		toSign = h.Sum(nil)
	}
	sig, err := k.s.Sign(rand.Reader, toSign, hf)
	if err != nil {
		return nil, nil, errors.Join(errors.New("signing with the private key"), err)
	}
	return sig, toSign, nil
}

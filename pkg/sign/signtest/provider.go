package signtest

import (
	"context"

	"github.com/kitsmith/kitsmith/pkg/sign"
)

// Certificates returns a sign.CertificateProvider that issues c for each
// key, as Fulcio would for a token of that identity.
func (s *Sigstore) Certificates(c Cert) sign.CertificateProvider {
	return provider{s: s, c: c}
}

type provider struct {
	s *Sigstore
	c Cert
}

func (p provider) Certificate(_ context.Context, kp sign.Keypair) ([]byte, error) {
	return p.s.Issue(p.c, kp.GetPublicKey())
}

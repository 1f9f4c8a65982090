// Package signtest provides an in-process Sigstore for tests of code that
// signs and verifies kits: a certificate authority that issues Fulcio-shaped
// certificates for any identity, an RFC 3161 timestamp authority served on
// 127.0.0.1, the trusted root that trusts both, and an in-memory
// sign.ReferrerStore. Bundles it helps make verify with
// sign.WithoutSCTUnsafe and sign.WithoutTlogUnsafe (it runs no CT log and no
// transparency log); VirtualBundle turns sigstore-go's VirtualSigstore
// entities, which carry a Rekor v2 entry, into bundles too.
package signtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/digitorus/timestamp"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	prototrustroot "github.com/sigstore/protobuf-specs/gen/pb-go/trustroot/v1"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Sigstore is an in-process certificate authority and timestamp authority.
type Sigstore struct {
	// TSAURL is the timestamp authority's full URL, on 127.0.0.1.
	TSAURL string
	// FulcioURL is the URI the trusted root names for the certificate
	// authority; nothing listens there: use Certificates.
	FulcioURL string

	rootCert  *x509.Certificate
	interCert *x509.Certificate
	interKey  *ecdsa.PrivateKey
	tsaRoot   *x509.Certificate
	tsaInter  *x509.Certificate
	tsaLeaf   *x509.Certificate
	tsaKey    *ecdsa.PrivateKey
	serial    atomic.Int64
}

// New starts a Sigstore whose timestamp authority stops with t.
func New(t testing.TB) *Sigstore {
	t.Helper()
	rootCert, rootKey, err := ca.GenerateRootCa()
	if err != nil {
		t.Fatal(err)
	}
	inter, interKey, err := ca.GenerateFulcioIntermediate(rootCert, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	tsaInter, tsaInterKey, err := ca.GenerateTSAIntermediate(rootCert, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	tsaKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tsaLeaf, err := ca.GenerateTSALeafCert(time.Now().Add(-5*time.Minute), tsaKey, tsaInter, tsaInterKey)
	if err != nil {
		t.Fatal(err)
	}
	s := &Sigstore{
		FulcioURL: "http://127.0.0.1:9/fulcio", rootCert: rootCert, interCert: inter, interKey: interKey,
		tsaRoot: rootCert, tsaInter: tsaInter, tsaLeaf: tsaLeaf, tsaKey: tsaKey,
	}
	srv := httptest.NewServer(http.HandlerFunc(s.serveTimestamp))
	t.Cleanup(srv.Close)
	s.TSAURL = srv.URL + "/api/v1/timestamp"
	return s
}

func (s *Sigstore) serveTimestamp(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/api/v1/timestamp") {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, err := timestamp.ParseRequest(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ts := timestamp.Timestamp{
		HashAlgorithm: req.HashAlgorithm, HashedMessage: req.HashedMessage, Time: time.Now(),
		Policy: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 2}, Nonce: req.Nonce, ExtraExtensions: req.Extensions,
	}
	resp, err := ts.CreateResponseWithOpts(s.tsaLeaf, s.tsaKey, crypto.SHA256)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/timestamp-reply")
	_, _ = w.Write(resp)
}

// TrustedRootJSON returns the trusted_root.json that trusts s.
func (s *Sigstore) TrustedRootJSON(t testing.TB) []byte {
	t.Helper()
	start := timestamppb.New(time.Now().Add(-24 * time.Hour))
	chain := func(certs ...*x509.Certificate) *protocommon.X509CertificateChain {
		c := &protocommon.X509CertificateChain{}
		for _, cert := range certs {
			c.Certificates = append(c.Certificates, &protocommon.X509Certificate{RawBytes: cert.Raw})
		}
		return c
	}
	tr := &prototrustroot.TrustedRoot{
		MediaType: root.TrustedRootMediaType01,
		CertificateAuthorities: []*prototrustroot.CertificateAuthority{{
			Subject: &protocommon.DistinguishedName{Organization: "sigstore.dev", CommonName: "sigstore"},
			Uri:     s.FulcioURL, CertChain: chain(s.interCert, s.rootCert), ValidFor: &protocommon.TimeRange{Start: start},
		}},
		TimestampAuthorities: []*prototrustroot.CertificateAuthority{{
			Subject: &protocommon.DistinguishedName{Organization: "sigstore.dev", CommonName: "sigstore-tsa"},
			Uri:     s.TSAURL, CertChain: chain(s.tsaLeaf, s.tsaInter, s.tsaRoot), ValidFor: &protocommon.TimeRange{Start: start},
		}},
	}
	b, err := protojson.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TrustedRoot returns the trusted root that trusts s.
func (s *Sigstore) TrustedRoot(t testing.TB) *root.TrustedRoot {
	t.Helper()
	tr, err := root.NewTrustedRootFromJSON(s.TrustedRootJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// GitHubClaims are the GitHub Actions claims of a workflow certificate, in
// Fulcio's deprecated (and still issued) extensions 1.2 to 1.6, which
// cosign's --certificate-github-workflow-* flags read.
type GitHubClaims struct {
	Trigger, SHA, Name, Repository, Ref string
}

// Cert describes a certificate to issue.
type Cert struct {
	// Identity is the SAN: an email address, or a URI when it contains
	// "://".
	Identity string
	// Issuer is the OIDC issuer extension.
	Issuer string
	// GitHub adds workflow claims when set.
	GitHub *GitHubClaims
	// NotBefore is when the certificate starts to be valid; zero means a
	// minute ago. It is valid for 10 minutes, as Fulcio's are.
	NotBefore time.Time
}

// Issue returns a DER leaf certificate for pub.
func (s *Sigstore) Issue(c Cert, pub crypto.PublicKey) ([]byte, error) {
	nb := c.NotBefore
	if nb.IsZero() {
		nb = time.Now().Add(-time.Minute)
	}
	issuerV2, err := asn1.MarshalWithParams(c.Issuer, "utf8")
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(s.serial.Add(1) + 1),
		NotBefore:    nb,
		NotAfter:     nb.Add(10 * time.Minute),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: []pkix.Extension{
			{Id: certificate.OIDIssuer, Value: []byte(c.Issuer)},
			{Id: certificate.OIDIssuerV2, Value: issuerV2},
		},
	}
	if strings.Contains(c.Identity, "://") {
		u, err := url.Parse(c.Identity)
		if err != nil {
			return nil, err
		}
		tmpl.URIs = []*url.URL{u}
	} else {
		tmpl.EmailAddresses = []string{c.Identity}
	}
	if g := c.GitHub; g != nil {
		for _, e := range []struct {
			id asn1.ObjectIdentifier
			v  string
		}{
			{certificate.OIDGitHubWorkflowTrigger, g.Trigger}, {certificate.OIDGitHubWorkflowSHA, g.SHA},
			{certificate.OIDGitHubWorkflowName, g.Name}, {certificate.OIDGitHubWorkflowRepository, g.Repository},
			{certificate.OIDGitHubWorkflowRef, g.Ref},
		} {
			tmpl.ExtraExtensions = append(tmpl.ExtraExtensions, pkix.Extension{Id: e.id, Value: []byte(e.v)})
		}
	}
	return x509.CreateCertificate(rand.Reader, tmpl, s.interCert, pub, s.interKey)
}

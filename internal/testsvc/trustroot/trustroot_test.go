package trustroot

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sigstore/rekor-tiles/v2/pkg/note"
	"github.com/sigstore/sigstore-go/pkg/root"
)

// certChain returns n PEM certificates, leaf first, each issued by the next.
func certChain(t *testing.T, names ...string) ([]*x509.Certificate, string) {
	t.Helper()
	var (
		certs  []*x509.Certificate
		parent *x509.Certificate
		pkey   crypto.Signer
		pemOut []string
	)
	notBefore := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := len(names) - 1; i >= 0; i-- {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(int64(i + 1)), Subject: pkix.Name{CommonName: names[i], Organization: []string{"test"}},
			NotBefore: notBefore, NotAfter: notBefore.Add(24 * time.Hour),
			IsCA: i > 0, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		}
		if i == 0 {
			tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}
		}
		signer, issuer := crypto.Signer(key), tmpl
		if parent != nil {
			signer, issuer = pkey, parent
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, key.Public(), signer)
		if err != nil {
			t.Fatal(err)
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		certs = append([]*x509.Certificate{c}, certs...)
		pemOut = append([]string{string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))}, pemOut...)
		parent, pkey = c, key
	}
	return certs, strings.Join(pemOut, "")
}

type fakeServices struct {
	srv                 *httptest.Server
	fulcioPEM, tsaPEM   string
	fulcioRoot, tsaRoot *x509.Certificate
	tsaLeaf             *x509.Certificate
	rekorKey            ed25519.PublicKey
	ctKey               *ecdsa.PublicKey
}

func newFake(t *testing.T) *fakeServices {
	t.Helper()
	f := &fakeServices{}
	fc, fp := certChain(t, "fulcio root")
	tc, tp := certChain(t, "tsa leaf", "tsa intermediate", "tsa root")
	f.fulcioPEM, f.tsaPEM, f.fulcioRoot, f.tsaRoot, f.tsaLeaf = fp, tp, fc[0], tc[2], tc[0]
	var err error
	if f.rekorKey, _, err = ed25519.GenerateKey(rand.Reader); err != nil {
		t.Fatal(err)
	}
	ck, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	f.ctKey = &ck.PublicKey
	mux := http.NewServeMux()
	mux.HandleFunc("GET /fulcio/api/v2/trustBundle", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"chains": []any{map[string]any{"certificates": []string{f.fulcioPEM}}}})
	})
	mux.HandleFunc("GET /tsa/api/v1/timestamp/certchain", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(f.tsaPEM))
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServices) services(withCT bool) Services {
	s := Services{
		FulcioURL: f.srv.URL + "/fulcio", TSAURL: f.srv.URL + "/tsa/api/v1/timestamp",
		RekorURL: "http://127.0.0.1:15557", RekorKey: f.rekorKey, OIDCURL: "http://127.0.0.1:15550/email",
	}
	if withCT {
		s.CTLogURL, s.CTLogKey = "http://127.0.0.1:16962", f.ctKey
	}
	return s
}

func TestTrustedRoot(t *testing.T) {
	f := newFake(t)
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, withCT := range []bool{false, true} {
		t.Run(map[bool]string{false: "without CT", true: "with CT"}[withCT], func(t *testing.T) {
			s := f.services(withCT)
			tr, err := TrustedRoot(context.Background(), s, WithValidFrom(from))
			if err != nil {
				t.Fatal(err)
			}
			// Round-trip through JSON, the way sigstore-go and cosign read the file.
			b, err := tr.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			back, err := root.NewTrustedRootFromJSON(b)
			if err != nil {
				t.Fatalf("reading back: %v\n%s", err, b)
			}
			_, wantID, err := note.KeyHash("127.0.0.1", f.rekorKey)
			if err != nil {
				t.Fatal(err)
			}
			ctDER, _ := x509.MarshalPKIXPublicKey(f.ctKey)
			ctID := sha256.Sum256(ctDER)
			type summary struct {
				CAURI, CARoot, TSAURI, TSALeaf, TSARoot string
				CAStart                                 time.Time
				Tlogs, CTLogs                           map[string]string
				TlogStart                               time.Time
			}
			got := summary{Tlogs: map[string]string{}, CTLogs: map[string]string{}}
			cas := back.FulcioCertificateAuthorities()
			tsas := back.TimestampingAuthorities()
			if len(cas) != 1 || len(tsas) != 1 {
				t.Fatalf("%d CAs and %d TSAs, want 1 and 1", len(cas), len(tsas))
			}
			ca := cas[0].(*root.FulcioCertificateAuthority)
			tsa := tsas[0].(*root.SigstoreTimestampingAuthority)
			got.CAURI, got.CARoot, got.CAStart = ca.URI, ca.Root.Subject.CommonName, ca.ValidityPeriodStart.UTC()
			got.TSAURI, got.TSALeaf, got.TSARoot = tsa.URI, tsa.Leaf.Subject.CommonName, tsa.Root.Subject.CommonName
			for id, l := range back.RekorLogs() {
				got.Tlogs[id] = l.BaseURL
				got.TlogStart = l.ValidityPeriodStart.UTC()
			}
			for id, l := range back.CTLogs() {
				got.CTLogs[id] = l.BaseURL
			}
			want := summary{
				CAURI: s.FulcioURL, CARoot: "fulcio root", CAStart: f.fulcioRoot.NotBefore,
				TSAURI: s.TSAURL, TSALeaf: "tsa leaf", TSARoot: "tsa root",
				Tlogs:     map[string]string{hex.EncodeToString(wantID): "http://127.0.0.1:15557"},
				CTLogs:    map[string]string{},
				TlogStart: from,
			}
			if withCT {
				want.CTLogs[hex.EncodeToString(ctID[:])] = "http://127.0.0.1:16962"
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("trusted root (-want +got):\n%s", d)
			}
			if n := len(tsa.Intermediates); n != 1 {
				t.Errorf("TSA intermediates = %d, want 1", n)
			}
		})
	}
}

func TestTrustedRootErrors(t *testing.T) {
	f := newFake(t)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/down/"):
			http.Error(w, "no", http.StatusInternalServerError)
		case strings.HasSuffix(r.URL.Path, "/trustBundle"):
			_, _ = w.Write([]byte(`{"chains":[]}`))
		case strings.HasSuffix(r.URL.Path, "/certchain"):
			_, _ = w.Write([]byte("not PEM"))
		default:
			http.Error(w, "no", http.StatusInternalServerError)
		}
	}))
	t.Cleanup(bad.Close)
	tests := []struct {
		name   string
		mutate func(*Services)
		want   string
	}{
		{"missing Rekor key", func(s *Services) { s.RekorKey = nil }, "required"},
		{"Fulcio down", func(s *Services) { s.FulcioURL = bad.URL + "/down" }, "500"},
		{"empty Fulcio bundle", func(s *Services) { s.FulcioURL = bad.URL }, "no chain"},
		{"TSA chain not PEM", func(s *Services) { s.TSAURL = bad.URL + "/api/v1/timestamp" }, "no PEM certificate"},
		{"CT URL without key", func(s *Services) { s.CTLogURL = "http://127.0.0.1:16962" }, "without its public key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := f.services(false)
			tc.mutate(&s)
			_, err := TrustedRoot(context.Background(), s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestSigningConfig(t *testing.T) {
	f := newFake(t)
	s := f.services(false)
	sc, err := SigningConfig(s, WithValidFrom(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := sc.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := root.NewSigningConfigFromJSON(b)
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, b)
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	pick := func(services []root.Service, versions []uint32) string {
		svc, err := root.SelectService(services, versions, now)
		if err != nil {
			t.Fatalf("selecting from %v: %v", services, err)
		}
		return svc.URL
	}
	got := map[string]string{
		"fulcio": pick(back.FulcioCertificateAuthorityURLs(), []uint32{1}),
		"oidc":   pick(back.OIDCProviderURLs(), []uint32{1}),
		"rekor":  pick(back.RekorLogURLs(), []uint32{2}),
		"tsa":    pick(back.TimestampAuthorityURLs(), []uint32{1}),
	}
	want := map[string]string{"fulcio": s.FulcioURL, "oidc": s.OIDCURL, "rekor": s.RekorURL, "tsa": s.TSAURL}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("signing config (-want +got):\n%s", d)
	}
	if _, err := root.SelectService(back.RekorLogURLs(), []uint32{1}, now); err == nil {
		t.Error("the Rekor service was selectable as API v1; want v2 only")
	}
	if !strings.Contains(string(b), `"majorApiVersion":2`) && !strings.Contains(string(b), `"majorApiVersion": 2`) {
		t.Errorf("no majorApiVersion 2 in %s", b)
	}
}

package sign_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
	"github.com/sigstore/sigstore-go/pkg/tuf"
)

const signingConfig = `{"mediaType": "application/vnd.dev.sigstore.signingconfig.v0.2+json",
 "caUrls":        [{"url": "http://127.0.0.1:15555", "majorApiVersion": 1, "validFor": {"start": "2020-01-01T00:00:00Z"}, "operator": "local"}],
 "oidcUrls":      [{"url": "http://127.0.0.1:18089", "majorApiVersion": 1, "validFor": {"start": "2020-01-01T00:00:00Z"}, "operator": "local"}],
 "rekorTlogUrls": [{"url": "http://127.0.0.1:15557", "majorApiVersion": 2, "validFor": {"start": "2020-01-01T00:00:00Z"}, "operator": "local"},
                   {"url": "http://127.0.0.1:15558", "majorApiVersion": 1, "validFor": {"start": "2020-01-01T00:00:00Z"}, "operator": "old"}],
 "tsaUrls":       [{"url": "http://127.0.0.1:15556/api/v1/timestamp", "majorApiVersion": 1, "validFor": {"start": "2020-01-01T00:00:00Z"}, "operator": "local"}],
 "rekorTlogConfig": {"selector": "ANY"}, "tsaConfig": {"selector": "ANY"}}`

func TestServicesFromSigningConfig(t *testing.T) {
	sc, err := sign.LoadSigningConfig([]byte(signingConfig))
	if err != nil {
		t.Fatal(err)
	}
	got, err := sign.ServicesFromSigningConfig(sc, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := sign.Services{
		Fulcio:     "http://127.0.0.1:15555",
		OIDCIssuer: "http://127.0.0.1:18089",
		TSAs:       []string{"http://127.0.0.1:15556/api/v1/timestamp"},
		Logs:       []sign.Log{{URL: "http://127.0.0.1:15557", Version: 2}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("services (-want +got):\n%s", diff)
	}
	if _, err := sign.ServicesFromSigningConfig(sc, time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)); err == nil {
		t.Error("services not yet valid were selected")
	}
	if _, err := sign.LoadSigningConfig([]byte(`{"mediaType": 3}`)); err == nil {
		t.Error("LoadSigningConfig accepted a broken config")
	}
	if _, err := sign.LoadTrustedRoot([]byte(`{}`)); err == nil {
		t.Error("LoadTrustedRoot accepted an empty document")
	}
}

// TestPublicGoodUnreachable points the TUF client at a repository on
// 127.0.0.1 that has nothing: it fails, fast, saying what it was doing.
func TestPublicGoodUnreachable(t *testing.T) {
	var requests int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		http.NotFound(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, _, err := sign.PublicGood(ctx, t.TempDir(), sign.WithTUFRepository(srv.URL, tuf.DefaultRoot()))
	if err == nil {
		t.Fatal("PublicGood succeeded against an empty repository")
	}
	if requests == 0 {
		t.Error("the TUF client asked the test repository nothing")
	}
	if _, _, err := sign.PublicGood(ctx, ""); err == nil {
		t.Error("PublicGood accepted no cache directory")
	}
}

// recorder is an http.RoundTripper that records the paths it is asked for
// and passes requests on.
type recorder struct {
	paths []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.paths = append(r.paths, req.URL.Path)
	return http.DefaultTransport.RoundTrip(req)
}

// TestSignerTransport checks that WithTransport carries the timestamp and
// the Rekor v1 requests.
func TestSignerTransport(t *testing.T) {
	f := newFixture(t)
	rekor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"code":500,"message":"no log here"}`, http.StatusInternalServerError)
	}))
	defer rekor.Close()
	rt := &recorder{}
	s := f.signer(t, signtest.Cert{}, sign.WithTimestampAuthority(f.ss.TSAURL),
		sign.WithTransparencyLog(sign.Log{URL: rekor.URL, Version: 1}), sign.WithTransport(rt))
	if _, err := s.Sign(context.Background(), kit(t)); err == nil {
		t.Fatal("signing succeeded with a failing log")
	}
	want := []string{"/api/v1/timestamp", "/api/v1/log/entries"}
	if diff := cmp.Diff(want, rt.paths); diff != "" {
		t.Errorf("requests through the transport (-want +got):\n%s", diff)
	}
}

package artifact

import (
	"net/http"
	"testing"
	"time"
)

// fakeRoundTripper answers every request with status and records the
// URLs that reached it.
type fakeRoundTripper struct {
	status int
	urls   []string
}

func (f *fakeRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	f.urls = append(f.urls, req.URL.String())
	return &http.Response{StatusCode: f.status, Body: http.NoBody, Request: req}, nil
}

// TestGuardTransportPlainHosts: once a host answered over plain HTTP,
// HTTPS to it is refused without a connection; other hosts, and a host
// that only redirected, are still tried over HTTPS.
func TestGuardTransportPlainHosts(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		https   string
		refused bool
	}{
		{"answered over HTTP", http.StatusOK, "https://127.0.0.1:5000/v2/", true},
		{"answered 401 over HTTP", http.StatusUnauthorized, "https://127.0.0.1:5000/v2/", true},
		{"another port", http.StatusOK, "https://127.0.0.1:5001/v2/", false},
		{"only redirected", http.StatusMovedPermanently, "https://127.0.0.1:5000/v2/", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &fakeRoundTripper{status: tt.status}
			g := &guardTransport{inner: inner, timeout: time.Minute}
			for _, u := range []string{"http://127.0.0.1:5000/v2/", tt.https} {
				req, err := http.NewRequest(http.MethodGet, u, nil)
				if err != nil {
					t.Fatal(err)
				}
				resp, err := g.RoundTrip(req)
				if err == nil {
					resp.Body.Close()
				}
				if u == tt.https && (err != nil) != tt.refused {
					t.Errorf("%s: err %v; want refused: %v", u, err, tt.refused)
				}
			}
			if reached := len(inner.urls); reached != map[bool]int{true: 1, false: 2}[tt.refused] {
				t.Errorf("requests that reached the network: %v", inner.urls)
			}
		})
	}
}

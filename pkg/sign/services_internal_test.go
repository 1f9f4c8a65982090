package sign

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	rekorpb "github.com/sigstore/rekor-tiles/v2/pkg/generated/protobuf"
)

// TestRekorV2Client checks the request the Rekor v2 writer sends through
// its transport and the entry it decodes.
func TestRekorV2Client(t *testing.T) {
	var gotPath, gotBody string
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.Path
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		calls++
		if calls > 1 {
			http.Error(w, "an equivalent entry already exists", http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"logIndex":"42","kindVersion":{"kind":"hashedrekord","version":"0.0.2"}}`))
	}))
	defer srv.Close()
	c := &rekorV2{base: srv.URL, client: srv.Client()}
	entry := &rekorpb.HashedRekordRequestV002{Digest: []byte("0123456789abcdef0123456789abcdef"), Signature: &rekorpb.Signature{Content: []byte("sig")}}
	tle, err := c.Add(context.Background(), entry)
	if err != nil {
		t.Fatal(err)
	}
	if tle.LogIndex != 42 || tle.KindVersion.GetKind() != "hashedrekord" {
		t.Errorf("entry = %v", tle)
	}
	if gotPath != "/api/v2/log/entries" || !strings.Contains(gotBody, "hashedRekordRequestV002") {
		t.Errorf("request = %s %s", gotPath, gotBody)
	}
	if _, err := c.Add(context.Background(), entry); err == nil || !strings.Contains(err.Error(), "409") {
		t.Errorf("a 409 gave %v", err)
	}
	if _, err := c.Add(context.Background(), "not an entry"); err == nil {
		t.Error("Add accepted an unknown entry type")
	}
}

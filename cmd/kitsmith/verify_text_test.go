package main

import (
	"bytes"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/sign"
)

// TestWriteSignaturesText: one line per rejection with its reason, no
// empty signer ("key :") when the referrer was rejected before its signer
// was read, the whole text only with --verbose, the legacy label, and the
// referrer counts.
func TestWriteSignaturesText(t *testing.T) {
	h, _ := v1.NewHash("sha256:" + strings.Repeat("ab", 32))
	res := &sign.Result{
		Signatures: []sign.Signature{
			{Referrer: h, Kind: "bundle", Reason: "reading its bundle: BLOB_UNKNOWN…", Detail: "reading its bundle: BLOB_UNKNOWN: the whole text"},
			{Referrer: h, Kind: "legacy", Identity: "dev@example.org", Issuer: "http://127.0.0.1:18089", Accepted: true},
		},
		Referrers: sign.ReferrerCounts{Listed: 5, Examined: 4, Skipped: 2, NotExamined: 1, Truncated: true},
	}
	for _, verbose := range []bool{false, true} {
		var b bytes.Buffer
		if err := writeSignatures(&b, "kit", res, verbose); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{
			"kit: verified, 1 of 2",
			"  rejected " + h.String() + ": reading its bundle: BLOB_UNKNOWN…\n",
			"accepted " + h.String() + " dev@example.org (issuer http://127.0.0.1:18089) [legacy cosign signature]",
			"referrers: 5 listed, 4 examined, 2 skipped (not signatures), 1 not examined (over the examination bounds); the registry lists more",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("verbose=%v: output lacks %q:\n%s", verbose, want, out)
			}
		}
		if got := strings.Contains(out, "detail: reading its bundle: BLOB_UNKNOWN: the whole text"); got != verbose {
			t.Errorf("verbose=%v: detail shown %v:\n%s", verbose, got, out)
		}
		if strings.Contains(out, "key :") || strings.Contains(out, "key  ") {
			t.Errorf("an empty key hint:\n%s", out)
		}
	}
}

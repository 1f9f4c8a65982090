package admission

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// TestDocument pins verify's JSON document: the verdict needs an
// accepted signature and, with a ceiling, no violation; the ceiling is
// absent without one.
func TestDocument(t *testing.T) {
	subject := v1.Descriptor{MediaType: "application/vnd.oci.image.index.v1+json", Size: 10,
		Digest: v1.Hash{Algorithm: "sha256", Hex: "aa"}}
	accepted := sign.Signature{Referrer: v1.Hash{Algorithm: "sha256", Hex: "bb"}, Accepted: true, Kind: "keyless", Identity: "ci@example.com"}
	rejected := sign.Signature{Referrer: v1.Hash{Algorithm: "sha256", Hex: "cc"}, Kind: "keyless", Reason: "identity"}
	sigs := func(s ...sign.Signature) *sign.Result {
		return &sign.Result{FormatVersion: sign.FormatVersion, Subject: subject, Signatures: s, Referrers: sign.ReferrerCounts{Listed: len(s)}}
	}
	head := `{"formatVersion":1,"reference":"r/k:1",`
	subj := `"subject":{"mediaType":"application/vnd.oci.image.index.v1+json","size":10,"digest":"sha256:aa"},`
	// The signatures' and counts' own shapes are pkg/sign's.
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	acc, rej := js(accepted), js(rejected)
	counts := `"referrers":` + js(sign.ReferrerCounts{Listed: 1})
	tests := []struct {
		name string
		r    *Result
		want string
	}{
		{"accepted", &Result{Signatures: sigs(accepted), Verified: true},
			head + `"verified":true,` + subj + `"signatures":[` + acc + `],` + counts + `}`},
		{"rejected", &Result{Signatures: sigs(rejected)},
			head + `"verified":false,` + subj + `"signatures":[` + rej + `],` + counts + `}`},
		{"over the ceiling", &Result{Signatures: sigs(accepted), Verified: true, Ceiling: &review.CeilingResult{Kit: "k",
			Violations: []review.Violation{{Category: "network.runtime.allow", Grant: "evil.example.org", Rule: "ceiling.network.runtime", Message: "m"}}}},
			head + `"verified":false,` + subj + `"signatures":[` + acc + `],` + counts + `,` +
				`"ceiling":{"ok":false,"kit":"k","violations":[{"category":"network.runtime.allow","grant":"evil.example.org","rule":"ceiling.network.runtime","message":"m"}]}}`},
		{"within the ceiling", &Result{Signatures: sigs(accepted), Verified: true, Ceiling: &review.CeilingResult{Kit: "k", Violations: []review.Violation{}}},
			head + `"verified":true,` + subj + `"signatures":[` + acc + `],` + counts + `,` +
				`"ceiling":{"ok":true,"kit":"k","violations":[]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.r.Document("r/k:1"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("document (-want +got):\n%s", diff)
			}
		})
	}
}

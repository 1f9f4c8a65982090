package sign

import (
	"strings"
	"testing"
)

// TestParseStatementVersions accepts in-toto Statement v1 and v0.1 (what
// cosign v3 `attest` writes) and refuses anything else, naming both.
func TestParseStatementVersions(t *testing.T) {
	tests := []struct {
		name, typ, wantErr string
	}{
		{name: "v1", typ: "https://in-toto.io/Statement/v1"},
		{name: "v0.1, as cosign attest writes it", typ: "https://in-toto.io/Statement/v0.1"},
		{name: "unknown version", typ: "https://in-toto.io/Statement/v0.2", wantErr: `"https://in-toto.io/Statement/v0.2", not an in-toto Statement (https://in-toto.io/Statement/v1 or https://in-toto.io/Statement/v0.1)`},
		{name: "not in-toto", typ: "https://example.org/Statement/v1", wantErr: "not an in-toto Statement"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := parseStatement([]byte(`{"_type": "` + tt.typ + `", "subject": [{"digest": {"sha256": "ab"}}], "predicateType": "https://slsa.dev/provenance/v1", "predicate": {}}`))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("parseStatement: %v", err)
			case tt.wantErr == "" && st.PredicateType != "https://slsa.dev/provenance/v1":
				t.Errorf("predicate type %q", st.PredicateType)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("parseStatement error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

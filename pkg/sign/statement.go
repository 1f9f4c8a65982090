package sign

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// inTotoStatementType is the _type of an in-toto Statement v1, which
// kitsmith writes; inTotoStatementV01 that of v0.1, which cosign v3 still
// writes for `cosign attest` (its subject and predicate fields are the
// same) and which verification accepts as cosign does.
const (
	inTotoStatementType = "https://in-toto.io/Statement/v1"
	inTotoStatementV01  = "https://in-toto.io/Statement/v0.1"
)

// statement is an in-toto Statement (v1 or v0.1) as cosign writes it for
// an image.
type statement struct {
	Type          string          `json:"_type"`
	Subject       []subject       `json:"subject"`
	PredicateType string          `json:"predicateType"`
	Predicate     json.RawMessage `json:"predicate"`
}

// subject is one in-toto resource descriptor: cosign writes a digest and
// no name.
type subject struct {
	Name        string            `json:"name,omitempty"`
	Digest      map[string]string `json:"digest"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// newStatement returns the statement JSON for subject d.
func newStatement(d v1.Descriptor, predicateType string, predicate json.RawMessage) ([]byte, error) {
	if d.Digest.Algorithm != "sha256" {
		return nil, fmt.Errorf("subject digest %q: only sha256 digests can be signed", d.Digest)
	}
	if _, err := hex.DecodeString(d.Digest.Hex); err != nil || len(d.Digest.Hex) != 64 {
		return nil, fmt.Errorf("subject digest %q is not a sha256 digest", d.Digest)
	}
	if predicateType == "" {
		return nil, errors.New("a statement needs a predicate type")
	}
	if len(predicate) == 0 {
		predicate = json.RawMessage("{}")
	}
	if !json.Valid(predicate) {
		return nil, fmt.Errorf("predicate of type %s is not valid JSON", predicateType)
	}
	return json.Marshal(statement{
		Type:          inTotoStatementType,
		Subject:       []subject{{Digest: map[string]string{d.Digest.Algorithm: d.Digest.Hex}}},
		PredicateType: predicateType,
		Predicate:     predicate,
	})
}

// parseStatement decodes a statement; cosign's payload is not compact JSON,
// so statements are parsed, never compared as bytes.
func parseStatement(payload []byte) (*statement, error) {
	var st statement
	if err := json.Unmarshal(payload, &st); err != nil {
		return nil, fmt.Errorf("parsing the in-toto statement: %w", err)
	}
	if st.Type != inTotoStatementType && st.Type != inTotoStatementV01 {
		return nil, fmt.Errorf("its statement type is %q, not an in-toto Statement (%s or %s)", st.Type, inTotoStatementType, inTotoStatementV01)
	}
	return &st, nil
}

// covers reports whether the statement names digest h among its subjects.
func (st *statement) covers(h v1.Hash) bool {
	for _, s := range st.Subject {
		if s.Digest[h.Algorithm] == h.Hex {
			return true
		}
	}
	return false
}

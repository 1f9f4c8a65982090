// Package signer is the one grammar of trusted signers: the entries of
// kitsmith's admission policy (signers:) and of sign's plain signer
// files are the same type, checked by the same rules. It is a leaf, so
// that pkg/review can state signers without linking the verifier.
package signer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"

	"gopkg.in/yaml.v3"
)

// Signer is one trusted signer: an exact identity (certificate SAN) or a
// regular expression it matches, and an exact OIDC issuer or a regular
// expression it matches.
type Signer struct {
	// Identity is the exact certificate SAN.
	Identity string `json:"identity,omitempty" yaml:"identity,omitempty"`
	// IdentityRegexp is a regular expression (RE2) the whole SAN must
	// match.
	IdentityRegexp string `json:"identityRegexp,omitempty" yaml:"identityRegexp,omitempty"`
	// Issuer is the exact OIDC issuer.
	Issuer string `json:"issuer,omitempty" yaml:"issuer,omitempty"`
	// IssuerRegexp is a regular expression (RE2) the whole issuer must
	// match.
	IssuerRegexp string `json:"issuerRegexp,omitempty" yaml:"issuerRegexp,omitempty"`
}

// Check applies the grammar: exactly one of Identity and IdentityRegexp,
// exactly one of Issuer and IssuerRegexp, and every regular expression
// compiling and anchored as a whole (see Anchored).
func (s Signer) Check() error {
	switch {
	case (s.Identity == "") == (s.IdentityRegexp == ""):
		return errors.New("state exactly one of identity and identityRegexp")
	case (s.Issuer == "") == (s.IssuerRegexp == ""):
		return errors.New("state exactly one of issuer and issuerRegexp")
	}
	for _, re := range []struct{ name, v string }{{"identityRegexp", s.IdentityRegexp}, {"issuerRegexp", s.IssuerRegexp}} {
		if re.v == "" {
			continue
		}
		if err := Anchored(re.v); err != nil {
			return fmt.Errorf("%s %w", re.name, err)
		}
	}
	return nil
}

// Anchored refuses a regular expression that does not match whole
// strings: judged on its syntax tree, it must be one concatenation that
// starts with ^ and ends with $. A textual check is not enough: ^a|b$
// starts with ^ and ends with $, yet reads as (^a)|(b$), a prefix match
// or a suffix match.
func Anchored(expr string) error {
	if _, err := regexp.Compile(expr); err != nil {
		return fmt.Errorf("%q: %w", expr, err)
	}
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return fmt.Errorf("%q: %w", expr, err)
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText || re.Sub[len(re.Sub)-1].Op != syntax.OpEndText {
		return fmt.Errorf("%q is not anchored as a whole: write ^(?:…)$ around the whole expression, so that no alternative can match an identity that only starts or ends like it", expr)
	}
	return nil
}

// WholeMatch returns s as a verifier is to match it: exact values as
// written, every regular expression wrapped as ^(?:expr)$, so that it
// matches whole identities and issuers only, whatever the matcher.
func (s Signer) WholeMatch() Signer {
	wrap := func(expr string) string {
		if expr == "" {
			return ""
		}
		return "^(?:" + expr + ")$"
	}
	return Signer{Identity: s.Identity, IdentityRegexp: wrap(s.IdentityRegexp), Issuer: s.Issuer, IssuerRegexp: wrap(s.IssuerRegexp)}
}

// ParseList decodes a signer file: a JSON (or YAML) list of signers.
// Unknown keys, an empty list and an entry failing Check are errors.
func ParseList(data []byte) ([]Signer, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var list []Signer
	if err := dec.Decode(&list); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("parsing the signers: it lists no trusted signer")
		}
		return nil, fmt.Errorf("parsing the signers: %w", err)
	}
	if len(list) == 0 {
		return nil, errors.New("parsing the signers: it lists no trusted signer")
	}
	for i, s := range list {
		if err := s.Check(); err != nil {
			return nil, fmt.Errorf("parsing the signers: signer %d: %w", i+1, err)
		}
	}
	return list, nil
}

package sign

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/kitsmith/kitsmith/pkg/sign/signer"
)

// Policy is who must have signed a kit for Verify to accept it. It is kept
// apart from the trusted material (NewVerifier): the trust says which
// Sigstore instance is believed, the policy which signers are.
//
// A signature is accepted when its certificate matches one of the policy's
// identities: the one given by Identity or IdentityRegexp with Issuer or
// IssuerRegexp, or any of TrustedSigners. Each identity needs a SAN (exact
// or regexp) and an issuer (exact or regexp). The GitHub workflow claims,
// when set, must match as well whichever identity matched. A policy with no
// identity accepts no keyless signature: it is for key-based signatures (a
// Verifier trusting a public key), which need none. A malformed identity
// (a bad regexp, an identity without an issuer) is an error.
type Policy struct {
	// Identity is the exact certificate SAN, e.g. an email address or
	// https://github.com/OWNER/REPO/.github/workflows/FILE@REF.
	Identity string
	// IdentityRegexp is a regular expression (RE2, unanchored) the SAN
	// must match.
	IdentityRegexp string
	// Issuer is the exact OIDC issuer, e.g.
	// https://token.actions.githubusercontent.com.
	Issuer string
	// IssuerRegexp is a regular expression the issuer must match.
	IssuerRegexp string

	// GitHubWorkflowRepository is the repository claim (OWNER/REPO), as
	// cosign's --certificate-github-workflow-repository.
	GitHubWorkflowRepository string
	// GitHubWorkflowRef is the ref claim, e.g. refs/heads/main.
	GitHubWorkflowRef string
	// GitHubWorkflowTrigger is the event claim, e.g. push.
	GitHubWorkflowTrigger string
	// GitHubWorkflowName is the workflow name claim.
	GitHubWorkflowName string
	// GitHubWorkflowSHA is the commit claim.
	GitHubWorkflowSHA string

	// TrustedSigners are more accepted identities, as a team's policy file
	// lists them (ParseTrustedSigners).
	TrustedSigners []TrustedSigner

	// PredicateType, when set, is the only statement predicate type
	// accepted; "" accepts any, as `cosign verify` does. A legacy
	// signature counts as CosignSignPredicateType.
	PredicateType string

	// RequireBundle accepts only Sigstore bundles: legacy cosign
	// signatures (the sha256-<hex>.sig tag) are rejected, saying so.
	RequireBundle bool
}

// TrustedSigner is one accepted signer identity of a policy file: the
// one signer type (signer.Signer) kitsmith's admission policy states too.
type TrustedSigner = signer.Signer

// ParseTrustedSigners decodes a policy file: a JSON (or YAML) list of
// {identity | identityRegexp, issuer | issuerRegexp}, in the one signer
// grammar (signer.ParseList: exactly one of each, regular expressions
// anchored as a whole). Unknown keys and entries the verifier cannot
// match are errors.
func ParseTrustedSigners(data []byte) ([]TrustedSigner, error) {
	list, err := signer.ParseList(data)
	if err != nil {
		return nil, fmt.Errorf("parsing the policy: %w", err)
	}
	for i, s := range list {
		if _, err := identity(s, certificate.Extensions{}); err != nil {
			return nil, fmt.Errorf("parsing the policy: signer %d: %w", i+1, err)
		}
	}
	return list, nil
}

// identity returns s as a sigstore-go identity with the claims ext.
func identity(s TrustedSigner, ext certificate.Extensions) (verify.CertificateIdentity, error) {
	if s.Identity == "" && s.IdentityRegexp == "" {
		return verify.CertificateIdentity{}, errors.New("an identity or identityRegexp is needed")
	}
	if s.Issuer == "" && s.IssuerRegexp == "" {
		return verify.CertificateIdentity{}, errors.New("an issuer or issuerRegexp is needed")
	}
	san, err := verify.NewSANMatcher(s.Identity, s.IdentityRegexp)
	if err != nil {
		return verify.CertificateIdentity{}, fmt.Errorf("identity: %w", err)
	}
	iss, err := verify.NewIssuerMatcher(s.Issuer, s.IssuerRegexp)
	if err != nil {
		return verify.CertificateIdentity{}, fmt.Errorf("issuer: %w", err)
	}
	id, err := verify.NewCertificateIdentity(san, iss, ext)
	if err != nil {
		return verify.CertificateIdentity{}, err
	}
	return id, nil
}

// identities returns every identity the policy accepts; none is an error.
func (p Policy) identities() (verify.CertificateIdentities, error) {
	ext := certificate.Extensions{
		GithubWorkflowTrigger:    p.GitHubWorkflowTrigger,
		GithubWorkflowSHA:        p.GitHubWorkflowSHA,
		GithubWorkflowName:       p.GitHubWorkflowName,
		GithubWorkflowRepository: p.GitHubWorkflowRepository,
		GithubWorkflowRef:        p.GitHubWorkflowRef,
	}
	var ids verify.CertificateIdentities
	direct := TrustedSigner{Identity: p.Identity, IdentityRegexp: p.IdentityRegexp, Issuer: p.Issuer, IssuerRegexp: p.IssuerRegexp}
	if direct != (TrustedSigner{}) {
		id, err := identity(direct, ext)
		if err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		ids = append(ids, id)
	}
	for i, s := range p.TrustedSigners {
		id, err := identity(s, ext)
		if err != nil {
			return nil, fmt.Errorf("policy: trusted signer %d: %w", i+1, err)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, errNoIdentity
	}
	return ids, nil
}

// errNoIdentity is the identities of an empty policy: it accepts key-based
// signatures only.
var errNoIdentity = errors.New("the policy names no signer identity (an identity or its regexp, and an issuer or its regexp, or trusted signers)")

// Unanchored reports whether a SAN or issuer regexp is unanchored, and
// returns its anchored form. Like cosign, a Policy matches regexps
// unanchored (RE2 searches the whole value): "acme/kits" also matches
// https://github.com/evil/acme/kits-fork/..., "dev@example\.com" also
// matches dev@example.com.evil.org. An expression counts as anchored when
// every alternative starts with ^ (or \A) and ends with $ (or \z), or ends
// with / after the ^: a path prefix such as ^https://github.com/acme/kits/
// is meant to match whatever follows. The anchored form adds what is
// missing; an expression that does not parse is left to the policy's own
// check and not reported.
func Unanchored(expr string) (anchored string, unanchored bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return expr, false
	}
	start, end := anchoredStart(re), anchoredEnd(re)
	if start && end {
		return expr, false
	}
	if strings.Contains(expr, "|") {
		return "^(?:" + expr + ")$", true
	}
	anchored = expr
	if !start {
		anchored = "^" + anchored
	}
	if !end {
		anchored += "$"
	}
	return anchored, true
}

func anchoredStart(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText:
		return true
	case syntax.OpConcat:
		return len(re.Sub) > 0 && anchoredStart(re.Sub[0])
	case syntax.OpCapture:
		return anchoredStart(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !anchoredStart(s) {
				return false
			}
		}
		return true
	}
	return false
}

// anchoredEnd reports an expression that ends at the end of the text, or
// with a literal "/" (a path prefix).
func anchoredEnd(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEndText:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] == '/'
	case syntax.OpConcat:
		return len(re.Sub) > 0 && anchoredEnd(re.Sub[len(re.Sub)-1])
	case syntax.OpCapture:
		return anchoredEnd(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !anchoredEnd(s) {
				return false
			}
		}
		return true
	}
	return false
}

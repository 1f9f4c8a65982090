package sign

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoSignature is returned by Verifier.Verify when the kit has no
// Sigstore bundle among its referrers.
var ErrNoSignature = errors.New("no Sigstore signature found")

// ErrNoToken is returned by a TokenSource that has no identity token to
// give.
var ErrNoToken = errors.New("no identity token")

// VerificationError is returned by Verifier.Verify when the kit has
// signatures but none satisfies the policy. Result holds every signature
// with the reason it was rejected.
type VerificationError struct {
	// Result is the verification's full result, one entry per signature.
	Result *Result
	// Err is the last signature's rejection.
	Err error
}

// Error names how many signatures there were and why each was rejected.
func (e *VerificationError) Error() string {
	n := 0
	if e.Result != nil {
		n = len(e.Result.Signatures)
	}
	var reasons []string
	if e.Result != nil {
		for _, s := range e.Result.Signatures {
			reasons = append(reasons, s.Reason)
		}
	}
	return fmt.Sprintf("none of %d signature(s) satisfies the policy: %s", n, strings.Join(reasons, "; "))
}

// Unwrap returns the last signature's rejection.
func (e *VerificationError) Unwrap() error { return e.Err }

// redactedError hides a secret (an identity token) from an error's text
// while keeping the chain for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact returns err with every occurrence of secret, and of each of its
// dot-separated JWT parts, replaced in its text. A nil err stays nil.
func redact(err error, secret string) error {
	if err == nil || secret == "" {
		return err
	}
	msg := err.Error()
	if !strings.Contains(msg, secret) && !containsPart(msg, secret) {
		return err
	}
	msg = strings.ReplaceAll(msg, secret, "[REDACTED]")
	for _, p := range strings.Split(secret, ".") {
		if len(p) >= 8 {
			msg = strings.ReplaceAll(msg, p, "[REDACTED]")
		}
	}
	return &redactedError{msg: msg, err: err}
}

func containsPart(msg, secret string) bool {
	for _, p := range strings.Split(secret, ".") {
		if len(p) >= 8 && strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

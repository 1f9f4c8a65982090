package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"

	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// services returns the local Sigstore stack, the registry, and the stack's
// trusted root and services, or skips (fails with KITSMITH_INTEGRATION=1).
func services(t *testing.T) (stack.Stack, string, *root.TrustedRoot, sign.Services) {
	t.Helper()
	s, ok := stack.Env(t)
	reg := os.Getenv("KITSMITH_TEST_REGISTRY")
	if !ok || reg == "" {
		if os.Getenv("KITSMITH_INTEGRATION") == "1" {
			t.Fatalf("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_REGISTRY=%q", reg)
		}
		t.Skip("no Sigstore stack or registry (scripts/services.sh env)")
	}
	tr, svc := signtest.LoadInstance(t, s.TrustedRoot, s.SigningConfig)
	return s, reg, tr, svc
}

// verifier trusts tr, or, when untrusting, the same root without its
// certificate authorities.
func verifier(t *testing.T, s stack.Stack, tr *root.TrustedRoot, untrusting bool) *sign.Verifier {
	t.Helper()
	trust := tr
	if untrusting {
		b, err := os.ReadFile(s.TrustedRoot)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "certificateAuthorities")
		b, _ = json.Marshal(m)
		if trust, err = sign.LoadTrustedRoot(b); err != nil {
			t.Fatal(err)
		}
	}
	var opts []sign.VerifierOption
	if s.CTLogURL == "" {
		opts = append(opts, sign.WithoutSCTUnsafe())
	}
	v, err := sign.NewVerifier(trust, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRunIntegration publishes with the real signer and registry: a
// verifier trusting the stack's CA passes and the tag appears; one that
// does not trust it fails the verify stage, after signing, and leaves no
// tag.
func TestRunIntegration(t *testing.T) {
	s, reg, tr, svc := services(t)
	signer, err := sign.NewSigner(nil, sign.NewFulcio(svc.Fulcio, sign.StaticToken(s.Token(t, stack.Email, nil)), nil), sign.WithServices(svc))
	if err != nil {
		t.Fatal(err)
	}
	kit := load(t, "testdata/good")
	prefix := fmt.Sprintf("%s/kitsmith-publish-pkg-%d", reg, time.Now().UnixNano())
	for _, tt := range []struct {
		name       string
		untrusting bool
		stage      Stage
	}{
		{"trusted", false, ""},
		{"the CA is not trusted", true, StageVerify},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ref := prefix + "/" + map[bool]string{false: "ok", true: "untrusted"}[tt.untrusting] + ":1.0.0"
			o := Options{Tag: ref, Registry: NewRegistry(), Signer: NewSigner(signer, ""), Verifier: NewVerifier(verifier(t, s, tr, tt.untrusting))}
			res, err, _ := run(t, []*spec.Kit{kit}, o)
			k := res.Kits[0]
			_, headErr := artifact.Head(context.Background(), ref)
			if tt.stage == "" {
				if err != nil || !k.Tagged || headErr != nil || k.Signature.Identity != stack.DefaultEmail || k.Signature.LogIndex < 0 {
					t.Fatalf("err %v, head %v, result %+v; want published by %s with a log index", err, headErr, k, stack.DefaultEmail)
				}
				return
			}
			var se *StageError
			if !errors.As(err, &se) || se.Stage != tt.stage || k.Signature == nil {
				t.Fatalf("err = %v; want a %s failure after signing", err, tt.stage)
			}
			if !errors.Is(headErr, artifact.ErrNotFound) || k.Tagged {
				t.Errorf("tag after a failed %s: %v", tt.stage, headErr)
			}
		})
	}
}

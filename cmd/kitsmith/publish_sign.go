package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/pkg/publish"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// signingFlags choose how publish signs: keyless (the default) with an
// identity token, or with a key, against public-good Sigstore or the
// instance a signing config and trusted root describe.
type signingFlags struct {
	key           string
	identityToken string
	signingConfig string
	trustedRoot   string
	ignoreSCT     bool
}

func (s *signingFlags) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.key, "key", "", "sign with this private key (PEM or cosign.key; password from $KITSMITH_KEY_PASSWORD or $COSIGN_PASSWORD) instead of keyless")
	f.StringVar(&s.identityToken, "identity-token", "", "OIDC identity token for keyless signing (default $SIGSTORE_ID_TOKEN, else GitHub Actions' token)")
	f.StringVar(&s.signingConfig, "signing-config", "", "Sigstore signing_config.json naming Fulcio, the timestamp authority and the log (default: public-good Sigstore's, through TUF)")
	f.StringVar(&s.trustedRoot, "trusted-root", "", "Sigstore trusted_root.json to verify with (default: public-good Sigstore's, through TUF)")
	f.BoolVar(&s.ignoreSCT, "insecure-ignore-sct", false, "accept certificates without a CT log timestamp (a private Sigstore with no CT log)")
	_ = cmd.MarkFlagFilename("key", "pem", "key")
	_ = cmd.MarkFlagFilename("signing-config", "json")
	_ = cmd.MarkFlagFilename("trusted-root", "json")
}

// tokenSource picks the identity token: the flag, SIGSTORE_ID_TOKEN (as
// GitLab's id_tokens set it), then GitHub Actions' token endpoint.
func (s *signingFlags) tokenSource(e env) (sign.TokenSource, error) {
	switch {
	case s.identityToken != "":
		return sign.StaticToken(s.identityToken), nil
	case e["SIGSTORE_ID_TOKEN"] != "":
		return sign.StaticToken(e["SIGSTORE_ID_TOKEN"]), nil
	case e["ACTIONS_ID_TOKEN_REQUEST_URL"] != "" && e["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] != "":
		return sign.GitHubActionsToken(e["ACTIONS_ID_TOKEN_REQUEST_URL"], e["ACTIONS_ID_TOKEN_REQUEST_TOKEN"], nil), nil
	}
	return nil, usageErrorf("keyless signing needs an identity token: --identity-token, SIGSTORE_ID_TOKEN, or GitHub Actions with permissions: id-token: write (or sign with --key, or publish --unsigned)")
}

// trust loads the trusted root and signing config the flags name, and
// public-good Sigstore's for what they leave out.
func (s *signingFlags) trust(ctx context.Context, e env) (*root.TrustedRoot, *root.SigningConfig, error) {
	var tr *root.TrustedRoot
	var sc *root.SigningConfig
	if s.trustedRoot != "" {
		b, err := os.ReadFile(s.trustedRoot)
		if err != nil {
			return nil, nil, usageErrorf("--trusted-root: %v", err)
		}
		if tr, err = sign.LoadTrustedRoot(b); err != nil {
			return nil, nil, usageErrorf("--trusted-root %s: %v", s.trustedRoot, err)
		}
	}
	if s.signingConfig != "" {
		b, err := os.ReadFile(s.signingConfig)
		if err != nil {
			return nil, nil, usageErrorf("--signing-config: %v", err)
		}
		if sc, err = sign.LoadSigningConfig(b); err != nil {
			return nil, nil, usageErrorf("--signing-config %s: %v", s.signingConfig, err)
		}
	}
	if tr != nil && sc != nil {
		return tr, sc, nil
	}
	ptr, psc, err := sign.PublicGood(ctx, filepath.Join(e["HOME"], ".sigstore", "root"))
	if err != nil {
		return nil, nil, usageErrorf("%v (give --trusted-root and --signing-config for a private Sigstore)", err)
	}
	if tr == nil {
		tr = ptr
	}
	if sc == nil {
		sc = psc
	}
	return tr, sc, nil
}

// signer returns the signer and verifier the flags describe.
func (s *signingFlags) signer(ctx context.Context, e env) (publish.Signer, publish.Verifier, error) {
	var tokens sign.TokenSource
	if s.key == "" { // before any network: a missing token is a usage error
		var err error
		if tokens, err = s.tokenSource(e); err != nil {
			return nil, nil, err
		}
	}
	tr, sc, err := s.trust(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	svc, err := sign.ServicesFromSigningConfig(sc, time.Now())
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	var vo []sign.VerifierOption
	if s.ignoreSCT {
		vo = append(vo, sign.WithoutSCTUnsafe())
	}
	if s.key != "" {
		return s.keySigner(e, svc, vo)
	}
	if svc.Fulcio == "" {
		return nil, nil, usageErrorf("the signing config names no certificate authority (Fulcio) for keyless signing")
	}
	signer, err := sign.NewSigner(nil, sign.NewFulcio(svc.Fulcio, tokens, nil), sign.WithServices(svc))
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	v, err := sign.NewVerifier(tr, vo...)
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	return publish.NewSigner(signer, ""), publish.NewVerifier(v), nil
}

// keySigner signs with the --key private key and verifies with its public
// half.
func (s *signingFlags) keySigner(e env, svc sign.Services, vo []sign.VerifierOption) (publish.Signer, publish.Verifier, error) {
	pem, err := os.ReadFile(s.key)
	if err != nil {
		return nil, nil, usageErrorf("--key: %v", err)
	}
	var password []byte
	for _, k := range []string{"KITSMITH_KEY_PASSWORD", "COSIGN_PASSWORD"} {
		if v, ok := e[k]; ok {
			password = []byte(v)
			break
		}
	}
	kp, err := sign.LoadPrivateKey(pem, password)
	if err != nil {
		return nil, nil, usageErrorf("--key %s: %v", s.key, err)
	}
	trust, err := sign.PublicKeyTrust(kp.GetPublicKey())
	if err != nil {
		return nil, nil, usageErrorf("--key %s: %v", s.key, err)
	}
	signer, err := sign.NewSigner(kp, nil, sign.WithServices(sign.Services{TSAs: svc.TSAs, Logs: svc.Logs}))
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	v, err := sign.NewVerifier(trust, vo...)
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	return publish.NewSigner(signer, fmt.Sprintf("key %s", base64.RawStdEncoding.EncodeToString(kp.GetHint()))), publish.NewVerifier(v), nil
}

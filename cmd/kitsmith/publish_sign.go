package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/pkg/publish"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// publishSigningFlags are sign's signing flags (signerFlags) plus what
// publish's read-back verification needs.
type publishSigningFlags struct {
	signerFlags
	ignoreSCT bool
}

// AddFlags registers the signing flags and --insecure-ignore-sct.
func (s *publishSigningFlags) AddFlags(cmd *cobra.Command) {
	s.signerFlags.AddFlags(cmd)
	cmd.Flags().BoolVar(&s.ignoreSCT, "insecure-ignore-sct", false,
		"bypass: accept certificates without an SCT from a CT log when verifying (a private Sigstore with no CT log)")
}

// signer returns the publish Signer and Verifier the flags describe: the
// verifier trusts what signed (the trusted root for keyless signing, the
// key's public half for --key).
func (s *publishSigningFlags) signer(ctx context.Context, e env, errOut io.Writer) (publish.Signer, publish.Verifier, error) {
	if err := s.signerFlags.validate(); err != nil {
		return nil, nil, err
	}
	signer, with, err := s.signerFlags.signer(ctx, e, errOut)
	if err != nil {
		return nil, nil, err
	}
	var vo []sign.VerifierOption
	if s.ignoreSCT {
		vo = append(vo, sign.WithoutSCTUnsafe())
	}
	if !s.tlogUpload {
		vo = append(vo, sign.WithoutTlogUnsafe())
	}
	v, err := sign.NewVerifier(with.trust, vo...)
	if err != nil {
		return nil, nil, asUsage(err, "")
	}
	return publish.NewSigner(signer, with.keyName), publish.NewVerifier(v), nil
}

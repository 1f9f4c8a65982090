package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// sigstoreFlags selects the Sigstore instance sign and verify use:
// public-good Sigstore through TUF by default, or a private or offline one
// from files, with single services overridden.
type sigstoreFlags struct {
	trustedRoot   string
	signingConfig string
	fulcioURL     string
	rekorURL      string
	rekorVersion  uint32
	tsaURL        string
	tufCache      string
}

// AddFlags registers the instance flags; signing adds the service URLs.
func (f *sigstoreFlags) AddFlags(cmd *cobra.Command, signing bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.trustedRoot, "trusted-root", "", "trusted_root.json of a private or offline Sigstore instance (default: public-good Sigstore's, through TUF)")
	fl.StringVar(&f.tufCache, "tuf-cache", "", "directory of the TUF cache of public-good Sigstore's trust (default: $XDG_CACHE_HOME/kitsmith/sigstore-tuf)")
	if !signing {
		return
	}
	fl.StringVar(&f.signingConfig, "signing-config", "", "signing_config.json naming the instance's Fulcio, TSA and Rekor (default: public-good Sigstore's, through TUF)")
	fl.StringVar(&f.fulcioURL, "fulcio-url", "", "Fulcio base URL, overriding the signing config's")
	fl.StringVar(&f.rekorURL, "rekor-url", "", "Rekor base URL, overriding the signing config's logs")
	fl.Uint32Var(&f.rekorVersion, "rekor-version", 2, "major API version of --rekor-url: 2 (rekor-tiles) or 1")
	fl.StringVar(&f.tsaURL, "tsa-url", "", "timestamp authority URL (…/api/v1/timestamp), overriding the signing config's")
	for _, n := range []string{"trusted-root", "signing-config"} {
		_ = cmd.MarkFlagFilename(n, "json")
	}
}

// cacheDir is the default TUF cache directory, from the environment; ""
// when neither XDG_CACHE_HOME nor HOME is set.
func cacheDir(e env) string {
	if d := e["XDG_CACHE_HOME"]; d != "" {
		return filepath.Join(d, "kitsmith", "sigstore-tuf")
	}
	if h := e["HOME"]; h != "" {
		return filepath.Join(h, ".cache", "kitsmith", "sigstore-tuf")
	}
	return ""
}

// instance is the Sigstore instance the flags select: the files they name
// are read here, public-good Sigstore's trust only when the library needs
// it (instanceError turns its errors into usage errors).
func (f *sigstoreFlags) instance(e env, signing bool) (sign.Instance, error) {
	in := sign.Instance{TUFCache: f.tufCache}
	if in.TUFCache == "" {
		in.TUFCache = cacheDir(e)
	}
	var err error
	if f.trustedRoot != "" {
		if in.TrustedRoot, err = sign.ReadTrustedRoot(f.trustedRoot); err != nil {
			return in, asUsage(err, "")
		}
	}
	if !signing {
		return in, nil
	}
	if f.signingConfig != "" {
		if in.SigningConfig, err = sign.ReadSigningConfig(f.signingConfig); err != nil {
			return in, asUsage(err, "")
		}
	}
	in.Override.Fulcio = f.fulcioURL
	if f.tsaURL != "" {
		in.Override.TSAs = []string{f.tsaURL}
	}
	if f.rekorURL != "" {
		if f.rekorVersion != 1 && f.rekorVersion != 2 {
			return in, usageErrorf("--rekor-version must be 1 or 2, not %d", f.rekorVersion)
		}
		in.Override.Logs = []sign.Log{{URL: f.rekorURL, Version: f.rekorVersion}}
	}
	return in, nil
}

// instanceError is a usage error for a failure to resolve the instance,
// with the flags that avoid TUF.
func instanceError(err error) error {
	if errors.Is(err, sign.ErrNoTUFCache) {
		return usageErrorf("no directory for the TUF cache: set --tuf-cache, or HOME")
	}
	if _, ok := errors.AsType[*sign.TUFError](err); ok {
		return asUsage(err, "hint: offline or for a private instance, pass --trusted-root (and, to sign, --signing-config)")
	}
	return asUsage(err, "")
}

// signerFlags is the flag group of commands that sign (sign, and publish):
// the instance, the identity token or the key, and the log.
type signerFlags struct {
	sigstoreFlags

	identityToken     string
	identityTokenFile string
	oidcIssuer        string
	oidcClientID      string
	oidcDevice        bool
	key               string
	tlogUpload        bool
}

type signOptions struct {
	registryFlags
	signerFlags
	progressFlag

	recursive  bool
	bundleFile string
}

func newSignCmd(ro *rootOptions) *cobra.Command {
	o := &signOptions{}
	cmd := &cobra.Command{
		Use:   "sign [flags] REF",
		Short: "Sign a published kit with Sigstore, as cosign v3 signs an image",
		Long: `Sign signs a kit's digest keyless with Sigstore and stores the signature next
to the kit, exactly as 'cosign sign' (v3) does, so that 'cosign verify',
'sbx kit verify' and 'kitsmith verify' all accept it.

What is signed is an in-toto statement whose subject is the kit's digest
(predicate type https://sigstore.dev/cosign/sign/v1), in a DSSE envelope, with
a short-lived Fulcio certificate for the signer's OIDC identity, an RFC 3161
timestamp and a transparency-log entry (Rekor v2). The Sigstore bundle is
pushed as an OCI 1.1 referrer of the kit (artifactType
application/vnd.dev.sigstore.bundle.v0.3+json); on a registry without the
referrers API, the referrers tag schema (sha256-<hex>) is used. For an oci:DIR
layout, the referrer is written into the layout.

The identity token comes from, in this order: --identity-token,
--identity-token-file, SIGSTORE_ID_TOKEN, GitHub Actions
(ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN, audience
sigstore: give the job 'permissions: id-token: write'), or, at a terminal, a
sign-in in the browser (--oidc-device for a code to enter on another
device). The token is never printed.

The instance is public-good Sigstore, its trusted root and signing config
read through TUF (cached in --tuf-cache), unless --trusted-root and
--signing-config name a private one; --fulcio-url, --tsa-url and --rekor-url
replace single services. With --key, the kit is signed with that private key
instead of a certificate (cosign.key, encrypted with COSIGN_PASSWORD, or an
unencrypted PEM key), with only the services given by flags.

Exit status: 0 signed; 2 usage, configuration, I/O or service error.`,
		Example: `  # in a GitHub Actions job with permissions: id-token: write
  kitsmith sign ghcr.io/acme/kits/tool:1.2.0

  # the kit index and each platform manifest, keeping the bundle
  kitsmith sign --recursive --bundle tool.sigstore.json ghcr.io/acme/kits/tool:1.2.0

  # a private Sigstore instance, with a token from a file
  kitsmith sign --trusted-root trusted_root.json --signing-config signing_config.json \
      --identity-token-file /var/run/sigstore/token registry.example.org/kits/tool:1.2.0

  # air-gapped, with a cosign key pair (COSIGN_PASSWORD holds its password)
  kitsmith sign --key cosign.key --tlog-upload=false oci:out/tool`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: refCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context(), ro.env, cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0])
		},
	}
	o.AddFlags(cmd)
	return cmd
}

// AddFlags registers sign's flags.
func (o *signOptions) AddFlags(cmd *cobra.Command) {
	o.registryFlags.AddFlags(cmd)
	o.signerFlags.AddFlags(cmd)
	o.progressFlag.AddFlags(cmd)
	f := cmd.Flags()
	f.BoolVar(&o.recursive, "recursive", false, "also sign each platform manifest of the kit index")
	f.StringVar(&o.bundleFile, "bundle", "", "also write the kit's Sigstore bundle (JSON) to this file")
}

// AddFlags registers the signing flags on cmd.
func (o *signerFlags) AddFlags(cmd *cobra.Command) {
	o.sigstoreFlags.AddFlags(cmd, true)
	f := cmd.Flags()
	f.StringVar(&o.identityToken, "identity-token", "", "OIDC identity token to sign with (prefer --identity-token-file or SIGSTORE_ID_TOKEN: a flag shows in the process list)")
	f.StringVar(&o.identityTokenFile, "identity-token-file", "", "file holding the OIDC identity token, read when signing")
	f.StringVar(&o.oidcIssuer, "oidc-issuer", "", "OIDC issuer of the interactive sign-in (default: the signing config's, else "+sign.PublicGoodOIDCIssuer+")")
	f.StringVar(&o.oidcClientID, "oidc-client-id", sign.PublicGoodClientID, "OIDC client ID of the interactive sign-in")
	f.BoolVar(&o.oidcDevice, "oidc-device", false, "sign in with the device flow (a code to enter on another device) instead of a local browser")
	f.StringVar(&o.key, "key", "", "sign with this PEM private key (cosign.key; COSIGN_PASSWORD decrypts it) instead of keyless")
	f.BoolVar(&o.tlogUpload, "tlog-upload", true, "enter the signature in the transparency log (--tlog-upload=false only with --key or a timestamp authority)")
	_ = cmd.MarkFlagFilename("key")
	_ = cmd.MarkFlagFilename("identity-token-file")
}

func (o *signOptions) validate() error {
	if err := o.progressFlag.validate(); err != nil {
		return err
	}
	if err := checkFileDest("--bundle", o.bundleFile); err != nil {
		return err
	}
	return o.signerFlags.validate()
}

func (o *signerFlags) validate() error {
	if o.key != "" && (o.identityToken != "" || o.identityTokenFile != "") {
		return usageErrorf("--key signs with a key, not an identity: drop --identity-token and --identity-token-file")
	}
	if o.identityToken != "" && o.identityTokenFile != "" {
		return usageErrorf("give --identity-token or --identity-token-file, not both")
	}
	// Files named by flags are checked before any service is contacted.
	for _, f := range []struct{ flag, path string }{{"--identity-token-file", o.identityTokenFile}, {"--key", o.key}} {
		if f.path == "" {
			continue
		}
		if err := checkRegularFile(f.path); err != nil {
			return usageErrorf("%s: %v", f.flag, err)
		}
	}
	return nil
}

func (o *signOptions) run(ctx context.Context, e env, out, errOut io.Writer, ref string) error {
	events := make(chan progress.Event)
	wait, err := o.progressFlag.start(ctx, errOut, events)
	if err != nil {
		return err
	}
	defer wait()
	defer close(events)
	// The kit first: a reference that names nothing is reported before any
	// Sigstore service (or TUF) is contacted.
	kit, st, err := o.head(ctx, ref)
	if err != nil {
		return err
	}
	signer, _, err := o.signer(ctx, e, errOut, sign.WithSignerReporter(progress.NewReporter(events)))
	if err != nil {
		return err
	}
	subjects := []v1.Descriptor{kit}
	if o.recursive {
		children, err := o.platformManifests(ctx, ref)
		if err != nil {
			return err
		}
		subjects = append(subjects, children...)
	}
	for i, d := range subjects {
		b, err := signer.Sign(ctx, d)
		if err != nil {
			return asUsage(err, "")
		}
		rd, err := sign.Attach(ctx, st, d, b)
		if err != nil {
			return asUsage(err, openHint(err))
		}
		if i == 0 && o.bundleFile != "" {
			if err := writeBundle(o.bundleFile, b); err != nil {
				return err
			}
		}
		fmt.Fprintf(out, "signed %s (signature %s)\n", d.Digest, rd.Digest)
	}
	return nil
}

// platformManifests returns the platform manifests of the kit index at
// ref, without attestation manifests.
func (o *signOptions) platformManifests(ctx context.Context, ref string) ([]v1.Descriptor, error) {
	a, err := o.open(ctx, ref)
	if err != nil {
		return nil, err
	}
	idx, ok := a.Index()
	if !ok {
		return nil, usageErrorf("--recursive signs the manifests of an index, and %s is a single manifest", ref)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, asUsage(fmt.Errorf("reading the index of %s: %w", ref, err), "")
	}
	var out []v1.Descriptor
	for _, m := range im.Manifests {
		if artifact.IsAttestation(m) {
			continue
		}
		out = append(out, v1.Descriptor{MediaType: m.MediaType, Size: m.Size, Digest: m.Digest})
	}
	return out, nil
}

// signedWith is what verifies the signatures a signer makes: the trusted
// root a keyless signer was loaded with, or the public half of --key (then
// keyName names it), so that publish verifies without loading either again.
type signedWith struct {
	trust   root.TrustedMaterial
	keyName string
}

// signer builds the Signer the flags and environment select, with opts
// (a progress reporter) added, and what verifies its signatures.
func (o *signerFlags) signer(ctx context.Context, e env, errOut io.Writer, opts ...sign.SignerOption) (*sign.Signer, signedWith, error) {
	if o.key != "" {
		return o.keySigner(e, opts)
	}
	in, err := o.sigstoreFlags.instance(e, true)
	if err != nil {
		return nil, signedWith{}, err
	}
	tr, svc, err := in.Signing(ctx, time.Now())
	if err != nil {
		return nil, signedWith{}, instanceError(err)
	}
	if svc.Fulcio == "" {
		return nil, signedWith{}, usageErrorf("no Fulcio to get a certificate from: give --fulcio-url or a --signing-config that names one")
	}
	if !o.tlogUpload {
		svc.Logs = nil
	}
	tokens, err := o.tokens(e, svc, errOut)
	if err != nil {
		return nil, signedWith{}, err
	}
	opts = append(opts, sign.WithServices(svc), sign.WithSelfVerification(tr))
	s, err := sign.NewSigner(nil, sign.NewFulcio(svc.Fulcio, tokens, nil), opts...)
	if err != nil {
		return nil, signedWith{}, asUsage(err, "")
	}
	return s, signedWith{trust: tr}, nil
}

// keyPair loads --key, decrypted with COSIGN_PASSWORD.
func (o *signerFlags) keyPair(e env) (sign.Keypair, error) {
	pemBytes, err := os.ReadFile(o.key)
	if err != nil {
		return nil, asUsage(fmt.Errorf("reading the key: %w", err), "")
	}
	var password []byte
	if p, ok := e["COSIGN_PASSWORD"]; ok {
		password = []byte(p)
	}
	kp, err := sign.LoadPrivateKey(pemBytes, password)
	if err != nil {
		return nil, asUsage(fmt.Errorf("%s: %w", o.key, err), "hint: an encrypted cosign.key needs its password in COSIGN_PASSWORD")
	}
	return kp, nil
}

// keySigner signs with --key and only the services flags name.
func (o *signerFlags) keySigner(e env, opts []sign.SignerOption) (*sign.Signer, signedWith, error) {
	kp, err := o.keyPair(e)
	if err != nil {
		return nil, signedWith{}, err
	}
	var svc sign.Services
	if o.signingConfig != "" || o.tsaURL != "" || o.rekorURL != "" {
		f := o.sigstoreFlags
		f.fulcioURL, f.trustedRoot = "", ""
		in, err := f.instance(e, true)
		if err != nil {
			return nil, signedWith{}, err
		}
		if svc, err = in.Services(time.Now()); err != nil {
			return nil, signedWith{}, asUsage(err, "")
		}
	}
	if o.tlogUpload && len(svc.Logs) == 0 {
		return nil, signedWith{}, usageErrorf("--key with no transparency log: give --rekor-url or --signing-config, or --tlog-upload=false")
	}
	if !o.tlogUpload {
		svc.Logs = nil
	}
	s, err := sign.NewSigner(kp, nil, append(opts, sign.WithServices(svc))...)
	if err != nil {
		return nil, signedWith{}, asUsage(err, "")
	}
	trust, err := sign.PublicKeyTrust(kp.GetPublicKey())
	if err != nil {
		return nil, signedWith{}, asUsage(err, "")
	}
	return s, signedWith{trust: trust, keyName: "key " + base64.RawStdEncoding.EncodeToString(kp.GetHint())}, nil
}

// tokens chooses the identity token source. The environment is read here
// and only here.
func (o *signerFlags) tokens(e env, svc sign.Services, errOut io.Writer) (sign.TokenSource, error) {
	switch {
	case o.identityToken != "":
		return sign.StaticToken(o.identityToken), nil
	case o.identityTokenFile != "":
		return sign.FileToken(o.identityTokenFile), nil
	case e["SIGSTORE_ID_TOKEN"] != "":
		return sign.StaticToken(e["SIGSTORE_ID_TOKEN"]), nil
	case e["ACTIONS_ID_TOKEN_REQUEST_URL"] != "" && e["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] != "":
		return sign.GitHubActionsToken(e["ACTIONS_ID_TOKEN_REQUEST_URL"], e["ACTIONS_ID_TOKEN_REQUEST_TOKEN"], nil), nil
	}
	if !o.oidcDevice && !term.IsTerminal(int(os.Stdin.Fd())) {
		return nil, &usageError{
			err:  errors.New("no identity token"),
			hint: "hint: pass --identity-token-file or set SIGSTORE_ID_TOKEN; in GitHub Actions give the job 'permissions: id-token: write'; at a terminal kitsmith signs you in",
		}
	}
	issuer := o.oidcIssuer
	if issuer == "" {
		issuer = svc.OIDCIssuer
	}
	if issuer == "" {
		issuer = sign.PublicGoodOIDCIssuer
	}
	return sign.InteractiveToken(issuer, o.oidcClientID, o.oidcDevice, os.Stdin, errOut), nil
}

// writeBundle writes b's JSON to path.
func writeBundle(path string, b *sign.Bundle) error {
	data, err := b.MarshalJSON()
	if err != nil {
		return asUsage(fmt.Errorf("encoding the bundle: %w", err), "")
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return asUsage(fmt.Errorf("writing the bundle: %w", err), "")
	}
	return nil
}

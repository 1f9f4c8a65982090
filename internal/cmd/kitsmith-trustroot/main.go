// The kitsmith_testtools tag keeps this test tool out of `go install ./...`
// (the pre-commit hook's build): scripts/lib/sigstore.sh and scripts/test.sh
// pass it.

//go:build kitsmith_testtools

// Command kitsmith-trustroot makes the keys and trust files of the local
// Sigstore stack that scripts/services.sh starts. It is a test tool, never
// shipped.
//
//	kitsmith-trustroot keygen -alg ed25519|ecdsa-p256 -key PRIV.pem -pub PUB.pem
//	kitsmith-trustroot build -fulcio URL -tsa URL -rekor URL -rekor-key PUB.pem \
//	    [-ctlog URL -ctlog-key PUB.pem] [-oidc URL] -trusted-root FILE -signing-config FILE
//
// build queries the running Fulcio and timestamp authority (package
// internal/testsvc/trustroot) and writes trusted_root.json and
// signing_config.json.
package main

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kitsmith/kitsmith/internal/testsvc/trustroot"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "kitsmith-trustroot:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: kitsmith-trustroot keygen|build [flags]")
	}
	switch args[0] {
	case "keygen":
		return keygen(args[1:])
	case "build":
		return build(args[1:])
	default:
		return fmt.Errorf("unknown command %q: want keygen or build", args[0])
	}
}

func keygen(args []string) error {
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	alg := fs.String("alg", "ed25519", "ed25519 or ecdsa-p256")
	keyPath := fs.String("key", "", "private key output (PEM, mode 0600)")
	pubPath := fs.String("pub", "", "public key output (PKIX PEM)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *keyPath == "" || *pubPath == "" {
		return errors.New("keygen: -key and -pub are required")
	}
	var priv crypto.Signer
	var err error
	switch *alg {
	case "ed25519":
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	case "ecdsa-p256":
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		return fmt.Errorf("keygen: unknown -alg %q", *alg)
	}
	if err != nil {
		return fmt.Errorf("generating %s key: %w", *alg, err)
	}
	// ECDSA keys are SEC 1 ("EC PRIVATE KEY"), which TesseraCT requires;
	// ed25519 keys are PKCS #8, which rekor-tiles reads.
	blockType, privDER := "PRIVATE KEY", []byte(nil)
	if ek, ok := priv.(*ecdsa.PrivateKey); ok {
		blockType = "EC PRIVATE KEY"
		privDER, err = x509.MarshalECPrivateKey(ek)
	} else {
		privDER, err = x509.MarshalPKCS8PrivateKey(priv)
	}
	if err != nil {
		return err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		return err
	}
	if err := os.WriteFile(*keyPath, pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: privDER}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(*pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644)
}

func build(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	var s trustroot.Services
	fs.StringVar(&s.FulcioURL, "fulcio", "", "Fulcio base URL")
	fs.StringVar(&s.TSAURL, "tsa", "", "timestamp URL (.../api/v1/timestamp)")
	fs.StringVar(&s.RekorURL, "rekor", "", "Rekor v2 base URL (its host is the log origin)")
	fs.StringVar(&s.CTLogURL, "ctlog", "", "CT log base URL (optional)")
	fs.StringVar(&s.OIDCURL, "oidc", "", "OIDC issuer URL for the signing config (optional)")
	rekorKey := fs.String("rekor-key", "", "Rekor public key (PEM)")
	ctKey := fs.String("ctlog-key", "", "CT log public key (PEM)")
	trOut := fs.String("trusted-root", "", "trusted_root.json output")
	scOut := fs.String("signing-config", "", "signing_config.json output")
	timeout := fs.Duration("timeout", 20*time.Second, "overall time limit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *trOut == "" || *scOut == "" || *rekorKey == "" {
		return errors.New("build: -rekor-key, -trusted-root and -signing-config are required")
	}
	var err error
	if s.RekorKey, err = readPublicKey(*rekorKey); err != nil {
		return err
	}
	if *ctKey != "" {
		if s.CTLogKey, err = readPublicKey(*ctKey); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	tr, err := trustroot.TrustedRoot(ctx, s)
	if err != nil {
		return err
	}
	sc, err := trustroot.SigningConfig(s)
	if err != nil {
		return err
	}
	trJSON, err := tr.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encoding trusted root: %w", err)
	}
	scJSON, err := sc.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encoding signing config: %w", err)
	}
	if err := writeAtomic(*trOut, trJSON); err != nil {
		return err
	}
	return writeAtomic(*scOut, scJSON)
}

func readPublicKey(path string) (crypto.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("%s: no PEM block", path)
	}
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// writeAtomic writes through a temporary file and a rename, so a reader
// never sees half a file.
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

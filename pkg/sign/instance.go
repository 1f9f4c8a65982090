package sign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
)

// ErrNoTUFCache reports that public-good Sigstore's trust is needed and
// Instance.TUFCache names no directory to keep it in.
var ErrNoTUFCache = errors.New("no directory for the TUF cache")

// TUFError is a failure to read public-good Sigstore's trust through TUF
// (offline, say). Its message is the cause's.
type TUFError struct{ Err error }

// Error returns the cause's message.
func (e *TUFError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *TUFError) Unwrap() error { return e.Err }

// Instance says which Sigstore instance to sign with and verify against:
// a private or offline one from its files, or public-good Sigstore, whose
// trust is read through TUF only when no file gives it, with single
// services overridden. The zero value is public-good Sigstore (and needs
// TUFCache).
type Instance struct {
	// TrustedRoot is the instance's trusted_root.json (ReadTrustedRoot).
	// Nil means public-good Sigstore's, read through TUF.
	TrustedRoot *root.TrustedRoot
	// SigningConfig is the instance's signing_config.json v0.2
	// (ReadSigningConfig), naming its Fulcio, timestamp authorities and
	// logs. Nil means public-good Sigstore's, read through TUF, unless
	// Override names a Fulcio; then the services are Override's alone.
	SigningConfig *root.SigningConfig
	// Override replaces single services of the signing config's: a
	// non-empty Fulcio, TSAs or Logs is used instead of the config's.
	Override Services
	// TUFCache is the directory TUF keeps public-good Sigstore's trust in.
	// It is needed only when that trust is read (ErrNoTUFCache).
	TUFCache string
	// TUF configures the TUF client (WithTUFRepository); nil reads
	// public-good Sigstore's repository.
	TUF []TUFOption
}

// ReadTrustedRoot reads a trusted_root.json file.
func ReadTrustedRoot(path string) (*root.TrustedRoot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the trusted root: %w", err)
	}
	tr, err := LoadTrustedRoot(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tr, nil
}

// ReadSigningConfig reads a signing_config.json (v0.2) file.
func ReadSigningConfig(path string) (*root.SigningConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the signing config: %w", err)
	}
	sc, err := LoadSigningConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// VerificationRoot returns the trusted root to verify against:
// in.TrustedRoot, else public-good Sigstore's, read through TUF (a
// *TUFError when it cannot be).
func (in Instance) VerificationRoot(ctx context.Context) (*root.TrustedRoot, error) {
	if in.TrustedRoot != nil {
		return in.TrustedRoot, nil
	}
	tr, _, err := in.publicGood(ctx)
	return tr, err
}

// Signing returns the trusted root a signer verifies its own signatures
// with and the services it signs with (Services), reading public-good
// Sigstore's trust through TUF once, for whichever of the two the instance
// does not give.
func (in Instance) Signing(ctx context.Context, now time.Time) (*root.TrustedRoot, Services, error) {
	needSC := in.SigningConfig == nil && in.Override.Fulcio == ""
	if in.TrustedRoot == nil || needSC {
		tr, sc, err := in.publicGood(ctx)
		if err != nil {
			return nil, Services{}, err
		}
		if in.TrustedRoot == nil {
			in.TrustedRoot = tr
		}
		if needSC {
			in.SigningConfig = sc
		}
	}
	svc, err := in.Services(now)
	return in.TrustedRoot, svc, err
}

// Services returns the services of in.SigningConfig valid at now
// (ServicesFromSigningConfig; none without a config) with in.Override's
// applied. It reads nothing through TUF.
func (in Instance) Services(now time.Time) (Services, error) {
	var svc Services
	if in.SigningConfig != nil {
		var err error
		if svc, err = ServicesFromSigningConfig(in.SigningConfig, now); err != nil {
			return Services{}, err
		}
	}
	if in.Override.Fulcio != "" {
		svc.Fulcio = in.Override.Fulcio
	}
	if len(in.Override.TSAs) > 0 {
		svc.TSAs = in.Override.TSAs
	}
	if len(in.Override.Logs) > 0 {
		svc.Logs = in.Override.Logs
	}
	return svc, nil
}

func (in Instance) publicGood(ctx context.Context) (*root.TrustedRoot, *root.SigningConfig, error) {
	if in.TUFCache == "" {
		return nil, nil, ErrNoTUFCache
	}
	tr, sc, err := PublicGood(ctx, in.TUFCache, in.TUF...)
	if err != nil {
		return nil, nil, &TUFError{Err: err}
	}
	return tr, sc, nil
}

package signtest

import (
	"os"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"

	"github.com/kitsmith/kitsmith/pkg/sign"
)

// LoadInstance reads a Sigstore instance's trusted_root.json and
// signing_config.json, such as the local stack's, and returns the trusted
// root and the services valid now. It fails the test on any error.
func LoadInstance(t testing.TB, trustedRootFile, signingConfigFile string) (*root.TrustedRoot, sign.Services) {
	t.Helper()
	data, err := os.ReadFile(trustedRootFile)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := sign.LoadTrustedRoot(data)
	if err != nil {
		t.Fatal(err)
	}
	if data, err = os.ReadFile(signingConfigFile); err != nil {
		t.Fatal(err)
	}
	sc, err := sign.LoadSigningConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := sign.ServicesFromSigningConfig(sc, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tr, svc
}

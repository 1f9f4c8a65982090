package main

import (
	"crypto/elliptic"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// keyPair writes an unencrypted signing key and its public key.
func keyPair(t *testing.T) (priv, pub string) {
	t.Helper()
	privPEM, pubPEM, err := cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), cryptoutils.SkipPassword)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	priv, pub = filepath.Join(dir, "cosign.key"), filepath.Join(dir, "cosign.pub")
	if err := os.WriteFile(priv, privPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pub, pubPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return priv, pub
}

// registryCommands returns, for a registry reference, every command that
// reads or writes it.
func registryCommands(t *testing.T, ref string) map[string][]string {
	t.Helper()
	priv, pub := keyPair(t)
	decl := filepath.Join(buildKits, "decl-mixin")
	return map[string][]string{
		"build --push": {"build", "--progress", "quiet", "--tag", ref, "--push", decl},
		"check":        {"check", ref},
		"inspect":      {"inspect", ref},
		"sign":         {"sign", "--progress", "quiet", "--key", priv, "--tlog-upload=false", ref},
		"verify":       {"verify", "--key", pub, "--insecure-ignore-tlog", ref},
		"publish":      {"publish", "--progress", "quiet", "--unsigned", "--tag", ref, decl},
		"diff":         {"diff", ref, ref},
	}
}

// TestRegistryAccessSameEverywhere: every command that reaches a
// registry says the same of one it cannot use: exit 2, the cause, and
// the same hint on the last line.
func TestRegistryAccessSameEverywhere(t *testing.T) {
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"errors":[{"code":"DENIED","message":"requested access to the resource is denied"}]}`, http.StatusForbidden)
	}))
	t.Cleanup(denied.Close)
	for _, reg := range []struct {
		name, host, cause, hint string
	}{
		{"unreachable", closedPort(t), "registry unreachable", "hint: check the registry host and port"},
		{"denied", strings.TrimPrefix(denied.URL, "http://"), "denied", "hint: the registry knows these credentials but refuses them this operation"},
	} {
		for name, args := range registryCommands(t, reg.host+"/kits/tool:1.0.0") {
			t.Run(reg.name+"/"+name, func(t *testing.T) {
				// publish names the cause in its summary, on stdout.
				stdout, stderr, code := runCLI(t, args...)
				lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
				if code != exitUsage || !strings.Contains(stdout+stderr, reg.cause) || !strings.HasPrefix(lines[len(lines)-1], reg.hint) {
					t.Errorf("exit %d, stderr:\n%s\nwant exit 2, %q, and the hint %q on the last line", code, stderr, reg.cause, reg.hint)
				}
			})
		}
	}
}

// TestBuildDestinationRefusedLate: a destination refused only when the
// build writes it is a usage error naming the flag.
func TestBuildDestinationRefusedLate(t *testing.T) {
	ref := closedPort(t) + "/kits/tool@sha256:" + strings.Repeat("0", 64)
	_, stderr, code := runBuild(t, env{}, "--progress", "quiet", "--tag", ref, "--push", filepath.Join(buildKits, "decl-mixin"))
	want := `--tag "` + ref + `" pins digest sha256:` + strings.Repeat("0", 64) + ", but the artifact is sha256:"
	if code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, stderr, want)
	}
}

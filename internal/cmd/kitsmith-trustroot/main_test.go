//go:build kitsmith_testtools

package main

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeygen checks the formats the log servers need: PKCS #8 for
// rekor-tiles' ed25519 key, SEC 1 for TesseraCT's ECDSA key, and a PKIX
// public key that matches.
func TestKeygen(t *testing.T) {
	tests := []struct {
		alg       string
		blockType string
		parse     func([]byte) (any, error)
	}{
		{"ed25519", "PRIVATE KEY", func(b []byte) (any, error) { return x509.ParsePKCS8PrivateKey(b) }},
		{"ecdsa-p256", "EC PRIVATE KEY", func(b []byte) (any, error) { return x509.ParseECPrivateKey(b) }},
	}
	for _, tc := range tests {
		t.Run(tc.alg, func(t *testing.T) {
			dir := t.TempDir()
			key, pub := filepath.Join(dir, "k.pem"), filepath.Join(dir, "k.pub")
			if err := run([]string{"keygen", "-alg", tc.alg, "-key", key, "-pub", pub}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(key)
			if err != nil {
				t.Fatal(err)
			}
			blk, _ := pem.Decode(b)
			if blk == nil || blk.Type != tc.blockType {
				t.Fatalf("private key PEM block = %v, want %q", blk, tc.blockType)
			}
			priv, err := tc.parse(blk.Bytes)
			if err != nil {
				t.Fatalf("parsing private key: %v", err)
			}
			got, err := readPublicKey(pub)
			if err != nil {
				t.Fatal(err)
			}
			var match bool
			switch p := priv.(type) {
			case ed25519.PrivateKey:
				match = p.Public().(ed25519.PublicKey).Equal(got)
			case *ecdsa.PrivateKey:
				match = p.PublicKey.Equal(got)
			}
			if !match {
				t.Error("public key does not match the private key")
			}
			if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("private key mode = %v (%v), want 0600", fi.Mode().Perm(), err)
			}
		})
	}
}

func TestRunRejects(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "usage"},
		{[]string{"sign"}, "unknown command"},
		{[]string{"keygen", "-alg", "rsa", "-key", "a", "-pub", "b"}, "unknown -alg"},
		{[]string{"keygen"}, "-key and -pub are required"},
		{[]string{"build", "-fulcio", "http://127.0.0.1:1"}, "are required"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			err := run(tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run(%q) = %v, want an error mentioning %q", tc.args, err, tc.want)
			}
		})
	}
}

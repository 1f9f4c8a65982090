package sign_test

import (
	"fmt"
	"time"

	"github.com/kitsmith/kitsmith/pkg/sign"
)

// A team's policy file lists the signers it trusts; Verify accepts a kit
// signed by any of them.
func ExampleParseTrustedSigners() {
	signers, err := sign.ParseTrustedSigners([]byte(`[
  {"identity": "https://github.com/acme/kits/.github/workflows/release.yml@refs/heads/main",
   "issuer": "https://token.actions.githubusercontent.com"},
  {"identityRegexp": "^.*@acme\\.example\\.org$", "issuer": "https://accounts.example.org"}
]`))
	if err != nil {
		fmt.Println(err)
		return
	}
	p := sign.Policy{TrustedSigners: signers}
	for _, s := range p.TrustedSigners {
		fmt.Println(s.Identity+s.IdentityRegexp, "from", s.Issuer)
	}
	// Output:
	// https://github.com/acme/kits/.github/workflows/release.yml@refs/heads/main from https://token.actions.githubusercontent.com
	// ^.*@acme\.example\.org$ from https://accounts.example.org
}

// A private instance's signing config names the services a signature is
// made with.
func ExampleServicesFromSigningConfig() {
	sc, err := sign.LoadSigningConfig([]byte(signingConfig))
	if err != nil {
		fmt.Println(err)
		return
	}
	svc, err := sign.ServicesFromSigningConfig(sc, time.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("fulcio:", svc.Fulcio)
	fmt.Println("tsa:", svc.TSAs[0])
	fmt.Printf("log: %s (Rekor v%d)\n", svc.Logs[0].URL, svc.Logs[0].Version)
	// Output:
	// fulcio: http://127.0.0.1:15555
	// tsa: http://127.0.0.1:15556/api/v1/timestamp
	// log: http://127.0.0.1:15557 (Rekor v2)
}

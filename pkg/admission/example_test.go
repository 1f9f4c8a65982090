package admission_test

import (
	"fmt"
	"path/filepath"

	"github.com/kitsmith/kitsmith/pkg/admission"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

// The repository's admission policy: its signer, matched whole, and its
// GitHub workflow claims go into the signature policy; its ceiling is
// judged once a signature is accepted (admission.Verify).
func ExampleReadPolicyFile() {
	f, err := admission.ReadPolicyFile(filepath.Join("..", "..", "kits", "policy.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	var p sign.Policy
	if err := f.Apply(&p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(p.TrustedSigners), "signer, issuer", p.TrustedSigners[0].Issuer)
	fmt.Println("workflow", p.GitHubWorkflowRepository, p.GitHubWorkflowTrigger)
	fmt.Println("ceiling:", f.Ceiling() != nil)
	// Output:
	// 1 signer, issuer https://token.actions.githubusercontent.com
	// workflow kitsmith/kitsmith push
	// ceiling: true
}

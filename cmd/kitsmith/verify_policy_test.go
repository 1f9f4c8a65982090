package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// policyFixture is signFixture plus version 2 of the tool kit, which adds
// the runtime destination upload.example.net, each signed by testSigner in
// a registry (with the referrers API) and in a layout.
type policyFixture struct {
	*signFixture
	reg          string
	v1, v2       string // registry references
	v1Lay, v2Lay string // oci: layouts
	v1Digest     string
}

func newPolicyFixture(t *testing.T) *policyFixture {
	t.Helper()
	f := &policyFixture{signFixture: newSignFixture(t)}
	f.reg = strings.Split(f.refs["referrers"], "/")[0]
	f.v1, f.v1Lay = f.reg+"/kits/tool:1.0.0", f.refs["layout"]
	wide := at.NewKit(t, widenedMixin(), "tool/tool.yaml")
	wide.Content = at.Mixin(t).Content
	idx := wide.Index(t)
	f.v2 = f.reg + "/kits/tool:2.0.0"
	at.Push(t, f.v2, idx)
	lay := filepath.Join(f.dir, "layout-v2")
	at.WriteLayout(t, lay, "2.0.0", idx)
	f.v2Lay = "oci:" + lay
	d, err := at.Mixin(t).Index(t).Digest()
	if err != nil {
		t.Fatal(err)
	}
	f.v1Digest = d.String()
	for _, ref := range []string{f.v1, f.v2, f.v1Lay, f.v2Lay} {
		if _, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(testSigner), ref)...); code != exitOK {
			t.Fatalf("sign %s: exit %d\n%s", ref, code, stderr)
		}
	}
	return f
}

// widenedMixin is the tool kit's source at version 2.0.0 with one more
// runtime destination.
func widenedMixin() map[string]string {
	files := maps.Clone(at.MixinFiles)
	y := files["tool/tool.yaml"]
	y = strings.Replace(y, "allow: [example.com]", "allow: [example.com, upload.example.net]", 1)
	files["tool/tool.yaml"] = strings.Replace(y, `version: "1.2.0"`, `version: "2.0.0"`, 1)
	return files
}

// writePolicy writes an admission policy file into dir.
func writePolicy(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const trustedSigners = `policyVersion: "1"
signers:
  - identity: ` + testSigner + `
    issuer: ` + testIssuer + `
`

// TestVerifyPolicyCLI: verify --policy admits a kit a trusted signer signed
// whose surface stays within the ceiling, and refuses one beyond it, one
// signed by nobody the policy trusts, and one widening a pinned baseline.
func TestVerifyPolicyCLI(t *testing.T) {
	f := newPolicyFixture(t)
	dir := t.TempDir()
	ceiling := "ceiling:\n  network:\n    runtime: [example.com]\n"
	within := writePolicy(t, dir, "within.yaml", trustedSigners+ceiling)
	untrusted := writePolicy(t, dir, "untrusted.yaml", "policyVersion: \"1\"\nsigners:\n  - identity: ops@example.org\n    issuer: "+testIssuer+"\nceiling:\n  network:\n    runtime: [\"**\"]\n")
	signersOnly := writePolicy(t, dir, "signers.yaml", trustedSigners)
	ceilingOnly := writePolicy(t, dir, "ceiling.yaml", "policyVersion: \"1\"\n"+ceiling)
	baseline := writePolicy(t, dir, "baseline.yaml", trustedSigners+"ceiling:\n  network:\n    runtime: [\"**\"]\n  baseline:\n    digest: "+f.v1Digest+"\n")
	missingBaseline := writePolicy(t, dir, "missing.yaml", trustedSigners+"ceiling:\n  network:\n    runtime: [\"**\"]\n  baseline:\n    digest: sha256:"+strings.Repeat("0", 64)+"\n")
	surface, stderr, code := runCLI(t, "inspect", "--format", "json", f.v1Lay)
	if code != exitOK {
		t.Fatalf("inspect: exit %d\n%s", code, stderr)
	}
	writePolicy(t, dir, "tool.surface.json", surface)
	surfaceBaseline := writePolicy(t, dir, "surface.yaml", trustedSigners+"ceiling:\n  network:\n    runtime: [\"**\"]\n  baseline:\n    surface: tool.surface.json\n")
	workflow := writePolicy(t, dir, "workflow.yaml", trustedSigners+"githubWorkflow:\n  repository: example/kits\n"+ceiling)
	tests := []struct {
		name string
		args []string
		code int
		want []string // in stdout+stderr
		not  string   // not in stdout+stderr
	}{
		{"within, registry", f.verifyArgs("--policy", within, f.v1), exitOK,
			[]string{"verified, 1 of 1", "stays within the permission ceiling"}, "beyond"},
		{"within, layout", f.verifyArgs("--policy", within, f.v1Lay), exitOK,
			[]string{"verified, 1 of 1", "stays within the permission ceiling"}, "beyond"},
		{"widened, registry", f.verifyArgs("--policy", within, f.v2), exitFindings,
			[]string{"is beyond the permission ceiling: 1 violation", "network.runtime.allow upload.example.net is beyond the ceiling", "[ceiling.network.runtime]"}, "example.com is beyond"},
		{"widened, layout", f.verifyArgs("--policy", within, f.v2Lay), exitFindings,
			[]string{"network.runtime.allow upload.example.net is beyond the ceiling"}, ""},
		{"untrusted signer, ceiling passes", f.verifyArgs("--policy", untrusted, f.v1), exitFindings,
			[]string{"not verified, none of 1", `expected SAN value "ops@example.org"`}, "permission ceiling"},
		{"signers only: no ceiling judged", f.verifyArgs("--policy", signersOnly, f.v2), exitOK,
			[]string{"verified, 1 of 1"}, "ceiling"},
		{"identity flags with a ceiling-only policy", f.verifyArgs("--policy", ceilingOnly, "--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, f.v2), exitFindings,
			[]string{"upload.example.net is beyond the ceiling"}, ""},
		{"ceiling-only policy names no signer", f.verifyArgs("--policy", ceilingOnly, f.v1), exitUsage,
			[]string{"lists no signers"}, ""},
		{"baseline widened", f.verifyArgs("--policy", baseline, f.v2), exitFindings,
			[]string{"network.runtime.allow upload.example.net widens the pinned baseline [ceiling.baseline]"}, ""},
		{"baseline itself", f.verifyArgs("--policy", baseline, f.v1), exitOK,
			[]string{"stays within the permission ceiling"}, ""},
		{"surface baseline widened, offline on a layout", f.verifyArgs("--policy", surfaceBaseline, f.v2Lay), exitFindings,
			[]string{"network.runtime.allow upload.example.net widens the pinned baseline [ceiling.baseline]"}, ""},
		{"surface baseline itself", f.verifyArgs("--policy", surfaceBaseline, f.v1Lay), exitOK,
			[]string{"stays within the permission ceiling"}, ""},
		{"baseline unreadable", f.verifyArgs("--policy", missingBaseline, f.v2), exitUsage,
			[]string{"reading the baseline"}, ""},
		{"baseline digest on a layout", f.verifyArgs("--policy", baseline, f.v2Lay), exitUsage,
			[]string{"pin a surface file instead"}, ""},
		{"workflow claim the signature lacks", f.verifyArgs("--policy", workflow, f.v1), exitFindings,
			[]string{"not verified"}, "permission ceiling"},
		{"workflow claim contradicting a flag", f.verifyArgs("--policy", workflow, "--certificate-github-workflow-repository", "other/kits", f.v1), exitUsage,
			[]string{"contradicts githubWorkflow.repository"}, ""},
		{"kit-arg not declared", f.verifyArgs("--policy", within, "--kit-arg", "nope=1", f.v1), exitUsage,
			[]string{`kit arg "nope" is not declared`}, ""},
		{"kit-arg malformed", f.verifyArgs("--policy", within, "--kit-arg", "nope", f.v1), exitUsage,
			[]string{`--kit-arg "nope": write name=value`}, ""},
		{"kit-arg without a ceiling", f.verifyArgs("--policy", signersOnly, "--kit-arg", "a=b", f.v1), exitUsage,
			[]string{"--kit-arg only applies to a --policy that states a ceiling"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			all := stdout + stderr
			ok := code == tt.code && (tt.not == "" || !strings.Contains(all, tt.not))
			for _, w := range tt.want {
				ok = ok && strings.Contains(all, w)
			}
			if !ok {
				t.Errorf("exit %d, want %d with %q and without %q\nstdout:\n%s\nstderr:\n%s", code, tt.code, tt.want, tt.not, stdout, stderr)
			}
		})
	}
}

// TestVerifyPolicyGolden pins verify --policy's text and JSON output: one
// JSON document carrying the ceiling's verdict.
func TestVerifyPolicyGolden(t *testing.T) {
	f := newPolicyFixture(t)
	within := writePolicy(t, t.TempDir(), "within.yaml", trustedSigners+"ceiling:\n  network:\n    runtime: [example.com]\n")
	for _, tc := range []struct{ name, ref, format string }{
		{"within.txt", f.v1, "text"}, {"beyond.txt", f.v2, "text"},
		{"within.json", f.v1, "json"}, {"beyond.json", f.v2, "json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, f.verifyArgs("--policy", within, "--format", tc.format, tc.ref)...)
			if code != exitOK && code != exitFindings {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if tc.format == "json" {
				var doc map[string]json.RawMessage
				if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Fatalf("not one JSON document: %v\n%s", err, stdout)
				}
			}
			got := "exit " + string(rune('0'+code)) + "\n" + stableVerifyOutput(stdout, f.reg)
			checkGolden(t, filepath.Join("testdata", "verify", tc.name+".golden"), got)
		})
	}
}

var (
	referrerRE  = regexp.MustCompile(`(accepted |"referrer": ")sha256:[0-9a-f]{64}`)
	timestampRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	localURLRE  = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
)

// stableVerifyOutput replaces what changes from run to run: the
// registry's address, the signature referrers' digests and the times.
func stableVerifyOutput(s, reg string) string {
	s = strings.ReplaceAll(s, reg, "REGISTRY")
	s = referrerRE.ReplaceAllString(s, "${1}sha256:REFERRER")
	s = timestampRE.ReplaceAllString(s, "TIME")
	s = strings.ReplaceAll(s, testIssuer, "ISSUER")
	return localURLRE.ReplaceAllString(s, "http://127.0.0.1:PORT")
}

// TestVerifyTextEscapes: a signer identity from a certificate cannot drive
// the terminal verify prints on.
func TestVerifyTextEscapes(t *testing.T) {
	f := newSignFixture(t)
	ref := f.refs["layout"]
	evil := "dev\x1b]0;pwned\x07@example.org"
	if _, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(evil), ref)...); code != exitOK {
		t.Fatalf("sign: exit %d\n%s", code, stderr)
	}
	stdout, _, code := runCLI(t, f.verifyArgs("--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, ref)...)
	if code != exitFindings || strings.ContainsAny(stdout, "\x1b\x07") || !strings.Contains(stdout, `dev\x1b]0;pwned\x07@example.org`) {
		t.Errorf("exit %d, output %q; want the identity escaped", code, stdout)
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

const reviewTestdata = "../../pkg/review/testdata/diff"

func TestDiffCmd(t *testing.T) {
	v1, v2 := filepath.Join(reviewTestdata, "v1"), filepath.Join(reviewTestdata, "v2")
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []cmdCase{
		{name: "text", args: []string{v1, v2}, stdout: "6 widenings, 0 narrowings, 2 other changes"},
		{name: "fail on widening", args: []string{"--fail-on", "widening", v1, v2}, code: exitFindings, stdout: "+ network.runtime.allow: telemetry.example.net"},
		{name: "no widening", args: []string{"--fail-on", "widening", v2, v1}, stdout: "0 widenings, 6 narrowings"},
		{name: "markdown", args: []string{"--format", "markdown", v1, v2}, stdout: "This update **widens** the permission surface"},
		{name: "json", args: []string{"--format", "json", v1, v2}, stdout: `"formatVersion": 1`},
		{name: "bad format", args: []string{"--format", "sarif", v1, v2}, code: exitUsage, stderr: "--format must be text, json or markdown"},
		{name: "bad fail-on", args: []string{"--fail-on", "narrowing", v1, v2}, code: exitUsage, stderr: "--fail-on must be widening or none"},
		{name: "invalid source", args: []string{v1, bad}, code: exitFindings, stderr: "cannot be published (1 error):"},
		{name: "missing layout", args: []string{v1, "oci:" + filepath.Join(t.TempDir(), "none")}, code: exitUsage, stderr: "kitsmith:"},
		{name: "one argument", args: []string{v1}, code: exitUsage},
	}
	runCmdCases(t, "diff", tests)
}

func TestResolveCmd(t *testing.T) {
	inside, outside := filepath.Join("..", "..", "kits", "inside"), filepath.Join("..", "..", "kits", "outside")
	tests := []cmdCase{
		{name: "mixins need a workload", args: []string{inside, outside}, code: exitFindings, stdout: "[SPEC-v3 §5.3/one-workload]"},
		{name: "the kits of a set", args: []string{"--set", inside, outside}, stdout: "The composition resolves."},
		{name: "json", args: []string{"--set", "--format", "json", inside}, stdout: `"ok": true`},
		{name: "unknown group", args: []string{"--set", "--select-groups", "cache", inside}, code: exitUsage, stderr: "no optional group of that name"},
		{name: "all and names", args: []string{"--select-groups", "all,cache", inside}, code: exitUsage, stderr: "do not name groups besides"},
		{name: "bad kit arg", args: []string{"--kit-arg", "apiHost", inside}, code: exitUsage, stderr: "write name=value"},
		{name: "a kit arg one kit declares", args: []string{"--set", "--kit-arg", "apiHost=api.example.net", inside, outside}, stdout: "network.runtime.allow: api.example.net"},
		{name: "a kit arg no kit declares", args: []string{"--set", "--kit-arg", "apihost=api.example.net", inside, outside}, code: exitUsage, stderr: `no kit declares the arg "apihost"`},
	}
	runCmdCases(t, "resolve", tests)
}

// cmdCase is one run of a command: its arguments, exit status and what
// stdout and stderr contain.
type cmdCase struct {
	name   string
	args   []string
	code   int
	stdout string
	stderr string
}

func runCmdCases(t *testing.T, cmd string, tests []cmdCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{cmd}, tc.args...)...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
		})
	}
}

// The repository's kits: their source and their built form differ in
// nothing, and the built form stays within kits/policy.yaml.
func TestRepoKitsReview(t *testing.T) {
	p, err := loadPolicy(filepath.Join("..", "..", "kits", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadPolicy(filepath.Join(t.TempDir(), "none.yaml")); err == nil {
		t.Error("a missing policy file was accepted")
	}
	for _, kit := range []string{"inside", "outside"} {
		t.Run(kit, func(t *testing.T) {
			dir := filepath.Join("..", "..", "kits", kit)
			layout := t.TempDir()
			if out, errOut, code := runBuild(t, env{"SOURCE_DATE_EPOCH": "0"}, "--progress", "quiet", "--output", "oci:"+layout, dir); code != exitOK {
				t.Fatalf("build exit %d:\n%s%s", code, out, errOut)
			}
			out, errOut, code := runCLI(t, "diff", "--fail-on", "widening", "--format", "json", dir, "oci:"+layout)
			if code != exitOK {
				t.Fatalf("diff exit %d:\n%s%s", code, out, errOut)
			}
			var d struct {
				Widenings, Narrowings, Changes []json.RawMessage
			}
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatal(err)
			}
			if len(d.Widenings)+len(d.Narrowings)+len(d.Changes) != 0 {
				t.Errorf("source and built form differ:\n%s", out)
			}
			a, err := artifact.Open(context.Background(), "oci:"+layout)
			if err != nil {
				t.Fatal(err)
			}
			r, err := review.CheckArtifact(context.Background(), a, p)
			if err != nil {
				t.Fatal(err)
			}
			if !r.OK() {
				t.Errorf("beyond kits/policy.yaml: %v", r.Violations)
			}
		})
	}
}

const e2eKit = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
displayName: Review end-to-end
version: "%s"
provides: [com.example/review-e2e]
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime:
        allow: [%s]
`

// TestReviewEndToEnd publishes version 1 of a kit (kitsmith publish,
// signed with an in-process Sigstore), adds an allow entry and publishes
// version 2: diff reports exactly that widening, and verify --policy with a
// ceiling excluding the new host refuses version 2, naming it, and admits
// version 1. The registry is KITSMITH_TEST_REGISTRY under KITSMITH_INTEGRATION=1,
// an in-process one on 127.0.0.1 otherwise.
func TestReviewEndToEnd(t *testing.T) {
	reg := os.Getenv("KITSMITH_TEST_REGISTRY")
	if os.Getenv("KITSMITH_INTEGRATION") != "1" {
		reg = artifacttest.Registry(t, true)
	} else if reg == "" {
		t.Fatal("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_REGISTRY is not set (scripts/services.sh env)")
	}
	repo := fmt.Sprintf("%s/kitsmith-review-%d/e2e", reg, time.Now().UnixNano())
	sf := newSignFixture(t) // an in-process Sigstore: publish signs, verify checks
	dir := filepath.Join(t.TempDir(), "e2e")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	publish := func(version, hosts string) string {
		t.Helper()
		src := strings.Replace(strings.Replace(e2eKit, "%s", version, 1), "%s", hosts, 1)
		if err := os.WriteFile(filepath.Join(dir, "e2e.yaml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		ref := repo + ":" + version
		args := []string{"--trusted-root", sf.trustedRoot, "--fulcio-url", sf.ss.FulcioURL, "--tsa-url", sf.ss.TSAURL, "--tlog-upload=false",
			"--insecure-ignore-sct", "--identity-token", signtest.Token(testSigner), "-t", ref, dir}
		out, errOut, code := runPublish(t, env{"SOURCE_DATE_EPOCH": "0", "HOME": t.TempDir()}, args...)
		if code != exitOK {
			t.Fatalf("publish %s: exit %d\n%s%s", ref, code, out, errOut)
		}
		return ref
	}
	v1 := publish("1.0.0", "api.example.org")
	v2 := publish("2.0.0", "api.example.org, upload.example.net")

	out, errOut, code := runCLI(t, "diff", "--format", "json", "--fail-on", "widening", v1, v2)
	if code != exitFindings {
		t.Fatalf("diff exit %d:\n%s%s", code, out, errOut)
	}
	var d struct {
		Widenings  []review.Change `json:"widenings"`
		Narrowings []review.Change `json:"narrowings"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	want := []review.Change{{Kind: review.KindWidening, Category: "network.runtime.allow", Detail: "upload.example.net"}}
	if diff := cmp.Diff(want, d.Widenings); diff != "" || len(d.Narrowings) != 0 {
		t.Errorf("widenings (-want +got):\n%s\nnarrowings: %v", diff, d.Narrowings)
	}

	policyFile := writePolicy(t, t.TempDir(), "policy.yaml", trustedSigners+"ceiling:\n  network:\n    runtime: [\"*.example.org\"]\n")
	p, err := review.LoadPolicy(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ref  string
		want []string
	}{
		{v1, nil},
		{v2, []string{"network.runtime.allow upload.example.net is beyond the ceiling: no pattern of ceiling.network.runtime matches it"}},
	} {
		a, err := artifact.Open(context.Background(), tc.ref)
		if err != nil {
			t.Fatal(err)
		}
		r, err := review.CheckArtifact(context.Background(), a, p)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range r.Violations {
			got = append(got, v.Message)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: violations (-want +got):\n%s", tc.ref, diff)
		}
		// as verify --policy reports it
		wantCode, wantOut := exitOK, "stays within the permission ceiling"
		if tc.want != nil {
			wantCode, wantOut = exitFindings, tc.want[0]
		}
		out, errOut, code := runCLI(t, sf.verifyArgs("--policy", policyFile, tc.ref)...)
		if code != wantCode || !strings.Contains(out, "verified, 2 of 2") || !strings.Contains(out, wantOut) { // the signature and the provenance
			t.Errorf("verify --policy %s: exit %d, want %d saying %q\n%s%s", tc.ref, code, wantCode, wantOut, out, errOut)
		}
	}
}

const setMember = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
version: "1.0.0"
provides: [%s]
`

// validate --resolve judges a set with the kits it lists.
func TestValidateResolveSet(t *testing.T) {
	reg := artifacttest.Registry(t, true)
	root := t.TempDir()
	for name, provides := range map[string]string{"a": "com.example/a", "b": "com.example/a", "c": "com.example/c"} {
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		src := strings.Replace(setMember, "%s", provides, 1)
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, errOut, code := runBuild(t, env{"SOURCE_DATE_EPOCH": "0"}, "--progress", "quiet", "--tag", reg+"/set/"+name+":1.0.0", "--push", dir); code != exitOK {
			t.Fatalf("build %s: exit %d\n%s%s", name, code, out, errOut)
		}
	}
	set := func(name string, refs ...string) string {
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		src := "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: set\nversion: \"1.0.0\"\nkits:\n"
		for _, r := range refs {
			src += "  - ref: " + r + "\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	tests := []struct {
		name, dir string
		code      int
		want      string
	}{
		{"resolves", set("good", reg+"/set/a:1.0.0", reg+"/set/c:1.0.0"), exitOK, "valid"},
		{"two providers", set("bad", reg+"/set/a:1.0.0", reg+"/set/b:1.0.0"), exitFindings, "SPEC-v3 §5.3/one-provider-per-name"},
		{"unreadable", set("gone", "127.0.0.1:1/set/none:1.0.0"), exitOK, "the set was not resolved"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "validate", "--resolve", tc.dir)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d (want %d)\n%s%s", code, tc.code, out, errOut)
			}
		})
	}
	// a set source diffs as the kit publishing it makes
	good, layout := filepath.Join(root, "good"), "oci:"+filepath.Join(root, "good-layout")
	if out, errOut, code := runBuild(t, env{"SOURCE_DATE_EPOCH": "0"}, "--progress", "quiet", "--output", layout, good); code != exitOK {
		t.Fatalf("build the set: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := runCLI(t, "diff", good, layout)
	if code != exitOK || !strings.Contains(out, "0 widenings, 0 narrowings, 0 other changes") {
		t.Errorf("diff set source and build: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := runCLI(t, "diff", good, filepath.Join(root, "bad")); code != exitFindings || !strings.Contains(errOut, "both provide com.example/a") {
		t.Errorf("diff against a set that does not resolve: exit %d\n%s%s", code, out, errOut)
	}
	if out, _, code := runCLI(t, "validate", filepath.Join(root, "bad")); code != exitOK {
		t.Errorf("without --resolve: exit %d\n%s", code, out)
	}
	if out, _, code := runCLI(t, "schema", "policy"); code != exitOK || !strings.Contains(out, "kitsmith admission policy") {
		t.Errorf("kitsmith schema policy: exit %d\n%s", code, out)
	}
}

// verify --policy reads kitsmith's admission policy or sign's plain list.
func TestApplyPolicyFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var sp sign.Policy
	p, err := applyPolicyFile(filepath.Join("..", "..", "kits", "policy.yaml"), &sp)
	if err != nil || p == nil || p.Ceiling == nil {
		t.Fatalf("kits/policy.yaml: %v, %v", p, err)
	}
	want := sign.Policy{GitHubWorkflowRepository: "kitsmith/kitsmith", GitHubWorkflowTrigger: "push", TrustedSigners: []sign.TrustedSigner{{
		IdentityRegexp: "^(?:" + p.Signers[0].IdentityRegexp + ")$", Issuer: "https://token.actions.githubusercontent.com"}}}
	if diff := cmp.Diff(want, sp); diff != "" {
		t.Errorf("sign policy (-want +got):\n%s", diff)
	}

	sp = sign.Policy{}
	list := write("signers.yaml", "- {identity: a@example.org, issuer: https://issuer.example.org}\n")
	if p, err := applyPolicyFile(list, &sp); err != nil || p != nil || len(sp.TrustedSigners) != 1 {
		t.Errorf("a plain list: %v, %v, %v", p, err, sp)
	}

	sp = sign.Policy{GitHubWorkflowRepository: "other/repo"}
	if _, err := applyPolicyFile(filepath.Join("..", "..", "kits", "policy.yaml"), &sp); err == nil || !strings.Contains(err.Error(), "contradicts") {
		t.Errorf("contradicting claims: err = %v", err)
	}
	bad := write("bad.yaml", "policyVersion: \"1\"\nceiling: {volumes: [data]}\n")
	if _, err := applyPolicyFile(bad, &sign.Policy{}); err == nil {
		t.Error("an invalid policy was accepted")
	}
	if _, err := applyPolicyFile(filepath.Join(dir, "none.yaml"), &sign.Policy{}); err == nil {
		t.Error("a missing file was accepted")
	}
}

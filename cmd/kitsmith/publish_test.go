package main

import (
	"bytes"
	"context"
	"crypto/elliptic"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/publish"
)

// runPublish runs `kitsmith publish` in-process with the environment e.
func runPublish(t *testing.T, e env, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"publish", "--progress", "quiet"}, args...), e, &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestPublishUnsigned publishes both repository kits unsigned to an
// in-process registry with a tag template and the GitHub Actions outputs,
// then again to show the no-op.
func TestPublishUnsigned(t *testing.T) {
	reg := artifacttest.Registry(t, true)
	dir := t.TempDir()
	e := env{
		"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"), "GITHUB_OUTPUT": filepath.Join(dir, "output"),
		"SOURCE_DATE_EPOCH": "0",
	}
	tmpl := reg + "/kits/{stem}:{version}"
	meta := filepath.Join(dir, "publish.json")
	stdout, stderr, code := runPublish(t, e, "--unsigned", "--tag-template", tmpl, "--metadata-file", meta, "../../kits/outside", "../../kits/inside")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, stem := range []string{"reshapr-outside", "reshapr-inside"} {
		if !strings.Contains(stdout, "published "+reg+"/kits/"+stem+":") || !strings.Contains(stdout, "UNSIGNED") {
			t.Errorf("summary does not say %s was published unsigned:\n%s", stem, stdout)
		}
	}
	var m publish.Metadata
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.FormatVersion != 1 || len(m.Kits) != 2 {
		t.Fatalf("metadata: %s", b)
	}
	for _, k := range m.Kits {
		d, err := artifact.Head(context.Background(), k.Reference)
		if err != nil || d.Digest.String() != k.Digest || k.Signed || !k.Tagged {
			t.Errorf("%s: registry has %v (%v); metadata %+v", k.Reference, d.Digest, err, k)
		}
	}
	out, err := os.ReadFile(e["GITHUB_OUTPUT"])
	if err != nil || !strings.Contains(string(out), "digest<<KITSMITH_EOF\n"+m.Kits[0].Digest+"\n"+m.Kits[1].Digest+"\n") {
		t.Errorf("GITHUB_OUTPUT: %v\n%s", err, out)
	}
	if sum, err := os.ReadFile(e["GITHUB_STEP_SUMMARY"]); err != nil || !strings.Contains(string(sum), "| `../../kits/outside/reshapr-outside.yaml` | published |") {
		t.Errorf("GITHUB_STEP_SUMMARY: %v\n%s", err, sum)
	}

	stdout, stderr, code = runPublish(t, e, "--unsigned", "--tag-template", tmpl, "../../kits/outside")
	if code != 0 || !strings.Contains(stdout, "unchanged "+m.Kits[0].Reference+": already points at "+m.Kits[0].Digest) {
		t.Errorf("republish: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestPublishFailures shows the exit status and message of failures the
// command line can provoke.
func TestPublishFailures(t *testing.T) {
	reg := artifacttest.Registry(t, true)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		stdout string
	}{
		{"invalid kit", []string{"--unsigned", "-t", reg + "/k/invalid:1", "../../pkg/publish/testdata/invalid"}, 1,
			"1 of 1 kit not published, no tag written for it: ../../pkg/publish/testdata/invalid/invalid.yaml at validate", `invalid version "v1.2"`},
		{"lint error", []string{"--unsigned", "-t", reg + "/k/lint:1", "../../pkg/publish/testdata/lint-error"}, 1,
			"lint-error.yaml at lint", "[literal-secret]"},
		{"a clean kit passes at --fail-level info", []string{"--unsigned", "--fail-level", "info", "-t", reg + "/k/good:1", "../../pkg/publish/testdata/good"}, 0,
			"", "published " + reg + "/k/good:1 UNSIGNED"},
		{"one tag for two kits", []string{"--unsigned", "-t", reg + "/k/x:1", "../../kits/outside", "../../kits/inside"}, 2, "use a tag template", ""},
		{"bad --fail-level", []string{"--unsigned", "--fail-level", "fatal", "-t", reg + "/k/x:1", "../../kits/outside"}, 2, "--fail-level", ""},
		{"an unreadable key", []string{"--key", "/nonexistent/cosign.key", "-t", reg + "/k/x:1", "../../kits/outside"}, 2, "--key: stat /nonexistent/cosign.key", ""},
		{"--unsigned with --recursive", []string{"--unsigned", "--recursive", "-t", reg + "/k/x:1", "../../kits/outside"}, 2, "unsigned contradicts", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runPublish(t, env{}, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) || !strings.Contains(stdout, tt.stdout) {
				t.Errorf("exit %d (want %d)\nstdout (want %q):\n%s\nstderr (want %q):\n%s", code, tt.code, tt.stdout, stdout, tt.stderr, stderr)
			}
		})
	}
}

// TestPublishExistingTag: a tag pointing elsewhere is refused, then moved
// with --force.
func TestPublishExistingTag(t *testing.T) {
	reg := artifacttest.Registry(t, true)
	ref := reg + "/kits/good:1.0.0"
	e := env{"SOURCE_DATE_EPOCH": "0"}
	if _, stderr, code := runPublish(t, e, "--unsigned", "-t", ref, "../../kits/outside"); code != 0 {
		t.Fatalf("first publish: exit %d\n%s", code, stderr)
	}
	before, err := artifact.Head(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runPublish(t, e, "--unsigned", "-t", ref, "../../pkg/publish/testdata/good")
	if code != 1 || !strings.Contains(stdout, "at tag") || !strings.Contains(stderr, "hint: --force moves an existing tag") {
		t.Errorf("refusal: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if d, _ := artifact.Head(context.Background(), ref); d.Digest != before.Digest {
		t.Errorf("the refused publish moved the tag to %s", d.Digest)
	}
	stdout, stderr, code = runPublish(t, e, "--unsigned", "--force", "-t", ref, "../../pkg/publish/testdata/good")
	if code != 0 || !strings.Contains(stdout, "moved from   "+before.Digest.String()) {
		t.Errorf("--force: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if d, _ := artifact.Head(context.Background(), ref); d.Digest == before.Digest {
		t.Errorf("--force left the tag at %s", d.Digest)
	}
}

// TestPublishPolicy: publish --policy judges each built kit against the
// policy's ceiling before anything is pushed. Both repository kits stay
// within kits/policy.yaml; a kit beyond a ceiling fails at the policy
// stage, naming the grant, its declaration and the rule, with no tag.
func TestPublishPolicy(t *testing.T) {
	reg := artifacttest.Registry(t, true)
	dir := t.TempDir()
	narrow := writePolicy(t, dir, "narrow.yaml", "policyVersion: \"1\"\nceiling:\n  network:\n    runtime: [\"*.example.org\"]\n")
	signersOnly := writePolicy(t, dir, "signers.yaml", trustedSigners)
	e := env{"SOURCE_DATE_EPOCH": "0"}

	stdout, stderr, code := runPublish(t, e, "--unsigned", "--policy", "../../kits/policy.yaml", "--tag-template", reg+"/kits/{stem}:{version}", "../../kits/outside", "../../kits/inside")
	if code != exitOK || strings.Count(stdout, "published "+reg) != 2 {
		t.Errorf("the repository kits under kits/policy.yaml: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	ref := reg + "/kits/wide:1.0.0"
	stdout, stderr, code = runPublish(t, e, "--unsigned", "--policy", narrow, "-t", ref, "../../pkg/publish/testdata/wide")
	for _, want := range []string{
		"wide.yaml at policy: no tag written",
		"../../pkg/publish/testdata/wide/wide.yaml:15:", "network.runtime.allow telemetry.example.net is beyond the ceiling", "[ceiling.network.runtime]",
	} {
		if !strings.Contains(stdout+stderr, want) {
			t.Errorf("a kit beyond the ceiling: output does not say %q", want)
		}
	}
	if code != exitFindings || strings.Contains(stdout, "pushed by digest") || strings.Contains(stdout+stderr, "api.example.org is beyond") {
		t.Errorf("a kit beyond the ceiling: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if _, err := artifact.Head(context.Background(), ref); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("tag %s after the policy refused the kit: %v; want none", ref, err)
	}

	for _, tc := range []struct{ name, policy, want string }{
		{"no ceiling", signersOnly, "states no ceiling"},
		{"missing file", filepath.Join(dir, "none.yaml"), "reading the policy"},
	} {
		if _, stderr, code := runPublish(t, e, "--unsigned", "--policy", tc.policy, "-t", ref, "../../pkg/publish/testdata/wide"); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want 2 saying %q\n%s", tc.name, code, tc.want, stderr)
		}
	}
}

// TestPublishLayout is issue 21: publish --tag oci:DIR[:TAG] publishes
// into an OCI layout through the same stages (push by digest, sign,
// verify read back, tag last), where it used to read "oci" as a registry
// host. The layout then checks and verifies like a registry kit.
func TestPublishLayout(t *testing.T) {
	dir := t.TempDir()
	e := env{"SOURCE_DATE_EPOCH": "0"}
	unsigned := "oci:" + filepath.Join(dir, "out", "unsigned") + ":1.0.0"
	stdout, stderr, code := runPublish(t, e, "--unsigned", "-t", unsigned, "../../kits/outside")
	if code != exitOK || !strings.Contains(stdout, "published "+unsigned+" UNSIGNED") {
		t.Fatalf("publish --unsigned to a layout: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if stdout, stderr, code := runCLI(t, "check", unsigned); code != exitOK {
		t.Errorf("check %s: exit %d\n%s%s", unsigned, code, stdout, stderr)
	}
	stdout, stderr, code = runPublish(t, e, "--unsigned", "-t", unsigned, "../../kits/outside")
	if code != exitOK || !strings.Contains(stdout, "unchanged "+unsigned) {
		t.Errorf("republish to the layout: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	priv, pub, err := cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), cryptoutils.StaticPasswordFunc([]byte("s3cret")))
	if err != nil {
		t.Fatal(err)
	}
	keyFile, pubFile := filepath.Join(dir, "cosign.key"), filepath.Join(dir, "cosign.pub")
	if err := os.WriteFile(keyFile, priv, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pubFile, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	signed := "oci:" + filepath.Join(dir, "signed") + ":1.0.0"
	stdout, stderr, code = runPublish(t, env{"SOURCE_DATE_EPOCH": "0", "COSIGN_PASSWORD": "s3cret"}, "--key", keyFile, "--tlog-upload=false", "-t", signed, "../../kits/outside")
	if code != exitOK || !strings.Contains(stdout, "published "+signed) {
		t.Fatalf("signed publish to a layout: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, "verify", "--key", pubFile, "--insecure-ignore-tlog", signed)
	if code != exitOK || !strings.Contains(stdout, "accepted sha256:") {
		t.Errorf("verify the layout publish wrote: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestPublishRefusesReferences: a --tag that cannot be published to is a
// usage error naming the flag, before anything is built or signed.
func TestPublishRefusesReferences(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ tag, want string }{
		{"oci-archive:" + filepath.Join(dir, "kit.tar"), "is an archive, which is read-only"},
		{"docker://127.0.0.1:1/kits/gh:1", `starts with "docker:"`},
		{"dir:" + dir, `starts with "dir:"`},
	} {
		stdout, stderr, code := runPublish(t, env{"SOURCE_DATE_EPOCH": "0"}, "--unsigned", "-t", tt.tag, "../../kits/outside")
		if code != exitUsage || !strings.Contains(stderr, "--tag: ") || !strings.Contains(stderr, tt.want) || stdout != "" {
			t.Errorf("--tag %s: exit %d, want 2 saying --tag ... %q\nstdout:\n%s\nstderr:\n%s", tt.tag, code, tt.want, stdout, stderr)
		}
	}
}

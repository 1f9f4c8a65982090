package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Issue #16, end to end: what the authority gates let through, each with
// a benign look-alike that still passes.

// toolKit is the tool mixin with its tool.yaml edited by fn.
func toolKit(t *testing.T, fn func(string) string) *at.Kit {
	t.Helper()
	files := maps.Clone(at.MixinFiles)
	files["tool/tool.yaml"] = fn(files["tool/tool.yaml"])
	k := at.NewKit(t, files, "tool/tool.yaml")
	k.Content = at.Mixin(t).Content
	return k
}

// signedLayout writes idx as an OCI layout under the fixture's directory
// and signs it as the trusted signer.
func signedLayout(t *testing.T, f *signFixture, name string, idx v1.ImageIndex) string {
	t.Helper()
	dir := filepath.Join(f.dir, name)
	at.WriteLayout(t, dir, "1.0.0", idx)
	ref := "oci:" + dir
	if _, stderr, code := runCLI(t, f.signArgs("--identity-token", signtest.Token(testSigner), ref)...); code != exitOK {
		t.Fatalf("sign %s: exit %d\n%s", ref, code, stderr)
	}
	return ref
}

// perPlatform is an index without descriptor annotations whose amd64
// manifest carries amd64's descriptor and arm64's carries arm64's.
func perPlatform(t *testing.T, amd64, arm64 *at.Kit) v1.ImageIndex {
	t.Helper()
	return at.Index(t, nil, []string{"linux/amd64", "linux/arm64"}, amd64.Images(t)[0], arm64.Images(t)[1])
}

const evilPolicy = "  - type: com.docker.sandbox/privileged@1\n    description: x\n"

// widenArm64 grants ** egress and privileged@1.
func widenArm64(y string) string {
	y = strings.Replace(y, "allow: [example.com]", `allow: ["**"]`, 1)
	return strings.Replace(y, "capabilities:\n", "capabilities:\n"+evilPolicy, 1)
}

// rawDescriptor replaces the descriptor annotation with raw text
// everywhere.
func rawDescriptor(t *testing.T, k *at.Kit, edit func(map[string]any)) *at.Kit {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(k.Annotations[artifact.AnnotationDescriptor]), &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return k.SetAnnotation(artifact.AnnotationDescriptor, string(b))
}

func capsOf(doc map[string]any) []any { return doc["capabilities"].([]any) }

func TestAuthorityVerifyPolicy(t *testing.T) {
	f := newSignFixture(t)
	dir := t.TempDir()
	policy := writePolicy(t, dir, "policy.yaml", trustedSigners+"ceiling:\n  network:\n    runtime: [example.com]\n  hostMounts: [/home/agent/**]\n  services: [com.docker.sandbox/git-identity@1]\n")
	benign := toolKit(t, func(y string) string { return y })
	noIndex := func(k *at.Kit) *at.Kit { k.IndexAnnotations = nil; return k }
	mount := func(def string) func(string) string {
		return func(y string) string {
			y = strings.Replace(y, "capabilities:\n", "args:\n  sub: {env: SUB, default: \""+def+"\"}\ncapabilities:\n  - type: com.docker.sandbox/host-mount@1\n    config: {path: \"/home/agent/${{ kit.args.sub }}\"}\n", 1)
			return y
		}
	}
	tests := []struct {
		name  string
		idx   v1.ImageIndex
		extra []string
		code  int
		want  []string
	}{
		// item 3: every platform is judged, not the first
		{"arm64 widens, no index annotations", perPlatform(t, noIndex(toolKit(t, func(y string) string { return y })), noIndex(toolKit(t, widenArm64))), nil, exitFindings,
			[]string{"network.runtime.allow * is beyond the ceiling", "(on linux/arm64)", "privileged"}},
		{"arm64 widens, judged alone", perPlatform(t, noIndex(toolKit(t, func(y string) string { return y })), noIndex(toolKit(t, widenArm64))), []string{"--platform", "linux/arm64"}, exitFindings,
			[]string{"privileged requests privileged execution is beyond the ceiling", "2 violations"}},
		{"arm64 widens, amd64 judged alone (look-alike)", perPlatform(t, noIndex(toolKit(t, func(y string) string { return y })), noIndex(toolKit(t, widenArm64))), []string{"--platform", "linux/amd64"}, exitOK,
			[]string{"stays within the permission ceiling"}},
		{"platforms agree, no index annotations (look-alike)", perPlatform(t, noIndex(toolKit(t, func(y string) string { return y })), noIndex(toolKit(t, func(y string) string { return y }))), nil, exitOK,
			[]string{"stays within the permission ceiling"}},
		{"a platform manifest disagrees with the index", at.Index(t, benign.IndexAnnotations, []string{"linux/amd64", "linux/arm64"}, benign.Images(t)[0], toolKit(t, widenArm64).Images(t)[1]), nil, exitFindings,
			[]string{"refused", "linux/arm64: the platform manifest's descriptor differs from the index's"}},
		// item 4: a path from an arg default
		{"a host-mount path escaping through its default", toolKit(t, mount("../../etc")).Index(t), nil, exitFindings,
			[]string{"refused", "effective mode"}},
		{"a host-mount path within through its default (look-alike)", toolKit(t, mount("cache")).Index(t), nil, exitOK,
			[]string{"stays within the permission ceiling"}},
		// item 7: published descriptors are validated first
		{"a case-variant key", rawDescriptor(t, toolKit(t, func(y string) string { return y }), func(d map[string]any) {
			d["capabilities"] = append(capsOf(d), map[string]any{"type": spec.TypeHostMount, "config": map[string]any{"path": "/home/agent/x", "PATH": "/etc"}})
		}).Index(t), nil, exitFindings, []string{"refused", "PATH"}},
		{"a literal .. path", rawDescriptor(t, toolKit(t, func(y string) string { return y }), func(d map[string]any) {
			d["capabilities"] = append(capsOf(d), map[string]any{"type": spec.TypeHostMount, "config": map[string]any{"path": "/home/agent/../../etc"}})
		}).Index(t), nil, exitFindings, []string{"refused"}},
		{"an invalid type name", rawDescriptor(t, toolKit(t, func(y string) string { return y }), func(d map[string]any) {
			d["capabilities"] = append(capsOf(d), map[string]any{"type": "com.docker.sandbox/git-identity@1+evil/x@1"})
		}).Index(t), nil, exitFindings, []string{"refused"}},
		{"an unknown top-level key", rawDescriptor(t, toolKit(t, func(y string) string { return y }), func(d map[string]any) { d["permissions"] = map[string]any{"all": true} }).Index(t), nil, exitFindings,
			[]string{"refused", "permissions"}},
		{"a git-identity the ceiling allows (look-alike)", rawDescriptor(t, toolKit(t, func(y string) string { return y }), func(d map[string]any) {
			d["capabilities"] = append(capsOf(d), map[string]any{"type": spec.TypeGitIdentity})
		}).Index(t), nil, exitOK, []string{"stays within the permission ceiling"}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref := signedLayout(t, f, "case"+string(rune('a'+i)), tc.idx)
			args := f.verifyArgs(append(append([]string{"--policy", policy}, tc.extra...), ref)...)
			stdout, stderr, code := runCLI(t, args...)
			ok := code == tc.code
			for _, w := range tc.want {
				ok = ok && strings.Contains(stdout+stderr, w)
			}
			if !ok {
				t.Errorf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tc.code, tc.want, stdout, stderr)
			}
		})
	}
}

// writeToolKit writes a kit source into a new directory.
func writeToolKit(t *testing.T, body string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tool")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\nversion: \"1.0.0\"\n" + body
	if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAuthorityDiff(t *testing.T) {
	argHosts := func(def, more string) string {
		return writeToolKit(t, "args:\n  host: {env: API_HOST, default: \""+def+"\"}\n  other: {env: OTHER, default: x}\ncapabilities:\n  - type: com.docker.sandbox/network-policy@1\n    config:\n      runtime:\n        allow: [\"${{ kit.args.host }}\""+more+"]\n")
	}
	argHost := func(def string) string { return argHosts(def, "") }
	f := newSignFixture(t)
	amd64, arm64 := toolKit(t, func(y string) string { return y }), toolKit(t, widenArm64)
	amd64.IndexAnnotations, arm64.IndexAnnotations = nil, nil
	benign := f.refs["layout"]
	split := signedLayout(t, f, "split", perPlatform(t, amd64, arm64))
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		// item 1: arg defaults are what a sandbox created without --kit-arg gets
		{"an arg default widens", []string{"--fail-on", "widening", argHost("api.example.org:443"), argHost("evil.com")}, exitFindings,
			[]string{"+ network.runtime.allow: evil.com"}},
		{"an unrelated --kit-arg changes nothing", []string{"--fail-on", "widening", "--kit-arg", "other=y", argHost("api.example.org:443"), argHost("evil.com")}, exitFindings,
			[]string{"+ network.runtime.allow: evil.com"}},
		{"a --kit-arg overrides the default (look-alike)", []string{"--fail-on", "widening", "--kit-arg", "host=api.example.org:443", argHost("api.example.org:443"), argHost("evil.com")}, exitOK,
			[]string{"0 widenings"}},
		{"a narrowing (look-alike)", []string{"--fail-on", "widening", argHosts("a.example.org", ", b.example.org"), argHost("a.example.org")}, exitOK,
			[]string{"0 widenings, 1 narrowing"}},
		// item 3: every platform, each named
		{"arm64 widens", []string{"--fail-on", "widening", benign, split}, exitFindings,
			[]string{"+ network.runtime.allow: *  [linux/arm64]", "+ privileged: requests privileged execution  [linux/arm64]", "Judged on linux/amd64, linux/arm64"}},
		{"amd64 alone (look-alike)", []string{"--fail-on", "widening", "--platform", "linux/amd64", benign, split}, exitOK,
			[]string{"0 widenings"}},
	}
	// A kit whose platforms disagree, where one kit is asked for: refused,
	// with the flag that judges one platform.
	if _, stderr, code := runCLI(t, "resolve", split); code != exitFindings ||
		!strings.Contains(stderr, "its platforms carry different descriptors") || !strings.Contains(stderr, "hint: --platform judges one platform") {
		t.Errorf("resolve of a split kit: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "resolve", "--platform", "linux/amd64", split); strings.Contains(stderr, "different descriptors") {
		t.Errorf("resolve --platform of a split kit: exit %d\n%s", code, stderr)
	}
	runCmdCases(t, "diff", func() []cmdCase {
		var out []cmdCase
		for _, tc := range tests {
			out = append(out, cmdCase{name: tc.name, args: tc.args, code: tc.code, stdout: tc.want[0]})
		}
		return out
	}())
	for _, tc := range tests {
		stdout, _, _ := runCLI(t, append([]string{"diff"}, tc.args...)...)
		for _, w := range tc.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", tc.name, w, stdout)
			}
		}
	}
}

// publish --policy judges the effective form: an arg default beyond the
// ceiling fails the policy stage (#16 item 1), one within passes.
func TestAuthorityPublishPolicy(t *testing.T) {
	reg := at.Registry(t, true)
	dir := t.TempDir()
	policy := writePolicy(t, dir, "p.yaml", "policyVersion: \"1\"\nceiling:\n  network:\n    runtime: [\"*.example.org\"]\n")
	kit := func(def string) string {
		d := filepath.Join(t.TempDir(), "wide")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		src := "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\nversion: \"1.0.0\"\nprovides: [\"org.example/wide\"]\n" +
			"args:\n  host: {env: API_HOST, default: \"" + def + "\"}\n" +
			"capabilities:\n  - type: com.docker.sandbox/network-policy@1\n    config:\n      runtime:\n        allow: [\"${{ kit.args.host }}\"]\n"
		if err := os.WriteFile(filepath.Join(d, "wide.yaml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	e := env{"SOURCE_DATE_EPOCH": "0"}
	stdout, stderr, code := runPublish(t, e, "--unsigned", "--policy", policy, "-t", reg+"/kits/wide:1.0.0", kit("evil.com"))
	if code != exitFindings || !strings.Contains(stdout+stderr, "network.runtime.allow evil.com is beyond the ceiling") {
		t.Errorf("a default beyond the ceiling: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = runPublish(t, e, "--unsigned", "--policy", policy, "-t", reg+"/kits/wide:1.0.1", kit("api.example.org"))
	if code != exitOK {
		t.Errorf("a default within (look-alike): exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

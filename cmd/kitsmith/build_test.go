package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// buildKits is the kit corpus of pkg/build, relative to this package.
const buildKits = "../../pkg/build/testdata/kits"

// runBuild runs `kitsmith build` in-process with the environment e.
func runBuild(t *testing.T, e env, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"build"}, args...), e, &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestBuildDeclarationOnly(t *testing.T) {
	dir := t.TempDir()
	layout := filepath.Join(dir, "layout")
	meta := filepath.Join(dir, "meta.json")
	stdout, stderr, code := runBuild(t, env{"SOURCE_DATE_EPOCH": "1700000000"},
		"--progress", "quiet", "--output", "oci:"+layout, "--metadata-file", meta, filepath.Join(buildKits, "decl-mixin"))
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	checkGolden(t, "testdata/build/decl-mixin.stdout", strings.ReplaceAll(stdout, dir, "DIR"))
	if stderr != "" {
		t.Errorf("stderr with --progress quiet: %q", stderr)
	}
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Index struct{ Digest string } `json:"index"`
	}
	if err := json.Unmarshal(b, &m); err != nil || !strings.Contains(stdout, m.Index.Digest) {
		t.Errorf("metadata file %s does not name the built index (%v)", b, err)
	}
	if _, err := os.Stat(filepath.Join(layout, "index.json")); err != nil {
		t.Errorf("no layout written: %v", err)
	}
}

func TestBuildProgress(t *testing.T) {
	_, stderr, code := runBuild(t, env{}, "--progress", "plain", filepath.Join(buildKits, "decl-mixin"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"[kitsmith] stage the descriptor of decl-mixin", "[kitsmith] check the kit image against SPEC-v3", "DONE"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("plain progress lacks %q:\n%s", want, stderr)
		}
	}
	_, stderr, code = runBuild(t, env{}, "--progress", "rawjson", filepath.Join(buildKits, "decl-mixin"))
	if code != 0 || !strings.Contains(stderr, `"name":"[kitsmith] assemble decl-mixin in-process (declaration-only)"`) {
		t.Errorf("rawjson progress (exit %d):\n%s", code, stderr)
	}
}

func TestBuildErrors(t *testing.T) {
	decl := filepath.Join(buildKits, "decl-mixin")
	recipe := filepath.Join(buildKits, "companion-workload")
	tests := []struct {
		name string
		env  env
		args []string
		code int
		want string
	}{
		{name: "push without tag", args: []string{"--push", decl}, code: 2, want: "--push needs a --tag"},
		{name: "tag without push", args: []string{"--tag", "r.example/k:1", decl}, code: 2, want: "add --push"},
		{name: "bad progress", args: []string{"--progress", "fancy", decl}, code: 2, want: `--progress must be auto, plain, tty, quiet or rawjson, not "fancy"`},
		{name: "sbom", args: []string{"--attest", "sbom", decl}, code: 2, want: "provenance only"},
		{name: "bad output", args: []string{"--output", "docker:x", decl}, code: 2, want: "unknown type"},
		{name: "bad build arg", args: []string{"--build-arg", "version", decl}, code: 2, want: "write name=value"},
		{name: "bad tag", args: []string{"--push", "--tag", "UPPER/x:1", decl}, code: 2, want: "--tag"},
		{name: "bad epoch", env: env{"SOURCE_DATE_EPOCH": "yesterday"}, args: []string{decl}, code: 2, want: "SOURCE_DATE_EPOCH"},
		{name: "lone tls cert", args: []string{"--tlscert", "c.pem", decl}, code: 2, want: "--tlscert and --tlskey go together"},
		{name: "missing kit", args: []string{filepath.Join(buildKits, "nope")}, code: 2, want: "no such file"},
		{name: "no arguments", args: nil, code: 2, want: "accepts 1 arg"},
		{name: "undeclared build arg", args: []string{"--build-arg", "nope=1", decl}, code: 2, want: `--build-arg nope: ../../pkg/build/testdata/kits/decl-mixin/decl-mixin.yaml declares no arg "nope"`},
		{name: "unpinned mixin base", args: []string{"--build-arg", "base=debian:12", filepath.Join(buildKits, "pinned-mixin")}, code: 1, want: "pin it: FROM docker.io/library/debian@sha256:<digest>"},
		{name: "no builder", args: []string{"--builder", "unix:///nonexistent/buildkitd.sock", recipe}, code: 2, want: "no BuildKit daemon reachable at unix:///nonexistent/buildkitd.sock"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.env
			if e == nil {
				e = env{}
			}
			_, stderr, code := runBuild(t, e, append([]string{"--progress", "quiet"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant it to mention %q", code, tc.code, stderr, tc.want)
			}
		})
	}
}

func TestBuildInvalidKitDiagnostics(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "broken")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\nversion: \"1.0\"\nprovides: [Not A Name]\n"
	if err := os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runBuild(t, env{}, "--progress", "quiet", dir)
	if code != 1 || !strings.Contains(stderr, "broken.yaml:5:") || !strings.Contains(stderr, "cannot be published") {
		t.Errorf("exit %d; stderr:\n%s", code, stderr)
	}
}

func TestBuildHelp(t *testing.T) {
	stdout, _, code := runBuild(t, env{}, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"Examples:", "--builder", "--platform", "--attest", "--metadata-file", "--insecure-registry", "--no-cache"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

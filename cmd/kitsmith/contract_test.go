package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/internal/version"
	"github.com/kitsmith/kitsmith/pkg/admission"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/lint/format"
	"github.com/kitsmith/kitsmith/pkg/migrate"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// TestJSONFormatVersion runs every command that prints or writes JSON and
// checks that each document carries the one version key, formatVersion
// (the schemaVersion key of lint and the metadata file is kept one release
// with the same value).
func TestJSONFormatVersion(t *testing.T) {
	kits := newTestKits(t)
	meta := filepath.Join(t.TempDir(), "meta.json")
	v2 := copyKit(t, "top-level")
	sf := newSignFixture(t)
	if _, stderr, code := runCLI(t, sf.signArgs("--identity-token", signtest.Token(testSigner), sf.refs["layout"])...); code != exitOK {
		t.Fatalf("sign: exit %d\n%s", code, stderr)
	}
	policy := writePolicy(t, t.TempDir(), "policy.yaml", trustedSigners+"ceiling:\n  network:\n    runtime: [example.com]\n")
	tests := []struct {
		name string
		args []string
		file string // the document is written here instead of stdout
		want int
		old  bool // also carries the deprecated schemaVersion
	}{
		{name: "validate", args: []string{"validate", "--format", "json", specTestdata + "/valid/groups"}, want: spec.FormatVersion},
		{name: "lint", args: []string{"lint", "--format", "json", specTestdata + "/valid/groups"}, want: format.FormatVersion, old: true},
		{name: "inspect", args: []string{"inspect", "--format", "json", "oci:" + kits.dir + "/tool"}, want: artifact.FormatVersion},
		{name: "check", args: []string{"check", "--format", "json", "oci:" + kits.dir + "/tool"}, want: conform.FormatVersion},
		{name: "version", args: []string{"version", "--format", "json"}, want: version.FormatVersion},
		{name: "migrate", args: []string{"migrate", "--format", "json", v2}, want: migrate.FormatVersion},
		{name: "verify", args: sf.verifyArgs("--format", "json", "--certificate-identity", testSigner, "--certificate-oidc-issuer", testIssuer, sf.refs["layout"]), want: admission.FormatVersion},
		{name: "verify --policy", args: sf.verifyArgs("--format", "json", "--policy", policy, sf.refs["layout"]), want: admission.FormatVersion},
		{name: "build metadata", args: []string{"build", "--progress", "quiet", "--metadata-file", meta, buildKits + "/decl-mixin"}, file: meta, want: build.FormatVersion, old: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			doc := []byte(stdout)
			if tc.file != "" {
				var err error
				if doc, err = os.ReadFile(tc.file); err != nil {
					t.Fatal(err)
				}
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(doc, &m); err != nil {
				t.Fatalf("not a JSON object: %v\n%s", err, doc)
			}
			var v int
			if err := json.Unmarshal(m["formatVersion"], &v); err != nil || v != tc.want {
				t.Errorf("formatVersion = %s, want %d", m["formatVersion"], tc.want)
			}
			old, hasOld := m["schemaVersion"]
			if hasOld != tc.old || hasOld && string(old) != string(m["formatVersion"]) {
				t.Errorf("schemaVersion = %s (present %v), want present %v with formatVersion's value", old, hasOld, tc.old)
			}
		})
	}
}

// TestSpecRuleIDsAgree checks that validate and lint name a specification
// error with the same rule id (spec/<code>) for every kit of the corpus.
func TestSpecRuleIDsAgree(t *testing.T) {
	t.Chdir(specTestdata)
	cases, err := os.ReadDir("invalid")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		dir := filepath.ToSlash(filepath.Join("invalid", c.Name()))
		t.Run(dir, func(t *testing.T) {
			stdout, _, _ := runCLI(t, "validate", "--format", "json", dir)
			var v spec.ReportDocument
			if err := json.Unmarshal([]byte(stdout), &v); err != nil {
				t.Fatalf("validate JSON: %v", err)
			}
			var fromValidate []string
			for _, k := range v.Kits {
				for _, e := range append(k.Errors, k.Warnings...) {
					fromValidate = append(fromValidate, e.Rule)
				}
			}
			lintOut, lintErr, lintCode := runCLI(t, "lint", "--format", "json", "--disable", "all", dir)
			if len(v.Kits) == 0 { // the kit cannot be loaded: both refuse it
				if lintCode != exitUsage {
					t.Errorf("validate cannot load %s, lint exits %d: %s", dir, lintCode, lintErr)
				}
				return
			}
			stdout = lintOut
			var l struct {
				Findings []struct{ Rule string } `json:"findings"`
			}
			if err := json.Unmarshal([]byte(stdout), &l); err != nil {
				t.Fatalf("lint JSON: %v\n%s", err, stdout)
			}
			var fromLint []string
			for _, f := range l.Findings {
				fromLint = append(fromLint, f.Rule)
			}
			slices.Sort(fromValidate)
			slices.Sort(fromLint)
			if len(fromValidate) == 0 {
				t.Fatal("validate reports nothing for an invalid kit")
			}
			if diff := cmp.Diff(fromValidate, fromLint); diff != "" {
				t.Errorf("rule ids (-validate +lint):\n%s", diff)
			}
		})
	}
}

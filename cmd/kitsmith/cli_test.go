package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kitsmith/kitsmith/internal/golden"
	"github.com/kitsmith/kitsmith/pkg/spec"
	"github.com/kitsmith/kitsmith/schemas"
)

// specTestdata is the kit corpus of pkg/spec, relative to this package.
const specTestdata = "../../pkg/spec/testdata"

// runCLI runs the kitsmith command tree in-process.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, env{}, &out, &errOut)
	return out.String(), errOut.String(), code
}

// checkGolden compares got with the golden file, or rewrites it under
// KITSMITH_UPDATE_GOLDEN=1.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

// TestValidateGolden runs `kitsmith validate` on every kit of the corpus,
// from the corpus directory so paths are relative and stable, and pins the
// text output (with stderr and the exit status) in want.txt and the JSON
// output in want.json.
func TestValidateGolden(t *testing.T) {
	t.Chdir(specTestdata)
	for _, class := range []string{"valid", "invalid"} {
		cases, err := os.ReadDir(class)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			dir := filepath.ToSlash(filepath.Join(class, c.Name()))
			t.Run(dir, func(t *testing.T) {
				stdout, stderr, code := runCLI(t, "validate", dir)
				text := stdout
				if stderr != "" {
					text += "--- stderr\n" + stderr
				}
				text += "--- exit " + strconv.Itoa(code) + "\n"
				checkGolden(t, filepath.Join(dir, "want.txt"), text)
				if class == "valid" && code != exitOK || class == "invalid" && code == exitOK {
					t.Errorf("exit %d for a kit under %s/", code, class)
				}

				stdout, _, jsonCode := runCLI(t, "validate", "--format", "json", dir)
				if jsonCode != code {
					t.Errorf("--format json exits %d, text exits %d", jsonCode, code)
				}
				var doc spec.ReportDocument
				if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Fatalf("--format json output is not JSON: %v\n%s", err, stdout)
				}
				checkGolden(t, filepath.Join(dir, "want.json"), stdout)
			})
		}
	}
}

// Modes, several paths and the exit codes of validate.
func TestValidateCLI(t *testing.T) {
	t.Chdir(specTestdata)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		stdout   []string // fragments stdout must contain
		stderr   []string // fragments stderr must contain
	}{
		{name: "several kits, one invalid",
			args:     []string{"validate", "valid/groups", "invalid/duplicates"},
			wantCode: exitFindings, stdout: []string{"2 kits checked: 1 valid, 1 invalid (6 errors, 0 warnings)"}},
		{name: "published mode",
			args:     []string{"validate", "--mode", "published", "valid/explicit-dockerfile"},
			wantCode: exitFindings, stdout: []string{`valid/explicit-dockerfile/explicit-dockerfile.yaml:11:12: error: published provides entry "gh@${{ kit.args.version }}" still holds an arg reference`}},
		{name: "effective mode with a kit arg",
			args:     []string{"validate", "--mode", "effective", "--kit-arg", "model=huge", "valid/companion-workload"},
			wantCode: exitFindings, stdout: []string{`error: kit arg "model": value "huge" is not one of "", "small", "large"; supply one of them`}},
		{name: "effective mode, default values",
			args:     []string{"validate", "--mode", "effective", "valid/companion-workload", "valid/set"},
			wantCode: exitOK, stdout: []string{"2 kits checked: 2 valid, 0 invalid"}},
		{name: "a descriptor file as given",
			args:     []string{"validate", "valid/located/kit.yml"},
			wantCode: exitOK, stdout: []string{"1 kit checked: 1 valid"}},
		{name: "missing path is an I/O error",
			args:     []string{"validate", "valid/groups", "no/such/kit"},
			wantCode: exitUsage, stdout: []string{"1 kit checked: 1 valid"}, stderr: []string{"kitsmith: loading kit: stat no/such/kit: no such file or directory"}},
		{name: "unknown mode",
			args:     []string{"validate", "--mode", "strict", "valid/groups"},
			wantCode: exitUsage, stderr: []string{`unknown validation mode "strict": use authored, published or effective`}},
		{name: "unknown format",
			args:     []string{"validate", "--format", "sarif", "valid/groups"},
			wantCode: exitUsage, stderr: []string{`--format must be text or json, not "sarif"`}},
		{name: "kit args need effective mode",
			args:     []string{"validate", "--kit-arg", "a=b", "valid/groups"},
			wantCode: exitUsage, stderr: []string{"--kit-arg only applies to --mode effective"}},
		{name: "malformed kit arg",
			args:     []string{"validate", "--mode", "effective", "--kit-arg", "novalue", "valid/groups"},
			wantCode: exitUsage, stderr: []string{`--kit-arg "novalue": write name=value`}},
		{name: "no path",
			args:     []string{"validate"},
			wantCode: exitUsage, stderr: []string{"requires at least 1 arg"}},
		{name: "unknown flag",
			args:     []string{"validate", "--strict", "valid/groups"},
			wantCode: exitUsage, stderr: []string{"unknown flag: --strict"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, stdout, stderr)
			}
			for _, f := range tc.stdout {
				if !strings.Contains(stdout, f) {
					t.Errorf("stdout lacks %q:\n%s", f, stdout)
				}
			}
			for _, f := range tc.stderr {
				if !strings.Contains(stderr, f) {
					t.Errorf("stderr lacks %q:\n%s", f, stderr)
				}
			}
		})
	}
}

// kitsmith schema prints and writes the embedded schema.
func TestSchemaCLI(t *testing.T) {
	root, err := os.ReadFile(filepath.Join("../../schemas", schemas.Root))
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, code := runCLI(t, "schema")
	if code != exitOK || stdout != string(root) {
		t.Errorf("kitsmith schema: exit %d, output differs from %s", code, schemas.Root)
	}
	stdout, _, code = runCLI(t, "schema", "credential@1")
	if code != exitOK || !strings.Contains(stdout, `"$id": "`+schemas.BaseURL+"capabilities/com.docker.sandbox/credential@1.schema.json") {
		t.Errorf("kitsmith schema credential@1: exit %d\n%s", code, stdout)
	}
	stdout, _, code = runCLI(t, "schema", "config")
	if code != exitOK || !strings.Contains(stdout, `"$id": "`+schemas.BaseURL+schemas.Config+`"`) {
		t.Errorf("kitsmith schema config: exit %d\n%s", code, stdout)
	}
	stdout, _, code = runCLI(t, "schema", "--list")
	if code != exitOK || !strings.Contains(stdout, "kit.schema.json\n") || !strings.Contains(stdout, "definitions/references.schema.json\n") {
		t.Errorf("kitsmith schema --list: exit %d\n%s", code, stdout)
	}
	dir := t.TempDir()
	if _, stderr, code := runCLI(t, "schema", "--output", dir); code != exitOK {
		t.Fatalf("kitsmith schema --output: exit %d: %s", code, stderr)
	}
	written, err := os.ReadFile(filepath.Join(dir, "capabilities", "com.docker.sandbox", "volume@1.schema.json"))
	if err != nil || !json.Valid(written) {
		t.Errorf("kitsmith schema --output did not write volume@1: %v", err)
	}
	if _, stderr, code := runCLI(t, "schema", "nope@1"); code != exitUsage || !strings.Contains(stderr, `no embedded schema named "nope@1"`) {
		t.Errorf("kitsmith schema nope@1: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "schema", "--output", dir, "credential@1"); code != exitUsage || !strings.Contains(stderr, "--output writes every schema file") {
		t.Errorf("kitsmith schema --output DIR NAME: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "schema", "--list", "credential@1"); code != exitUsage || !strings.Contains(stderr, "--list lists every schema file") {
		t.Errorf("kitsmith schema --list NAME: exit %d: %s", code, stderr)
	}
}

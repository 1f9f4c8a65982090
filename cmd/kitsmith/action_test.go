package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// actionFile is the part of action.yml the tests read.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			If   string            `yaml:"if"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestActionShape checks that no input reaches a shell as code: run
// blocks hold no ${{ }} expression, every input but working-directory and
// version's plan reaches a script through env; third-party actions are
// pinned by SHA; setup-go runs only to build from source.
func TestActionShape(t *testing.T) {
	a := readAction(t)
	viaEnv := map[string]bool{}
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q: run holds an expression, which GitHub pastes into the script: %q", s.Name, s.Run)
		}
		for _, v := range s.Env {
			if name, ok := strings.CutPrefix(strings.TrimSpace(v), "${{ inputs."); ok {
				viaEnv[strings.TrimSuffix(name, " }}")] = true
			}
		}
		if s.Uses != "" {
			ref := s.Uses[strings.Index(s.Uses, "@")+1:]
			if len(ref) != 40 {
				t.Errorf("step uses %s, not pinned by commit SHA", s.Uses)
			}
		}
		if strings.HasPrefix(s.Uses, "actions/setup-go@") && !strings.Contains(s.If, "'source'") {
			t.Errorf("setup-go runs without version: source (if: %q)", s.If)
		}
	}
	for name := range a.Inputs {
		if name == "working-directory" { // the step's working-directory: a directory, not code
			continue
		}
		if !viaEnv[name] {
			t.Errorf("input %s does not reach the scripts through env", name)
		}
	}
}

// fakeKitsmith puts a kitsmith on PATH that records its arguments, one per
// line with a tab before each, and a line "--" after each run.
func fakeKitsmith(t *testing.T, dir string) (pathDir, argv string) {
	t.Helper()
	pathDir = filepath.Join(dir, "bin")
	argv = filepath.Join(dir, "argv")
	if err := os.MkdirAll(pathDir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/bash\nfor a in \"$@\"; do printf '\\t%s\\n' \"$a\"; done >> \"$ARGV_FILE\"\necho -- >> \"$ARGV_FILE\"\necho stdout of kitsmith\n"
	if err := os.WriteFile(filepath.Join(pathDir, "kitsmith"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return pathDir, argv
}

// runAction runs action/run.sh with inputs (INPUT_* variables) in a fresh
// working directory and returns each kitsmith run's arguments.
func runAction(t *testing.T, inputs map[string]string) (runs [][]string, work, out string, err error) {
	t.Helper()
	dir := t.TempDir()
	work = filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "kits", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin, argv := fakeKitsmith(t, dir)
	script, err := filepath.Abs(filepath.Join("..", "..", "action", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	envs := []string{"PATH=" + bin + ":/usr/bin:/bin", "ARGV_FILE=" + argv, "GITHUB_OUTPUT=" + filepath.Join(dir, "output")}
	for k, v := range inputs {
		envs = append(envs, k+"="+v)
	}
	out, err = command(t, time.Minute, work, envs, "bash", script)
	b, _ := os.ReadFile(argv)
	var cur []string
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "--":
			runs = append(runs, cur)
			cur = nil
		case strings.HasPrefix(line, "\t"):
			cur = append(cur, line[1:])
		}
	}
	return runs, work, out, err
}

// TestActionInputsLiteral feeds $(touch PWNED), backquotes and ; through
// every input: each arrives as an argument exactly as written, and nothing
// runs.
func TestActionInputsLiteral(t *testing.T) {
	const sub, semi, tick = "$(touch${IFS}PWNED)", "a;touch${IFS}PWNED2;b", "`touch${IFS}PWNED3`"
	evil := sub + " " + semi + " " + tick // three words
	tests := []struct {
		name   string
		inputs map[string]string
		want   [][]string
	}{
		{
			name:   "lint: args, paths, format, fail-level, sarif-file",
			inputs: map[string]string{"INPUT_COMMAND": "lint", "INPUT_ARGS": evil, "INPUT_PATHS": evil, "INPUT_FORMAT": sub + " x", "INPUT_FAIL_LEVEL": semi, "INPUT_SARIF_FILE": tick},
			want:   [][]string{{"lint", "--format", sub + " x", "--fail-level", semi, "--sarif-file", tick, sub, semi, tick, sub, semi, tick}},
		},
		{
			name:   "publish: paths, tag-template, policy",
			inputs: map[string]string{"INPUT_COMMAND": "publish", "INPUT_PATHS": "kits/*/ " + sub, "INPUT_TAG_TEMPLATE": "r.example/" + sub + ":{version};x", "INPUT_POLICY": tick + "; rm -rf /"},
			want:   [][]string{{"publish", "--tag-template", "r.example/" + sub + ":{version};x", "--policy", tick + "; rm -rf /", "kits/a/", sub}},
		},
		{
			name:   "verify: refs, identity, issuer, policy",
			inputs: map[string]string{"INPUT_COMMAND": "verify", "INPUT_REFS": "r.example/a:1\n" + sub, "INPUT_IDENTITY": sub + "; x", "INPUT_ISSUER": semi, "INPUT_POLICY": tick},
			want: [][]string{
				{"verify", "--certificate-identity", sub + "; x", "--certificate-oidc-issuer", semi, "--policy", tick, "r.example/a:1"},
				{"verify", "--certificate-identity", sub + "; x", "--certificate-oidc-issuer", semi, "--policy", tick, sub},
			},
		},
		{
			name:   "stdout-file and allow-findings",
			inputs: map[string]string{"INPUT_COMMAND": "validate", "INPUT_ARGS": "$(id)", "STDOUT_FILE": sub + ".out", "ALLOW_FINDINGS": semi},
			want:   [][]string{{"validate", "$(id)"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, work, out, err := runAction(t, tt.inputs)
			if err != nil {
				t.Fatalf("run.sh: %v\n%s", err, out)
			}
			if d := cmp.Diff(tt.want, runs); d != "" {
				t.Errorf("kitsmith's arguments (-want +got):\n%s", d)
			}
			for _, f := range []string{"PWNED", "PWNED2", "PWNED3"} {
				if _, err := os.Stat(filepath.Join(work, f)); err == nil {
					t.Errorf("an input ran: %s exists", f)
				}
			}
			if file := tt.inputs["STDOUT_FILE"]; file != "" {
				if b, err := os.ReadFile(filepath.Join(work, file)); err != nil || string(b) != "stdout of kitsmith\n" {
					t.Errorf("stdout-file %q: %v %q", file, err, b)
				}
			}
		})
	}
	// command is one word: anything else is refused before kitsmith runs.
	for _, cmdInput := range []string{sub, "lint; touch PWNED", "lint --format sarif"} {
		runs, work, out, err := runAction(t, map[string]string{"INPUT_COMMAND": cmdInput})
		if err == nil || len(runs) != 0 || !strings.Contains(out, "command: must be one kitsmith command") {
			t.Errorf("command %q: err %v, runs %v\n%s", cmdInput, err, runs, out)
		}
		if _, err := os.Stat(filepath.Join(work, "PWNED")); err == nil {
			t.Errorf("command %q ran", cmdInput)
		}
	}
	// A typed input of another command is refused, naming it.
	if _, _, out, err := runAction(t, map[string]string{"INPUT_COMMAND": "lint", "INPUT_TAG_TEMPLATE": "x"}); err == nil || !strings.Contains(out, "input tag-template applies to command: publish, not 'lint'") {
		t.Errorf("lint with tag-template: err %v\n%s", err, out)
	}
}

// TestWorkflowsHardened checks the workflows and the action: every
// third-party action pinned by a commit SHA with its tag in a comment,
// checkouts without persisted credentials, and id-token: write in
// release.yml on the signing job alone.
func TestWorkflowsHardened(t *testing.T) {
	root := filepath.Join("..", "..")
	files := []string{"action.yml", ".github/workflows/release.yml", ".github/workflows/release-kits.yml", "cmd/kitsmith/testdata/workflows/uses-action.yml"}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i, line := range lines {
			trimmed := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
			uses, ok := strings.CutPrefix(trimmed, "uses: ")
			if !ok || strings.HasPrefix(uses, "./") {
				continue
			}
			ref, comment, _ := strings.Cut(uses, " # ")
			_, sha, _ := strings.Cut(ref, "@")
			if len(sha) != 40 || strings.Trim(sha, "0123456789abcdef") != "" || !strings.HasPrefix(comment, "v") {
				t.Errorf("%s:%d: %s is not pinned by commit SHA with its tag in a comment", f, i+1, uses)
			}
			if strings.HasPrefix(ref, "actions/checkout@") {
				block := strings.Join(lines[i:min(i+4, len(lines))], "\n")
				if !strings.Contains(block, "persist-credentials: false") {
					t.Errorf("%s:%d: checkout keeps credentials (persist-credentials: false missing)", f, i+1)
				}
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Permissions any `yaml:"permissions"`
		Jobs        map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	var oidc []string
	for name, j := range wf.Jobs {
		if j.Permissions["id-token"] == "write" {
			oidc = append(oidc, name)
		}
	}
	if !cmp.Equal(oidc, []string{"sign"}) {
		t.Errorf("release.yml jobs with id-token: write: %v, want [sign]", oidc)
	}
	if m, ok := wf.Permissions.(map[string]any); !ok || len(m) != 0 {
		t.Errorf("release.yml top-level permissions %v, want {}", wf.Permissions)
	}
}

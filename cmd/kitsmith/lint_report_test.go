package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintReportExtras covers --sarif-file, the job summary and --color.
func TestLintReportExtras(t *testing.T) {
	root := sarifRepo(t, sarifKit)
	t.Chdir(root)
	summary := filepath.Join(root, "summary.md")
	e := env{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}
	out, stderr, code := runCLIEnv(t, e, "lint", "--sarif-file", "k.sarif", "kits/fixture")
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "kits/fixture/fixture.yaml:13:10: error:") || strings.Contains(out, "\x1b[") {
		t.Errorf("stdout is not the plain text report:\n%s", out)
	}
	b, err := os.ReadFile("k.sarif")
	if err != nil {
		t.Fatal(err)
	}
	d := decodeSARIF(t, string(b))
	if n := len(d.Runs[0].Results); n != 2 {
		t.Errorf("--sarif-file holds %d results, want 2 (one suppressed)", n)
	}
	sum, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### kitsmith lint", "1 kit linted: 1 error", "| error | `kits/fixture/fixture.yaml:13:10` | [proxy-env-override](https://github.com/kitsmith/kitsmith/blob/main/docs/rules/proxy-env-override.md) |", "1 finding silenced by kitsmith:ignore comments."} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("job summary lacks %q:\n%s", want, sum)
		}
	}
	// Outside GitHub Actions, no summary.
	other := filepath.Join(root, "other.md")
	runCLIEnv(t, env{"GITHUB_STEP_SUMMARY": other}, "lint", "kits/fixture")
	if _, err := os.Stat(other); err == nil {
		t.Error("a summary was written outside GitHub Actions")
	}

	for _, tt := range []struct {
		name  string
		e     env
		args  []string
		color bool
	}{
		{name: "always", args: []string{"--color", "always"}, color: true},
		{name: "always beats NO_COLOR", e: env{"NO_COLOR": "1"}, args: []string{"--color", "always"}, color: true},
		{name: "never", args: []string{"--color", "never"}},
		{name: "auto, not a terminal", args: []string{"--color", "auto"}},
		{name: "auto with NO_COLOR", e: env{"NO_COLOR": ""}, args: nil},
	} {
		t.Run("color "+tt.name, func(t *testing.T) {
			out, _, code := runCLIEnv(t, tt.e, append([]string{"lint"}, append(tt.args, "kits/fixture")...)...)
			if code != exitFindings {
				t.Fatalf("exit %d", code)
			}
			if got := strings.Contains(out, "\x1b[1;31merror\x1b[0m"); got != tt.color {
				t.Errorf("coloured %v, want %v:\n%q", got, tt.color, out)
			}
		})
	}
	if _, stderr, code := runCLI(t, "lint", "--color", "sometimes", "kits/fixture"); code != exitUsage || !strings.Contains(stderr, "--color must be auto, always or never") {
		t.Errorf("--color sometimes: exit %d %s", code, stderr)
	}
}

package main

import (
	"encoding/json"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// lintTestdata holds the lint CLI fixtures: kits/ (one kit per mistake
// family, and a clean one), ignored/ (excluded by .kitsmith.yaml), configs/
// and golden/ (the report in every format).
const lintTestdata = "testdata/lint"

// TestLintGolden pins every output format of `kitsmith lint --recursive
// kits`, run from testdata/lint so paths are relative and stable.
func TestLintGolden(t *testing.T) {
	t.Chdir(lintTestdata)
	for _, format := range []string{"text", "json", "sarif", "github"} {
		t.Run(format, func(t *testing.T) {
			args := []string{"lint", "--recursive", "--format", format, "."}
			if format == "sarif" {
				// URIs relative to here; the base's file URI is the machine's.
				args = append(args, "--sarif-base", ".")
			}
			stdout, stderr, code := runCLI(t, args...)
			if code != exitFindings || stderr != "" {
				t.Errorf("exit %d, stderr %q; want exit 1 and no stderr", code, stderr)
			}
			if wd, err := os.Getwd(); err == nil {
				stdout = strings.ReplaceAll(stdout, (&url.URL{Scheme: "file", Path: filepath.ToSlash(wd) + "/"}).String(), "file:///BASE/")
			}
			checkGolden(t, filepath.Join("golden", format+".golden"), stdout)
		})
	}
}

// TestLintSARIFSchema checks what GitHub code scanning relies on in the
// SARIF output (TestSARIFMultitool validates it against the schema and the
// Multitool's rules): rule metadata, rule indexes, repository-relative URIs
// and start positions.
func TestLintSARIFSchema(t *testing.T) {
	t.Chdir(lintTestdata)
	stdout, _, _ := runCLI(t, "lint", "--recursive", "--format", "sarif", ".")
	var rep struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID, HelpURI      string
						Help             *struct{ Text, Markdown string }
						ShortDescription *struct{ Text string }
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(rep.Runs))
	}
	run := rep.Runs[0]
	rules := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		rules[r.ID] = i
		if !strings.HasPrefix(r.HelpURI, "https://") || r.Help == nil || r.ShortDescription == nil {
			t.Errorf("rule %s lacks help, help URI or short description", r.ID)
		}
	}
	if len(run.Results) == 0 {
		t.Fatal("no results")
	}
	for _, res := range run.Results {
		id := res.RuleID
		if i, ok := rules[id]; !ok || res.RuleIndex != i {
			t.Errorf("result for %s: ruleIndex %v does not point at its rule (%d)", id, res.RuleIndex, i)
		}
		loc := res.Locations[0].PhysicalLocation
		if uri := loc.ArtifactLocation.URI; filepath.IsAbs(uri) || !strings.HasPrefix(uri, "cmd/kitsmith/testdata/lint/kits/") || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" {
			t.Errorf("result for %s: URI %q (base %q) is not relative to the repository root", id, uri, loc.ArtifactLocation.URIBaseID)
		}
		if loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 {
			t.Errorf("result for %s has no start line and column", id)
		}
	}
}

// TestLintJSONShape decodes the JSON output into the documented shape.
func TestLintJSONShape(t *testing.T) {
	t.Chdir(lintTestdata)
	stdout, _, _ := runCLI(t, "lint", "--format", "json", "kits/proxy")
	var doc struct {
		SchemaVersion int `json:"schemaVersion"`
		Findings      []struct {
			Rule, Severity, Message, File, Fix string
			Line, Column                       int
		} `json:"findings"`
		Summary struct{ Kits, Errors, Warnings, Info int } `json:"summary"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != 1 || doc.Summary.Kits != 1 || doc.Summary.Errors != 2 || doc.Summary.Warnings != 1 {
		t.Errorf("schemaVersion %d, summary %+v", doc.SchemaVersion, doc.Summary)
	}
	f := doc.Findings[0]
	if f.Rule != "proxy-env-override" || f.File != "kits/proxy/proxy.yaml" || f.Line != 18 || f.Column != 20 || f.Fix == "" {
		t.Errorf("first finding %+v", f)
	}
}

// TestLintExitCodes covers exit 0 (nothing at or above the fail level),
// 1 (findings at or above it) and 2 (usage, configuration, I/O).
func TestLintExitCodes(t *testing.T) {
	t.Chdir(lintTestdata)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // substring; "" means empty
	}{
		{"clean kit", []string{"kits/clean"}, exitOK, ""},
		{"errors", []string{"kits/proxy"}, exitFindings, ""},
		{"warnings below the default fail level", []string{"kits/recipe"}, exitOK, ""},
		{"warnings at --fail-level warning", []string{"--fail-level", "warning", "kits/recipe"}, exitFindings, ""},
		{"info below --fail-level warning", []string{"--disable", "all", "--enable", "port-trust-boundary", "--fail-level", "warning", "kits/network"}, exitOK, ""},
		{"info at --fail-level info", []string{"--disable", "all", "--enable", "port-trust-boundary", "--fail-level", "info", "kits/network"}, exitFindings, ""},
		{"errors disabled", []string{"--disable", "proxy-env-override,hook-env-undeclared", "kits/proxy"}, exitOK, ""},
		{"descriptor file", []string{"kits/clean/clean.yaml"}, exitOK, ""},
		{"no path", nil, exitUsage, "lint needs a PATH"},
		{"missing path", []string{"kits/nope"}, exitUsage, "no such file or directory"},
		{"not a kit", []string{"configs"}, exitUsage, "no kit"},
		{"unknown format", []string{"--format", "xml", "kits/clean"}, exitUsage, `--format must be text, github, json or sarif, not "xml"`},
		{"unknown fail level", []string{"--fail-level", "fatal", "kits/clean"}, exitUsage, "--fail-level"},
		{"unknown rule", []string{"--enable", "wildcard-alow", "kits/clean"}, exitUsage, `--enable: unknown rule "wildcard-alow" (did you mean "wildcard-allow"?)` + "\nhint: kitsmith lint --list-rules lists the rules\n"},
		{"unknown rules in both flags", []string{"--enable", "nope", "--disable", "wildcard-alow", "kits/clean"}, exitUsage, `--enable: unknown rule "nope"` + "\n" + `--disable: unknown rule "wildcard-alow" (did you mean "wildcard-allow"?)`},
		{"contradiction", []string{"--enable", "wildcard-allow", "--disable", "wildcard-allow", "kits/clean"}, exitUsage, "both in --enable and in --disable"},
		{"unknown rule in the configuration", []string{"--config", "configs/unknown-rule.yaml", "kits/clean"}, exitUsage, `disable: unknown rule "port-trust-boundry" (did you mean "port-trust-boundary"?)` + "\nhint: kitsmith lint --list-rules"},
		{"missing configuration", []string{"--config", "configs/nope.yaml", "kits/clean"}, exitUsage, "reading lint configuration"},
		{"unknown flag", []string{"--bogus", "kits/clean"}, exitUsage, "unknown flag"},
		{"--files with --recursive", []string{"--files", "--recursive", "kits"}, exitUsage, "exclude each other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, append([]string{"lint"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if tt.stderr == "" && stderr != "" || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tt.stderr)
			}
		})
	}
}

// TestLintConfig covers .kitsmith.yaml found upward from the kit (its
// severity override and ignore paths) and --config.
func TestLintConfig(t *testing.T) {
	t.Chdir(lintTestdata)
	stdout, _, _ := runCLI(t, "lint", "--format", "json", "kits/network", "ignored/old")
	if !strings.Contains(stdout, `"rule": "unsized-volume",
      "severity": "warning"`) {
		t.Errorf("the found configuration's severity override is not applied:\n%s", stdout)
	}
	if strings.Contains(stdout, "ignored/old") || !strings.Contains(stdout, `"kits": 1`) {
		t.Errorf("the found configuration's ignore path is not applied:\n%s", stdout)
	}
	stdout, _, code := runCLI(t, "lint", "--config", "configs/only-network.yaml", "--format", "json", "kits/network", "kits/proxy", "ignored/old")
	var got []string
	var doc struct{ Findings []struct{ Rule, File string } }
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range doc.Findings {
		got = append(got, f.File+" "+f.Rule)
	}
	want := []string{
		"ignored/old/old.yaml spec/unknown-field", // --config replaces the found file: nothing is ignored, and disable: [all] keeps spec/
		"kits/network/network.yaml host-docker-internal",
	}
	if diff := cmp.Diff(want, got); diff != "" || code != exitFindings {
		t.Errorf("--config: exit %d, findings (-want +got):\n%s", code, diff)
	}
}

// TestLintFiles runs lint as the pre-commit hook does: changed files are
// mapped to the kits that contain them; files outside any kit and deleted
// files are skipped.
func TestLintFiles(t *testing.T) {
	t.Chdir(lintTestdata)
	tests := []struct {
		name  string
		files []string
		kits  int
		code  int
	}{
		{"descriptor", []string{"kits/recipe/recipe.yaml"}, 1, exitOK},
		{"recipe beside the descriptor", []string{"kits/recipe/recipe.dockerfile"}, 1, exitOK},
		{"non-descriptor file inside a kit", []string{"kits/proxy/README.md"}, 1, exitFindings},
		{"same kit twice", []string{"kits/proxy/proxy.yaml", "kits/proxy/README.md"}, 1, exitFindings},
		{"several kits", []string{"kits/clean/clean.yaml", "kits/recipe/recipe.dockerfile", "kits/proxy/README.md"}, 3, exitFindings},
		{"outside any kit", []string{"notes.txt", ".kitsmith.yaml", "configs/only-network.yaml"}, 0, exitOK},
		{"deleted file", []string{"kits/clean/gone.yaml"}, 1, exitOK},
		{"nothing", nil, 0, exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"lint", "--files", "--format", "json"}, tt.files...)...)
			var doc struct{ Summary struct{ Kits int } }
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("%v; stderr %s", err, stderr)
			}
			if doc.Summary.Kits != tt.kits || code != tt.code {
				t.Errorf("%d kits, exit %d; want %d kits, exit %d (stderr %q)", doc.Summary.Kits, code, tt.kits, tt.code, stderr)
			}
		})
	}
}

// TestLintListRules lists every rule, meta rules and spec/<rule>.
func TestLintListRules(t *testing.T) {
	stdout, _, code := runCLI(t, "lint", "--list-rules")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, id := range []string{"proxy-env-override", "unused-suppression", "malformed-suppression", "spec/<rule>"} {
		if !strings.Contains(stdout, id) {
			t.Errorf("--list-rules lacks %s:\n%s", id, stdout)
		}
	}
	rules := len(lint.DefaultRules()) + len(lint.MetaRules())
	if n, want := strings.Count(stdout, "\n"), rules+2; n != want {
		t.Errorf("--list-rules prints %d lines, want %d (a header, %d rules, spec/<rule>)", n, want, rules)
	}
}

// TestPreCommitHook checks the repository's .pre-commit-hooks.yaml: the
// kitsmith-lint hook runs kitsmith lint --files on kit sources.
func TestPreCommitHook(t *testing.T) {
	b, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID            string `yaml:"id"`
		Entry         string `yaml:"entry"`
		Language      string `yaml:"language"`
		Files         string `yaml:"files"`
		PassFilenames *bool  `yaml:"pass_filenames"`
	}
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatal(err)
	}
	// kitsmith-lint builds kitsmith (golang), kitsmith-lint-system runs the
	// one on PATH; TestPreCommitHooks checks they agree.
	if len(hooks) != 2 {
		t.Fatalf("%d hooks, want 2", len(hooks))
	}
	h := hooks[0]
	if h.ID != "kitsmith-lint" || h.Entry != "kitsmith lint --files" || h.Language != "golang" || h.PassFilenames == nil || !*h.PassFilenames {
		t.Errorf("hook %+v", h)
	}
	for file, want := range map[string]bool{
		"kits/inside/reshapr-inside.yaml": true, "a/b.yml": true, "k/k.dockerfile": true, "k/Dockerfile": true,
		"k/Dockerfile.dev": true, "README.md": false, "main.go": false,
	} {
		if got := regexp.MustCompile(h.Files).MatchString(file); got != want {
			t.Errorf("files pattern %q matches %s: %v, want %v", h.Files, file, got, want)
		}
	}
}

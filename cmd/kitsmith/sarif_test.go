package main

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifKit is a kit with two proxy-env-override findings, one of them
// silenced with a reason. Edits in the tests insert lines or change one.
const sarifKit = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
displayName: Fixture
description: A kitsmith lint fixture.
version: "1.0.0"
sourceUrl: https://example.com/kits/fixture
licenses: [Apache-2.0]
args:
  proxy:
    description: Upstream proxy
    default: http://proxy.corp:3128
    env: HTTPS_PROXY
  other:
    description: Another proxy
    default: http://proxy.corp:3128
    # kitsmith:ignore proxy-env-override the corporate proxy is the sandbox's upstream here
    env: HTTP_PROXY
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: echo "$HTTPS_PROXY $HTTP_PROXY"
          env: [HTTPS_PROXY, HTTP_PROXY]
`

// sarifDoc is the part of a SARIF log the tests read.
type sarifDoc struct {
	Runs []struct {
		OriginalURIBaseIDs map[string]struct {
			URI string `json:"uri"`
		} `json:"originalUriBaseIds"`
		Tool struct {
			Driver struct {
				Rules []struct {
					ID         string `json:"id"`
					Properties *struct {
						Tags             []string `json:"tags"`
						SecuritySeverity string   `json:"security-severity"`
					} `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Suppressions        []struct {
				Kind          string `json:"kind"`
				Justification string `json:"justification"`
			} `json:"suppressions"`
		} `json:"results"`
	} `json:"runs"`
}

func decodeSARIF(t *testing.T, s string) sarifDoc {
	t.Helper()
	var d sarifDoc
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("decoding SARIF: %v\n%s", err, s)
	}
	if len(d.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(d.Runs))
	}
	return d
}

// sarifRepo writes sarifKit into a fresh repository (a directory with
// .git) at kits/fixture and returns the repository root.
func sarifRepo(t *testing.T, kit string) string {
	t.Helper()
	root := t.TempDir()
	for dir, files := range map[string]map[string]string{".git": {}, "kits/fixture": {"fixture.yaml": kit}} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(root, dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// lintSARIF runs lint --format sarif from dir on path and decodes the log.
func lintSARIF(t *testing.T, dir string, args ...string) (sarifDoc, string) {
	t.Helper()
	t.Chdir(dir)
	out, stderr, code := runCLI(t, append([]string{"lint", "--format", "sarif"}, args...)...)
	if code != exitFindings {
		t.Fatalf("lint: exit %d, want 1\n%s", code, stderr)
	}
	return decodeSARIF(t, out), out
}

// fingerprints maps "rule line" to each result's fingerprint.
func fingerprints(d sarifDoc) map[string]string {
	out := map[string]string{}
	for _, r := range d.Runs[0].Results {
		out[r.RuleID+" "+r.PartialFingerprints["kitsmith/v1"]] = r.Locations[0].PhysicalLocation.ArtifactLocation.URI
	}
	return out
}

func TestSARIFFingerprints(t *testing.T) {
	before, _ := lintSARIF(t, sarifRepo(t, sarifKit), "kits/fixture")
	// Unrelated edits: a comment line above everything, a description changed.
	moved := strings.Replace(sarifKit, "schemaVersion:", "# a new comment\n# and another\nschemaVersion:", 1)
	moved = strings.Replace(moved, "Another proxy", "Another proxy, described differently", 1)
	after, _ := lintSARIF(t, sarifRepo(t, moved), "kits/fixture")
	if d := cmp.Diff(fingerprints(before), fingerprints(after)); d != "" {
		t.Errorf("fingerprints changed with unrelated edits (-before +after):\n%s", d)
	}
	if got := before.Runs[0].Results[0].Locations[0].PhysicalLocation.Region.StartLine; got == after.Runs[0].Results[0].Locations[0].PhysicalLocation.Region.StartLine {
		t.Errorf("the edit did not move the finding (line %d): the check would prove nothing", got)
	}
	// The look-alike: editing the flagged line changes its fingerprint.
	edited := strings.Replace(sarifKit, "    env: HTTPS_PROXY\n", "    env:  HTTPS_PROXY # now with a comment\n", 1)
	changed, _ := lintSARIF(t, sarifRepo(t, edited), "kits/fixture")
	if cmp.Equal(fingerprints(before), fingerprints(changed)) {
		t.Errorf("editing the flagged line kept every fingerprint: %v", fingerprints(changed))
	}
	seen := map[string]bool{}
	for _, r := range before.Runs[0].Results {
		fp := r.PartialFingerprints["kitsmith/v1"]
		if len(fp) != 32 || seen[fp] {
			t.Errorf("result %s: fingerprint %q missing, malformed or repeated", r.RuleID, fp)
		}
		seen[fp] = true
	}
}

func TestSARIFSuppressions(t *testing.T) {
	d, _ := lintSARIF(t, sarifRepo(t, sarifKit), "kits/fixture")
	var got []string
	for _, r := range d.Runs[0].Results {
		if r.RuleID != "proxy-env-override" {
			continue
		}
		s := "line " + strconv.Itoa(r.Locations[0].PhysicalLocation.Region.StartLine)
		for _, sup := range r.Suppressions {
			s += " " + sup.Kind + ": " + sup.Justification
		}
		got = append(got, s)
	}
	want := []string{"line 13", "line 18 inSource: the corporate proxy is the sandbox's upstream here"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("proxy-env-override results (-want +got):\n%s", d)
	}
	// Text keeps silenced findings out, as before.
	t.Chdir(sarifRepo(t, sarifKit))
	text, _, _ := runCLI(t, "lint", "kits/fixture")
	if strings.Contains(text, ":18:") {
		t.Errorf("text report shows the suppressed finding:\n%s", text)
	}
}

// TestSARIFBase checks URIs are relative to the repository root from any
// working directory, with %SRCROOT% resolved to it, and --sarif-base.
func TestSARIFBase(t *testing.T) {
	root := sarifRepo(t, sarifKit)
	rootURI := (&url.URL{Scheme: "file", Path: filepath.ToSlash(root) + "/"}).String()
	for _, tt := range []struct {
		name, dir, base, path, wantURI, wantBase string
	}{
		{name: "from the root", dir: ".", path: "kits/fixture", wantURI: "kits/fixture/fixture.yaml", wantBase: rootURI},
		{name: "from the kit directory", dir: "kits/fixture", path: ".", wantURI: "kits/fixture/fixture.yaml", wantBase: rootURI},
		{name: "from kits, by absolute path", dir: "kits", path: filepath.Join(root, "kits", "fixture"), wantURI: "kits/fixture/fixture.yaml", wantBase: rootURI},
		{name: "--sarif-base kits", dir: ".", base: "kits", path: "kits/fixture", wantURI: "fixture/fixture.yaml", wantBase: rootURI + "kits/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{tt.path}
			if tt.base != "" {
				args = append(args, "--sarif-base", tt.base)
			}
			d, _ := lintSARIF(t, filepath.Join(root, tt.dir), args...)
			run := d.Runs[0]
			if got := run.OriginalURIBaseIDs["%SRCROOT%"].URI; got != tt.wantBase {
				t.Errorf("originalUriBaseIds %%SRCROOT%% = %q, want %q", got, tt.wantBase)
			}
			for _, r := range run.Results {
				loc := r.Locations[0].PhysicalLocation.ArtifactLocation
				if loc.URI != tt.wantURI || loc.URIBaseID != "%SRCROOT%" {
					t.Errorf("result %s at %s (base %q), want %s relative to %%SRCROOT%%", r.RuleID, loc.URI, loc.URIBaseID, tt.wantURI)
				}
			}
		})
	}
	t.Chdir(root)
	if _, stderr, code := runCLI(t, "lint", "--format", "sarif", "--sarif-base", "nowhere", "kits/fixture"); code != exitUsage || !strings.Contains(stderr, "--sarif-base") {
		t.Errorf("--sarif-base nowhere: exit %d, %s", code, stderr)
	}
}

// TestSARIFConventions checks the rule metadata and the absence of filler
// on the lint corpus.
func TestSARIFConventions(t *testing.T) {
	t.Chdir(lintTestdata)
	out, _, _ := runCLI(t, "lint", "--recursive", "--format", "sarif", ".")
	for _, filler := range []string{": -1", ": []", ": {}", `: ""`} {
		if strings.Contains(out, filler) {
			t.Errorf("SARIF output holds filler %q", filler)
		}
	}
	d := decodeSARIF(t, out)
	sev := map[string]string{}
	for _, r := range d.Runs[0].Tool.Driver.Rules {
		if r.Properties != nil {
			if !cmp.Equal(r.Properties.Tags, []string{"security"}) {
				t.Errorf("rule %s: tags %v", r.ID, r.Properties.Tags)
			}
			sev[r.ID] = r.Properties.SecuritySeverity
		}
	}
	want := map[string]string{"egress-not-allowed": "5.0", "literal-secret": "9.0", "proxy-env-override": "8.0", "unverified-download": "7.5", "wildcard-allow": "6.5"}
	if diff := cmp.Diff(want, sev); diff != "" {
		t.Errorf("security-severity by rule (-want +got):\n%s", diff)
	}
	for _, r := range d.Runs[0].Results {
		if rules := d.Runs[0].Tool.Driver.Rules; r.RuleIndex >= len(rules) || rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s: ruleIndex %d does not point at its rule", r.RuleID, r.RuleIndex)
		}
	}
}

// TestSARIFMultitool validates lint's SARIF against the SARIF 2.1.0 JSON
// schema and the SARIF Multitool's SARIF and GitHub rules (the tool cache's
// @microsoft/sarif-multitool): no error, and no warning but the tool version
// of a dev build. A log without %SRCROOT% (absolute URIs) is caught: the
// check can fail.
func TestSARIFMultitool(t *testing.T) {
	bin := os.Getenv("KITSMITH_TEST_SARIF_MULTITOOL")
	if bin == "" {
		if os.Getenv("KITSMITH_INTEGRATION") == "1" {
			t.Fatal("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_SARIF_MULTITOOL is not set (scripts/services.sh env)")
		}
		t.Skip("KITSMITH_TEST_SARIF_MULTITOOL is not set (scripts/services.sh env)")
	}
	schemaFile := filepath.Join(filepath.Dir(bin), "sarif-2.1.0.json")
	root := sarifRepo(t, sarifKit)
	_, good := lintSARIF(t, root, "kits/fixture")
	dir := t.TempDir()
	files := map[string]string{"good.sarif": good}
	// The look-alike: absolute file URIs and no base.
	var bad map[string]any
	if err := json.Unmarshal([]byte(good), &bad); err != nil {
		t.Fatal(err)
	}
	run := bad["runs"].([]any)[0].(map[string]any)
	delete(run, "originalUriBaseIds")
	for _, r := range run["results"].([]any) {
		loc := r.(map[string]any)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)
		loc["uri"] = "/abs/" + loc["uri"].(string)
		delete(loc, "uriBaseId")
	}
	b, _ := json.Marshal(bad)
	files["bad.sarif"] = string(b)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The JSON schema the Multitool ships.
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatalf("compiling %s: %v", schemaFile, err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("lint's SARIF breaks the SARIF 2.1.0 schema: %v", err)
	}
	problems := func(name string) []string {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		out := filepath.Join(dir, name+".validation.sarif")
		cmd := exec.CommandContext(ctx, bin, "validate", filepath.Join(dir, name), "--rule-kind", "Gh;Sarif", "--output", out, "--log", "ForceOverwrite")
		cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Logf("multitool: %v\n%s", err, msg)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("multitool wrote no report: %v", err)
		}
		var rep struct {
			Runs []struct {
				Results []struct {
					RuleID  string `json:"ruleId"`
					Level   string `json:"level"`
					Message struct {
						Arguments []string `json:"arguments"`
					} `json:"message"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		var out2 []string
		for _, run := range rep.Runs {
			for _, r := range run.Results {
				if r.Level == "error" || r.Level == "warning" && r.RuleID != "SARIF2005" { // SARIF2005: a dev build's version "dev" is not numeric
					out2 = append(out2, r.Level+" "+r.RuleID+" "+strings.Join(r.Message.Arguments, " "))
				}
			}
		}
		return out2
	}
	if got := problems("good.sarif"); len(got) > 0 {
		t.Errorf("the SARIF Multitool (Gh;Sarif rules) reports on lint's SARIF:\n%s", strings.Join(got, "\n"))
	}
	if got := problems("bad.sarif"); len(got) == 0 {
		t.Errorf("the SARIF Multitool accepted absolute URIs without a base: the check proves nothing")
	} else {
		t.Logf("absolute URIs are caught: %v", got)
	}
}

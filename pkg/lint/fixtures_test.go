package lint_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/internal/diag"
	goldenfile "github.com/kitsmith/kitsmith/internal/golden"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/lint/format"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Fixtures live in testdata/<rule-id>/{bad,good}/<case>/, one kit per case
// directory (spec/<code> findings under testdata/spec/). Their files carry
// "# want: <rule-id>[, <rule-id>]" markers on the lines where findings are
// expected; a marker alone on its line applies to the next line. Each bad
// case also has findings.golden, the text report of every finding with
// its source line and caret, which pins columns and messages. A case
// directory may hold a .kitsmith.yaml, which its kit is linted under.

// fixtureRules returns the IDs that must have fixtures: every registered
// and meta rule, and "spec".
func fixtureRules() []string {
	var ids []string
	for _, r := range append(lint.DefaultRules(), lint.MetaRules()...) {
		ids = append(ids, r.ID)
	}
	ids = append(ids, "spec")
	sort.Strings(ids)
	return ids
}

// fixtureCase is one fixture kit.
type fixtureCase struct {
	rule, kind, name, dir string
}

// fixtureCases lists the cases of rule, kind "bad" or "good".
func fixtureCases(t testing.TB, rule, kind string) []fixtureCase {
	t.Helper()
	dir := filepath.Join("testdata", rule, kind)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []fixtureCase
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, fixtureCase{rule, kind, e.Name(), filepath.Join(dir, e.Name())})
		}
	}
	return out
}

// marker is an expected finding: rule at file:line.
type marker struct {
	Rule string
	File string
	Line int
}

func (m marker) String() string { return fmt.Sprintf("%s:%d %s", m.File, m.Line, m.Rule) }

var wantRE = regexp.MustCompile(`#\s*want:\s*([a-z0-9/, -]+?)\s*$`)

// markers parses the want markers of every source file of k, of the kit
// files its descriptor names (agent-context contentFile bodies), and of
// every other file in the kit directory (scripts the recipe copies), so
// that a marker in a file lint never read is still expected.
func markers(t testing.TB, k *spec.Kit) []marker {
	t.Helper()
	var out []marker
	files := k.SourceFiles()
	for name, body := range k.Files {
		files[path.Join(k.Dir, name)] = body
	}
	err := filepath.WalkDir(k.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "findings.golden" || files[p] != nil {
			return err
		}
		body, err := os.ReadFile(p)
		files[p] = body
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for file, src := range files {
		lines := strings.Split(string(src), "\n")
		var pending []string // rules of whole-line markers waiting for their line
		for i, line := range lines {
			line = strings.TrimRight(line, "\r")
			m := wantRE.FindStringSubmatchIndex(line)
			var ids []string
			if m != nil {
				ids = strings.FieldsFunc(line[m[2]:m[3]], func(r rune) bool { return r == ',' || r == ' ' })
			}
			if m != nil && strings.Trim(line[:m[0]], " \t#") == "" {
				pending = append(pending, ids...)
				continue
			}
			for _, id := range append(pending, ids...) {
				out = append(out, marker{id, file, i + 1})
			}
			pending = nil
		}
	}
	sortMarkers(out)
	return out
}

func sortMarkers(ms []marker) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].File != ms[j].File {
			return ms[i].File < ms[j].File
		}
		if ms[i].Line != ms[j].Line {
			return ms[i].Line < ms[j].Line
		}
		return ms[i].Rule < ms[j].Rule
	})
}

// lintFixture loads and lints one fixture kit with the default rules,
// under the .kitsmith.yaml of its case directory when it has one.
func lintFixture(t testing.TB, dir string) (*spec.Kit, *lint.Result) {
	t.Helper()
	k, err := spec.LoadPath(dir)
	if err != nil {
		t.Fatalf("loading %s: %v", dir, err)
	}
	var cfg *lint.Config
	if p := filepath.Join(dir, lint.ConfigFile); fileExists(p) {
		if cfg, err = lint.LoadConfig(p); err != nil {
			t.Fatal(err)
		}
	}
	res, err := lint.Run(context.Background(), []*spec.Kit{k}, lint.WithConfig(cfg))
	if err != nil {
		t.Fatalf("lint %s: %v", dir, err)
	}
	return k, res
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ruleMatches reports whether a finding's rule belongs to fixture rule id.
func ruleMatches(id, findingRule string) bool {
	if id == "spec" {
		return lint.IsSpecRule(findingRule)
	}
	return id == findingRule
}

func TestFixtures(t *testing.T) {
	for _, rule := range fixtureRules() {
		for _, kind := range []string{"bad", "good"} {
			for _, c := range fixtureCases(t, rule, kind) {
				t.Run(rule+"/"+kind+"/"+c.name, func(t *testing.T) {
					checkFixture(t, c)
				})
			}
		}
	}
}

// checkFixture compares a fixture's findings with its markers: every
// marker is found; the rule under test and spec/<code> rules report
// nothing unmarked; good cases hold no finding (and no marker) of their
// rule; bad cases hold at least one.
func checkFixture(t *testing.T, c fixtureCase) {
	k, res := lintFixture(t, c.dir)
	want := markers(t, k)
	var got []marker
	for _, f := range res.Findings {
		got = append(got, marker{f.RuleID, f.Range.Start.File, f.Range.Start.Line})
	}
	sortMarkers(got)
	strict := func(r string) bool { return ruleMatches(c.rule, r) || lint.IsSpecRule(r) }
	var gotStrict []marker
	for _, g := range got {
		if strict(g.Rule) || slices.Contains(want, g) {
			gotStrict = append(gotStrict, g)
		}
	}
	if diff := cmp.Diff(want, gotStrict); diff != "" {
		t.Errorf("findings differ from the # want: markers (-want +got):\n%s\nreport:\n%s", diff, report(t, k, res))
	}
	n := 0
	for _, g := range got {
		if ruleMatches(c.rule, g.Rule) {
			n++
		}
	}
	switch {
	case c.kind == "bad" && n == 0:
		t.Errorf("bad case reports no %s finding", c.rule)
	case c.kind == "good" && n > 0:
		t.Errorf("good case reports %d %s findings:\n%s", n, c.rule, report(t, k, res))
	}
	if c.kind == "bad" {
		golden(t, filepath.Join(c.dir, "findings.golden"), []byte(report(t, k, res)))
	}
}

// report renders a result as the text format, with excerpts.
func report(t testing.TB, k *spec.Kit, res *lint.Result) string {
	t.Helper()
	var b bytes.Buffer
	txt := &format.Text{Sources: diag.Sources(k.SourceFiles())}
	if err := txt.Format(&b, res); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// golden compares got with the file at path, or rewrites it under
// KITSMITH_UPDATE_GOLDEN=1.
func golden(t testing.TB, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got)
}

// TestEveryRuleHasFixtures fails when a rule lacks good or bad fixtures,
// or a fixture directory names no rule.
func TestEveryRuleHasFixtures(t *testing.T) {
	rules := fixtureRules()
	for _, rule := range rules {
		for _, kind := range []string{"bad", "good"} {
			if len(fixtureCases(t, rule, kind)) == 0 {
				t.Errorf("rule %s has no %s fixtures (testdata/%s/%s/<case>/)", rule, kind, rule, kind)
			}
		}
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !slices.Contains(rules, e.Name()) && e.Name() != "reshapr-mistakes" && e.Name() != "config" {
			t.Errorf("testdata/%s names no rule", e.Name())
		}
	}
}

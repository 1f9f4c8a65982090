package lint_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pmezard/go-difflib/difflib"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// fixtureDirs returns every fixture kit directory: the good and bad cases
// of every rule, and the reshapr mistakes.
func fixtureDirs(t testing.TB) []string {
	t.Helper()
	var dirs []string
	for _, rule := range fixtureRules() {
		for _, kind := range []string{"bad", "good"} {
			for _, c := range fixtureCases(t, rule, kind) {
				dirs = append(dirs, c.dir)
			}
		}
	}
	more, _ := filepath.Glob("testdata/reshapr-mistakes/*")
	for _, d := range more {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// fixtureLint returns a LintFunc over the fixture kit in dir, under its
// .kitsmith.yaml, reading base and then the loop's overlay over the disk.
func fixtureLint(t testing.TB, dir string, base map[string][]byte) lint.LintFunc {
	t.Helper()
	var cfg *lint.Config
	if p := filepath.Join(dir, lint.ConfigFile); fileExists(p) {
		c, err := lint.LoadConfig(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg = c
	}
	return func(ctx context.Context, overlay map[string][]byte) (*lint.Result, map[string][]byte, error) {
		files := maps.Clone(base)
		if files == nil {
			files = map[string][]byte{}
		}
		maps.Copy(files, overlay)
		k, err := spec.LoadPath(dir, spec.WithOverlay(files))
		if err != nil {
			return nil, nil, err
		}
		res, err := lint.Run(ctx, []*spec.Kit{k}, lint.WithConfig(cfg))
		return res, k.SourceFiles(), err
	}
}

// loadFixed loads the kit in dir with files in place of theirs.
func loadFixed(t testing.TB, dir string, files map[string][]byte) *spec.Kit {
	t.Helper()
	k, err := spec.LoadPath(dir, spec.WithOverlay(files))
	if err != nil {
		t.Fatalf("loading %s fixed: %v", dir, err)
	}
	return k
}

// specCodes counts the specification errors of a kit by code.
func specCodes(k *spec.Kit) map[string]int {
	out := map[string]int{}
	for _, e := range k.Validate().Errors {
		out[e.Code]++
	}
	return out
}

// unifiedDiff renders the changes of a fix result as a unified diff.
func unifiedDiff(t testing.TB, r *lint.FixResult) string {
	t.Helper()
	var b strings.Builder
	for _, f := range r.Changed() {
		d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: difflib.SplitLines(string(r.Before[f])), B: difflib.SplitLines(string(r.After[f])),
			FromFile: filepath.ToSlash(f), ToFile: filepath.ToSlash(f), Context: 1})
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(d)
	}
	return b.String()
}

// TestFixProperties applies every safe fix to every fixture, to a fixed
// point, and checks what a safe fix promises: the result loads and
// parses, it has no specification error it did not have before, its
// permission surface is identical (spec.SurfaceOf, and review.Diff finds
// no widening), it converged within the bound, and a second --fix changes
// nothing. Every change is pinned by testdata/fixes.golden.
func TestFixProperties(t *testing.T) {
	var all strings.Builder
	fixed := 0
	for _, dir := range fixtureDirs(t) {
		t.Run(filepath.ToSlash(strings.TrimPrefix(dir, "testdata"+string(filepath.Separator))), func(t *testing.T) {
			ctx := context.Background()
			res, err := lint.FixLoop(ctx, fixtureLint(t, dir, nil), lint.FixOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Errorf("no fixed point after %d passes", res.Passes)
			}
			if len(res.After) == 0 {
				return
			}
			fixed++
			fmt.Fprintf(&all, "== %s\n", filepath.ToSlash(dir))
			for _, p := range res.Applied {
				fmt.Fprintf(&all, "fixed %s [%s]: %s\n", p.Finding.Range.Start.String(), p.Finding.RuleID, p.Fix.Title)
			}
			all.WriteString(unifiedDiff(t, res))
			checkSafeResult(t, dir, res)
			again, err := lint.FixLoop(ctx, fixtureLint(t, dir, res.After), lint.FixOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(again.After) != 0 {
				t.Errorf("a second --fix changed more:\n%s", unifiedDiff(t, again))
			}
		})
	}
	if fixed == 0 {
		t.Fatal("no fixture was fixed")
	}
	golden(t, filepath.Join("testdata", "fixes.golden"), []byte(all.String()))
}

// checkSafeResult checks a kit fixed with safe fixes against the kit as
// it was.
func checkSafeResult(t *testing.T, dir string, res *lint.FixResult) {
	t.Helper()
	before, after := loadFixed(t, dir, nil), loadFixed(t, dir, res.After)
	if before.Descriptor != nil && after.Descriptor == nil {
		t.Fatalf("the fixed descriptor no longer decodes: %v", after.Validate().Errors)
	}
	was, is := specCodes(before), specCodes(after)
	for code, n := range is {
		if n > was[code] {
			t.Errorf("fixing added spec/%s errors (%d, was %d)", code, n, was[code])
		}
	}
	if before.Descriptor == nil {
		return
	}
	if b, a := spec.SurfaceOf(before.Descriptor).String(), spec.SurfaceOf(after.Descriptor).String(); b != a {
		t.Errorf("a safe fix changed the permission surface:\n%s", cmp.Diff(b, a))
	}
	rb, errB := review.FromSource(before, nil)
	ra, errA := review.FromSource(after, nil)
	if errB == nil && errA == nil {
		if d := review.Diff(rb, ra); d.Widened() {
			t.Errorf("review.Diff reports a widening after safe fixes: %+v", d.Widenings)
		}
	}
}

// TestUnsafeFixesWiden proves the line between safe and unsafe on the
// host.docker.internal fixtures: the rewrite to localhost is offered, is
// unsafe, and review.Diff reports exactly the grant it makes live; the
// safe fixes alone never make it.
func TestUnsafeFixesWiden(t *testing.T) {
	dir := filepath.Join("testdata", "host-docker-internal", "bad", "example")
	ctx := context.Background()
	safe, err := lint.FixLoop(ctx, fixtureLint(t, dir, nil), lint.FixOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range safe.Applied {
		if p.Finding.RuleID == "host-docker-internal" {
			t.Errorf("a safe --fix applied %q", p.Fix.Title)
		}
	}
	all, err := lint.FixLoop(ctx, fixtureLint(t, dir, nil), lint.FixOptions{Select: lint.AllFixes})
	if err != nil {
		t.Fatal(err)
	}
	var rewrote []string
	for _, p := range all.Applied {
		if p.Finding.RuleID == "host-docker-internal" {
			if p.Fix.Safe {
				t.Errorf("fix %q is marked safe", p.Fix.Title)
			}
			rewrote = append(rewrote, p.Fix.Title)
		}
	}
	if len(rewrote) == 0 {
		t.Fatal("no host.docker.internal fix was applied with --unsafe-fixes")
	}
	before, after := loadFixed(t, dir, nil), loadFixed(t, dir, all.After)
	rb, err := review.FromSource(before, nil)
	if err != nil {
		t.Fatal(err)
	}
	ra, err := review.FromSource(after, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := review.Diff(rb, ra)
	if !d.Widened() {
		t.Fatalf("the localhost rewrite widened nothing: %+v", d)
	}
	for _, w := range d.Widenings {
		if !strings.Contains(fmt.Sprint(w), "localhost") {
			t.Errorf("widening %+v is not the localhost grant the fix states", w)
		}
	}
}

// TestSafeFixDemotedWhenItWidens: a did-you-mean rename is safe, unless
// the renamed key makes a grant live; then the same fix is unsafe.
func TestSafeFixDemotedWhenItWidens(t *testing.T) {
	tests := []struct {
		name, src string
		safe      bool
	}{
		{"rename that grants", "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\ncapabilites:\n  - type: com.docker.sandbox/network-policy@1\n    config: {runtime: {allow: [api.example.com]}}\n", false},
		{"rename that grants nothing", "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\ndescripton: a kit\n", true},
		{"type rename that grants", "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\ncapabilities:\n  - type: com.docker.sandbox/netwrk-policy@1\n    config: {runtime: {allow: [api.example.com]}}\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := spec.Parse("k.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			res, err := lint.Run(context.Background(), []*spec.Kit{k})
			if err != nil {
				t.Fatal(err)
			}
			var got []lint.Fix
			for _, f := range res.Findings {
				if f.RuleID == "spec/unknown-field" || f.RuleID == "spec/unknown-sandbox-type" {
					got = append(got, f.Fixes...)
				}
			}
			if len(got) != 1 {
				t.Fatalf("fixes %+v, want one rename", got)
			}
			if got[0].Safe != tc.safe {
				t.Errorf("%q: safe %v, want %v", got[0].Title, got[0].Safe, tc.safe)
			}
		})
	}
}

// TestApplyEdits covers ordering, insertion and overlap.
func TestApplyEdits(t *testing.T) {
	src := []byte("abcdef")
	tests := []struct {
		name  string
		edits []lint.TextEdit
		want  string
		err   bool
	}{
		{"none", nil, "abcdef", false},
		{"replace and insert out of order", []lint.TextEdit{{Offset: 4, EndOffset: 6, NewText: "X"}, {Offset: 0, EndOffset: 0, NewText: ">"}}, ">abcdX", false},
		{"delete", []lint.TextEdit{{Offset: 1, EndOffset: 3}}, "adef", false},
		{"overlap", []lint.TextEdit{{Offset: 1, EndOffset: 3}, {Offset: 2, EndOffset: 4}}, "", true},
		{"outside", []lint.TextEdit{{Offset: 5, EndOffset: 9}}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lint.ApplyEdits(src, tc.edits)
			if (err != nil) != tc.err {
				t.Fatalf("err %v, want error %v", err, tc.err)
			}
			if err == nil && string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFixKinds lists, for the report, which rules carry fixes and
// whether they are safe, from the fixtures; every fixable rule listed in
// fixableRules must produce its fix on some fixture.
func TestFixKinds(t *testing.T) {
	kinds := map[string]map[bool]bool{}
	for _, dir := range fixtureDirs(t) {
		_, res := lintFixture(t, dir)
		for _, f := range res.Findings {
			for _, fx := range f.Fixes {
				if kinds[f.RuleID] == nil {
					kinds[f.RuleID] = map[bool]bool{}
				}
				kinds[f.RuleID][fx.Safe] = true
				for _, e := range fx.Edits {
					if e.Range.Start.Line < 1 || e.EndOffset < e.Offset {
						t.Errorf("%s: edit %+v has no range", f.RuleID, e)
					}
				}
			}
		}
	}
	var lines []string
	for _, id := range slices.Sorted(maps.Keys(kinds)) {
		lines = append(lines, fmt.Sprintf("%s safe=%v unsafe=%v", id, kinds[id][true], kinds[id][false]))
	}
	t.Logf("rules with fixes on the fixtures:\n%s", strings.Join(lines, "\n"))
	for _, id := range fixableRules {
		if kinds[id] == nil {
			t.Errorf("rule %s has a fix but no fixture shows it", id)
		}
	}
}

// fixableRules are the rules whose fixtures must show a fix.
var fixableRules = []string{
	"arg-ref-in-comment", "hook-env-undeclared", "hook-missing-docker-host", "hook-missing-proxy-env", "host-docker-internal",
	"missing-syntax-line", "proxy-env-override", "yaml11-boolean", "unused-suppression",
}

// TestSpecFixes: the fixes specification errors propose, applied to a
// fixed point: what each writes, and which need --unsafe-fixes.
func TestSpecFixes(t *testing.T) {
	const head = "# syntax=docker/sandbox-kit:3\n"
	tests := []struct {
		name, src, want string
		sel             lint.FixSelection
	}{
		{"schemaVersion that means 3", head + "schemaVersion: 3.0\nkind: mixin\n", head + "schemaVersion: \"3\"\nkind: mixin\n", lint.SafeFixes},
		{"misspelt key", head + "schemaVersion: \"3\"\nkind: mixin\ndescripton: A kit.  # keep\n", head + "schemaVersion: \"3\"\nkind: mixin\ndescription: A kit.  # keep\n", lint.SafeFixes},
		{"v2 spelling", head + "schemaVersion: \"3\"\nkind: mixin\nsourceURL: https://example.com\n", head + "schemaVersion: \"3\"\nkind: mixin\nsourceUrl: https://example.com\n", lint.SafeFixes},
		{"type rename that grants is unsafe", head + "schemaVersion: \"3\"\nkind: mixin\ncapabilities:\n  - type: 'com.docker.sandbox/netwrk-policy@1'\n    config: {runtime: {allow: [api.example.com]}}\n",
			head + "schemaVersion: \"3\"\nkind: mixin\ncapabilities:\n  - type: 'com.docker.sandbox/netwrk-policy@1'\n    config: {runtime: {allow: [api.example.com]}}\n", lint.SafeFixes},
		{"type rename with --unsafe-fixes", head + "schemaVersion: \"3\"\nkind: mixin\ncapabilities:\n  - type: 'com.docker.sandbox/netwrk-policy@1'\n    config: {runtime: {allow: [api.example.com]}}\n",
			head + "schemaVersion: \"3\"\nkind: mixin\ncapabilities:\n  - type: 'com.docker.sandbox/network-policy@1'\n    config: {runtime: {allow: [api.example.com]}}\n", lint.AllFixes},
		{"version 2 is not fixed", head + "schemaVersion: \"2\"\nkind: mixin\n", head + "schemaVersion: \"2\"\nkind: mixin\n", lint.AllFixes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lintf := func(ctx context.Context, overlay map[string][]byte) (*lint.Result, map[string][]byte, error) {
				text := []byte(tc.src)
				if b, ok := overlay["k.yaml"]; ok {
					text = b
				}
				k, err := spec.Parse("k.yaml", text)
				if err != nil {
					return nil, nil, err
				}
				r, err := lint.Run(ctx, []*spec.Kit{k}, lint.WithDisable("missing-metadata"))
				return r, map[string][]byte{"k.yaml": text}, err
			}
			res, err := lint.FixLoop(context.Background(), lintf, lint.FixOptions{Select: tc.sel})
			if err != nil {
				t.Fatal(err)
			}
			got := tc.src
			if b, ok := res.After["k.yaml"]; ok {
				got = string(b)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("after --fix (-want +got):\n%s", diff)
			}
		})
	}
}

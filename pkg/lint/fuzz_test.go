package lint_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// FuzzRun lints arbitrary descriptors, seeded with every fixture
// descriptor: Run must not panic, and every finding must have a rule and a
// position in the descriptor.
func FuzzRun(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*/*/*/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	more, _ := filepath.Glob("testdata/reshapr-mistakes/*/*.yaml")
	for _, p := range append(seeds, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		k, err := spec.Parse("k.yaml", src)
		if err != nil {
			return
		}
		res, err := lint.Run(context.Background(), []*spec.Kit{k})
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range res.Findings {
			if fd.RuleID == "" || fd.Message == "" || fd.Range.Start.File != "k.yaml" {
				t.Errorf("finding %+v", fd)
			}
		}
	})
}

// FuzzFix applies every safe fix to mutated descriptors, seeded with the
// fixture descriptors, and checks the promises of a safe fix: the fixed
// text still decodes when the original did, has no specification error
// code the original lacked more often, has the same permission surface,
// reaches a fixed point, and a second pass changes nothing. "Validates
// at least as well" counts errors: a rename may trade two errors for one
// (id: renamed to kind: leaves kind empty), never one for two.
func FuzzFix(f *testing.F) {
	f.Add([]byte("id:"))
	f.Add([]byte("i0s:\n-"))
	f.Add([]byte("schemaVersion: \"3\"\nkind: mixin\ncapabilities:\n  - type: 000000000000000000/lifecycle"))
	seeds, err := filepath.Glob("testdata/*/*/*/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		before, err := spec.Parse("k.yaml", src)
		if err != nil {
			return
		}
		lintf := func(base []byte) lint.LintFunc {
			return func(ctx context.Context, overlay map[string][]byte) (*lint.Result, map[string][]byte, error) {
				text := base
				if b, ok := overlay["k.yaml"]; ok {
					text = b
				}
				k, err := spec.Parse("k.yaml", text)
				if err != nil {
					return nil, nil, err
				}
				res, err := lint.Run(ctx, []*spec.Kit{k})
				return res, map[string][]byte{"k.yaml": text}, err
			}
		}
		res, err := lint.FixLoop(context.Background(), lintf(src), lint.FixOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fixed, ok := res.After["k.yaml"]
		if !ok {
			return
		}
		if !res.Converged {
			t.Fatalf("no fixed point after %d passes", res.Passes)
		}
		after, err := spec.Parse("k.yaml", fixed)
		if err != nil {
			t.Fatal(err)
		}
		if before.Descriptor != nil && after.Descriptor == nil {
			t.Fatalf("fixed text no longer decodes:\n%s", fixed)
		}
		if was, is := before.Validate().Errors, after.Validate().Errors; len(is) > len(was) {
			t.Fatalf("fixing added errors (%d, was %d): %v\n%s\n---\n%s", len(is), len(was), is, src, fixed)
		}
		if before.Descriptor != nil {
			if b, a := spec.SurfaceOf(before.Descriptor).String(), spec.SurfaceOf(after.Descriptor).String(); b != a {
				t.Fatalf("a safe fix changed the surface: %s -> %s", b, a)
			}
		}
		again, err := lint.FixLoop(context.Background(), lintf(fixed), lint.FixOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(again.After) != 0 {
			t.Fatalf("a second pass changed more:\n%s\n---\n%s", fixed, again.After["k.yaml"])
		}
	})
}

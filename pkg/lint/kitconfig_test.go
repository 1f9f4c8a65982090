package lint_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

func TestWithKitConfig(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"a/.kitsmith.yaml":   "severity: {unsized-volume: error}\n",
		"a/one/one.yaml":     noisyKit,
		"a/two/two.yaml":     noisyKit,
		"b/.kitsmith.yaml":   "disable: [unsized-volume]\n",
		"b/three/three.yaml": noisyKit,
		"c/four/four.yaml":   noisyKit, // no configuration: the defaults
	})
	var kits []*spec.Kit
	for _, d := range []string{"a/one", "b/three", "c/four", "a/two"} {
		k, err := spec.LoadPath(filepath.Join(root, d))
		if err != nil {
			t.Fatal(err)
		}
		kits = append(kits, k)
	}
	res, err := lint.Run(context.Background(), kits, lint.WithKitConfig())
	if err != nil {
		t.Fatal(err)
	}
	type got struct{ Kit, Rule, Severity string }
	var findings []got
	for _, f := range res.Findings {
		if f.RuleID == "unsized-volume" {
			rel, _ := filepath.Rel(root, f.Range.Start.File)
			findings = append(findings, got{filepath.Dir(rel), f.RuleID, f.Severity.String()})
		}
	}
	want := []got{
		{"a/one", "unsized-volume", "error"}, // a/.kitsmith.yaml raises it
		{"a/two", "unsized-volume", "error"}, // the same file, read once
		{"c/four", "unsized-volume", "info"}, // no file: the default
	} // b/.kitsmith.yaml disables it for three
	if diff := cmp.Diff(want, findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if len(res.Kits) != 4 {
		t.Errorf("kits %v, want all four", res.Kits)
	}

	if _, err := lint.Run(context.Background(), kits, lint.WithKitConfig(), lint.WithConfig(&lint.Config{})); !errors.Is(err, lint.ErrConfigConflict) {
		t.Errorf("WithKitConfig with WithConfig: %v, want ErrConfigConflict", err)
	}
	writeFiles(t, root, map[string]string{"b/.kitsmith.yaml": "disable: [unsized-volum]\n"})
	if _, err := lint.Run(context.Background(), kits, lint.WithKitConfig()); !errors.Is(err, lint.ErrUnknownRule) {
		t.Errorf("a found configuration naming an unknown rule: %v, want ErrUnknownRule", err)
	}
}

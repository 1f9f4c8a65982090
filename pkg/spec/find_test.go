package spec_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

const findKit = "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\nname: k\n"

// findTree writes a tree of kits under a new directory and returns it.
func findTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range map[string]string{
		"kits/a/a.yaml":                findKit,
		"kits/a/scripts/setup.sh":      "echo\n",
		"kits/b/b.yaml":                findKit,
		"kits/two/one.yaml":            findKit, // two descriptors, neither named after the directory
		"kits/two/other.yaml":          findKit,
		"kits/.hidden/hidden.yaml":     findKit,
		"kits/node_modules/nm/nm.yaml": findKit,
		"kits/vendor/v/v.yaml":         findKit,
		"docs/notes.md":                "not a kit\n",
		"kits/a/notes.yaml":            "plain: yaml\n", // no syntax line: not a second descriptor
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFind(t *testing.T) {
	root := findTree(t)
	got, err := spec.Find(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i], _ = filepath.Rel(root, got[i])
	}
	want := []string{"kits/a", "kits/b", "kits/two/one.yaml", "kits/two/other.yaml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Find (-want +got):\n%s", diff)
	}
	// Hidden, node_modules and vendor are skipped below root, not as root.
	got, err = spec.Find(context.Background(), filepath.Join(root, "kits", "vendor", "v"))
	if err != nil || len(got) != 1 {
		t.Errorf("Find(vendor/v) = %v, %v; want the kit itself", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := spec.Find(ctx, root); !errors.Is(err, context.Canceled) {
		t.Errorf("Find with a done context: %v, want context.Canceled", err)
	}
}

func TestEnclosing(t *testing.T) {
	root := findTree(t)
	at := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	for _, tt := range []struct {
		name   string
		p      string
		stop   string
		want   string
		wantOK bool
	}{
		{name: "descriptor itself", p: "kits/a/a.yaml", stop: "", want: "kits/a/a.yaml", wantOK: true},
		{name: "file of a kit", p: "kits/a/scripts/setup.sh", stop: "", want: "kits/a/a.yaml", wantOK: true},
		{name: "kit directory", p: "kits/b", stop: "", want: "kits/b/b.yaml", wantOK: true},
		{name: "deleted file", p: "kits/a/scripts/gone/old.sh", stop: "", want: "kits/a/a.yaml", wantOK: true},
		{name: "outside any kit", p: "docs/notes.md", stop: ""},
		{name: "yaml that is no descriptor", p: "kits/a/notes.yaml", stop: "", want: "kits/a/a.yaml", wantOK: true},
		{name: "no higher than stop", p: "kits/a/scripts/setup.sh", stop: "kits/a/scripts"},
		{name: "ambiguous directory names no kit", p: "kits/two/readme.md", stop: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := spec.Enclosing(at(tt.p), at(tt.stop))
			if ok != tt.wantOK || ok && got != at(tt.want) {
				t.Errorf("Enclosing(%s) = %q, %v; want %q, %v", tt.p, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

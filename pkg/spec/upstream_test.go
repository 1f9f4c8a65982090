package spec

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestUpstreamExamples validates every kit directory under
// $KITSMITH_SPEC_EXAMPLES (for example a checkout of the specification's
// examples/) and expects each to be clean in the authored and effective
// modes; warnings are logged, not failed. It then breaks one line of a
// copy of an example and checks that the error points at that line.
func TestUpstreamExamples(t *testing.T) {
	root := os.Getenv("KITSMITH_SPEC_EXAMPLES")
	if root == "" {
		t.Skip("KITSMITH_SPEC_EXAMPLES is not set")
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(root, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			k, err := LoadPath(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []Mode{ModeAuthored, ModeEffective} {
				r := k.Validate(WithMode(m), WithKitArgs(requiredValues(k, PhaseCreate)), WithBuildArgs(requiredValues(k, PhaseBuild)))
				for _, e := range r.Errors {
					t.Errorf("%v: %v [%s]", m, e, e.Rule())
				}
				for _, w := range r.Warnings {
					t.Logf("%v: warning: %v [%s]", m, w, w.Rule())
				}
			}
		})
	}
	t.Logf("%d example kits", n)
	t.Run("a broken copy points at the broken line", func(t *testing.T) { checkBrokenCopy(t, root, entries) })
}

// checkBrokenCopy copies the first example whose descriptor has a
// credential phase line, changes that phase to one that does not exist,
// and expects exactly one error, on that line.
func checkBrokenCopy(t *testing.T, root string, entries []os.DirEntry) {
	t.Helper()
	for _, e := range entries {
		src := filepath.Join(root, e.Name(), e.Name()+".yaml")
		data, err := os.ReadFile(src)
		if err != nil {
			continue
		}
		i := bytes.Index(data, []byte("      phase: runtime\n"))
		if i < 0 {
			continue
		}
		line := 1 + bytes.Count(data[:i], []byte("\n"))
		broken := append(append(append([]byte{}, data[:i]...), "      phase: always\n"...), data[i+len("      phase: runtime\n"):]...)
		dir := filepath.Join(t.TempDir(), e.Name())
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, e.Name()))); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()+".yaml"), broken, 0o644); err != nil {
			t.Fatal(err)
		}
		k, err := LoadPath(dir)
		if err != nil {
			t.Fatal(err)
		}
		r := k.Validate()
		if len(r.Errors) != 1 || r.Errors[0].Range.Start.Line != line || r.Errors[0].Code != "phase" {
			t.Fatalf("%s with phase: always on line %d: got %v", e.Name(), line, r.Errors)
		}
		t.Logf("%s: %v", e.Name(), r.Errors[0])
		return
	}
	t.Skip("no example with a runtime credential phase")
}

// requiredValues supplies a value for every required arg of a phase, as a
// user creating the sandbox must: the first enum value, else "example".
func requiredValues(k *Kit, phase ArgPhase) map[string]string {
	out := map[string]string{}
	if k.Descriptor == nil {
		return out
	}
	for name, a := range k.Descriptor.Args {
		if !a.Required || a.Phase() != phase {
			continue
		}
		out[name] = "example"
		if len(a.Enum) > 0 {
			out[name] = a.Enum[0]
		}
	}
	return out
}

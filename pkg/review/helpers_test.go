package review

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// source parses a kit source body (after schemaVersion) as name.
func source(t *testing.T, name, body string) *Kit {
	t.Helper()
	k, err := spec.Parse(name, []byte(spec.SyntaxLine+"\nschemaVersion: \"3\"\n"+body))
	if err != nil || k.Descriptor == nil {
		t.Fatalf("%s: %v", name, err)
	}
	if rep := k.Validate(); !rep.OK() {
		t.Fatalf("%s does not validate: %v", name, rep.Err())
	}
	return &Kit{Name: name, Descriptor: k.Descriptor, Source: k}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// lines renders changes as "category: detail".
func lines(cs []Change) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Category+": "+c.Detail)
	}
	return out
}

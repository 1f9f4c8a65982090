package review

import (
	"path/filepath"
	"testing"

	goldenfile "github.com/kitsmith/kitsmith/internal/golden"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

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

// golden compares got with testdata/name, or rewrites it under
// KITSMITH_UPDATE_GOLDEN=1.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// lines renders changes as "category: detail".
func lines(cs []Change) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Category+": "+c.Detail)
	}
	return out
}

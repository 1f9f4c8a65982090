// Package golden compares test output with golden files and rewrites them
// on request.
//
// Golden files are rewritten instead of compared when the environment
// variable KITSMITH_UPDATE_GOLDEN is 1:
//
//	KITSMITH_UPDATE_GOLDEN=1 go test ./...
//
// An environment variable rather than a -update flag, so that one command
// refreshes every package: `go test ./... -update` fails in every test
// binary that does not define the flag.
//
// It is a test helper: only _test.go files import it.
package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Env is the environment variable that, set to 1, makes Check rewrite
// golden files instead of comparing with them.
const Env = "KITSMITH_UPDATE_GOLDEN"

// Update reports whether golden files are to be rewritten: Env is 1.
func Update() bool { return os.Getenv(Env) == "1" }

// Check compares got with the golden file at path and reports a difference
// as a test error. Under Update it writes got to path instead, creating
// the directories it needs. A missing golden file is a fatal error that
// says how to create it.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		Write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s=1 go test creates it)", err, Env)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; %s=1 go test rewrites it):\n%s", path, Env, diff)
	}
}

// Write writes data to path, creating its directory; a failure is fatal.
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgHint: a kit arg without its phase's value is reported in the
// library's words, which name no flag, and the command adds the flag
// that supplies it; a kit given its values gets no hint.
func TestArgHint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "argkit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	kit := "schemaVersion: \"3\"\nkind: mixin\ndescription: \"x ${{ kit.args.token }}\"\nargs:\n" +
		"  token: {required: true, env: TOKEN}\n  cache: {buildArg: CACHE, default: \"a\"}\n"
	if err := os.WriteFile(filepath.Join(dir, "argkit.yaml"), []byte(kit), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		message  string // in the library's words
		hint     string // "" for none
		noHintOf string
	}{
		{name: "a required create arg", args: []string{"resolve", dir},
			message: "supply a create-phase value for it", hint: "Pass it with --kit-arg token=…."},
		{name: "a build arg given at create", args: []string{"resolve", "--kit-arg", "token=t", "--kit-arg", "cache=1", dir},
			message: "supply it as a build-phase value", hint: "Pass it with --build-arg cache=…."},
		{name: "every value given", args: []string{"resolve", "--set", "--kit-arg", "token=t", dir}, noHintOf: "Pass it with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, _ := runCLI(t, tt.args...)
			all := stdout + stderr
			if !strings.Contains(all, tt.message) || !strings.Contains(stderr, tt.hint) {
				t.Errorf("want %q and the hint %q\nstdout:\n%s\nstderr:\n%s", tt.message, tt.hint, stdout, stderr)
			}
			for _, line := range strings.Split(all, "\n") {
				if strings.Contains(line, tt.message) && tt.message != "" && strings.Contains(line, "--") {
					t.Errorf("the library's message names a flag: %s", line)
				}
			}
			if tt.noHintOf != "" && strings.Contains(stderr, tt.noHintOf) {
				t.Errorf("a hint without an arg error:\n%s", stderr)
			}
		})
	}
}

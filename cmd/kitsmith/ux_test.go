package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNewcomerHints checks the hints a first run meets.
func TestNewcomerHints(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"schema without a version", []string{"schema", "network-policy"}, []string{"did you mean network-policy@1 or network-policy@2?"}},
		{"a look-alike: an unknown schema", []string{"schema", "nope"}, []string{"see 'kitsmith schema --list'"}},
		{"--progress tty without a terminal", []string{"build", "--progress", "tty", "--output", "oci:" + out, "../../kits/outside"}, []string{"--progress tty:", "use --progress plain"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want 2", code)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

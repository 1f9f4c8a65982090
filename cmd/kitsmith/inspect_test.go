package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestInspectGolden(t *testing.T) {
	r := newTestKits(t)
	tests := []struct {
		golden string
		code   int
		json   bool
		args   []string
	}{
		{"inspect/tool-layout.txt", exitOK, false, []string{"inspect", "oci:$DIR/tool"}},
		{"inspect/tool-layout.json", exitOK, true, []string{"inspect", "--format", "json", "oci:$DIR/tool:1.0.0"}},
		{"inspect/shell-registry-arm64.txt", exitOK, false, []string{"inspect", "--platform", "linux/arm64", "$REGISTRY/kits/shell:1.0.0"}},
		{"inspect/shell-registry-arm64.json", exitOK, true, []string{"inspect", "--platform", "linux/arm64/v8", "--format", "json", "$REGISTRY/kits/shell:1.0.0"}},
		{"inspect/docker-classic.txt", exitOK, false, []string{"inspect", "$REGISTRY/kits/docker-classic:1.0.0"}},
		{"inspect/no-platform.txt", exitUsage, false, []string{"inspect", "--platform", "linux/s390x", "oci:$DIR/tool"}},
		{"inspect/missing-archive.txt", exitUsage, false, []string{"inspect", "oci-archive:$DIR/nothing.tar"}},
		{"inspect/two-refs.txt", exitUsage, false, []string{"inspect", "oci:$DIR/tool", "oci:$DIR/shell"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			out := r.runGolden(t, tt.golden, tt.code, tt.args...)
			if tt.json && !json.Valid([]byte(out)) {
				t.Errorf("--format json printed invalid JSON")
			}
		})
	}
}

func TestInspectPlatformCompletion(t *testing.T) {
	r := newTestKits(t)
	stdout, _, code := runCLI(t, r.expand([]string{"__complete", "inspect", "oci:$DIR/shell", "--platform", ""})...)
	if code != exitOK {
		t.Fatalf("completion exits %d", code)
	}
	if !strings.HasPrefix(stdout, "linux/amd64\nlinux/arm64\n:4\n") {
		t.Errorf("--platform completion = %q, want the layout's two platforms", stdout)
	}
}

package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSatisfiedBy(t *testing.T) {
	tests := []struct {
		provide, require string
		want             bool
	}{
		{"gh@2.1", "gh", true},
		{"gh", "gh", true},
		{"gh", "gh >= 1", false}, // unversioned meets only unconstrained
		{"gh@2.1", "gh >= 2, < 3", true},
		{"gh@3.0", "gh >= 2, < 3", false},
		{"com.docker.kit/gh@1", "gh = 1", true}, // bare names normalize
		{"io.example/gh@1", "gh", false},
		{"gh@1.0.0", "gh > 1.0", true}, // 1.0 < 1.0.0
	}
	for _, tt := range tests {
		t.Run(tt.provide+" meets "+tt.require, func(t *testing.T) {
			p, err := ParseProvide(tt.provide)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ParseRequire(tt.require)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.SatisfiedBy(p); got != tt.want {
				t.Errorf("SatisfiedBy = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEffectiveVersion(t *testing.T) {
	d := &Descriptor{Version: "0.9"}
	tests := []struct{ ref, want string }{
		{"example.com/kits/gh:1.2", "1.2"},
		{"example.com/kits/gh:v1.2.3", "1.2.3"},
		{"example.com/kits/gh:latest", "0.9"},
		{"example.com/kits/gh", "0.9"},
		{"example.com/kits/gh@sha256:" + repeat64("a"), "0.9"},
	}
	for _, tt := range tests {
		if got := EffectiveVersion(tt.ref, d); got != tt.want {
			t.Errorf("EffectiveVersion(%q) = %q, want %q", tt.ref, got, tt.want)
		}
	}
}

func repeat64(s string) string {
	out := ""
	for range 64 {
		out += s
	}
	return out
}

func TestSameVolume(t *testing.T) {
	tests := []struct {
		name string
		a, b Volume
		want bool
	}{
		{"volume@1/matching-requests-merge units", Volume{Path: "/c", Size: "1g"}, Volume{Path: "/c/", Size: "1024MiB"}, true},
		{"decimal sizes", Volume{Path: "/c", Size: "1.5GiB"}, Volume{Path: "/c", Size: "1536m"}, true},
		{"modes without leading zeros", Volume{Path: "/c", Mode: "0755"}, Volume{Path: "/c", Mode: "755"}, true},
		{"volume@1/no-silent-merge size", Volume{Path: "/c", Size: "1g"}, Volume{Path: "/c", Size: "2g"}, false},
		{"one unsized", Volume{Path: "/c", Size: "1g"}, Volume{Path: "/c"}, false},
		{"tmpfs differs", Volume{Path: "/c", Tmpfs: true}, Volume{Path: "/c"}, false},
		{"unparseable size", Volume{Path: "/c", Size: "lots"}, Volume{Path: "/c", Size: "lots"}, false},
		{"other path", Volume{Path: "/c"}, Volume{Path: "/d"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameVolume(tt.a, tt.b); got != tt.want {
				t.Errorf("SameVolume = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestExpandDescriptor(t *testing.T) {
	k, err := Parse("x.yaml", []byte(`schemaVersion: "3"
kind: mixin
description: port ${{ kit.args.port }} of ${{ kit.args.name }}
capabilities:
  - type: com.docker.sandbox/port@1
    config: {container: "${{ kit.args.port }}"}
  - type: com.docker.sandbox/volume@1
    config: {path: /data, size: "${{ kit.args.port }}"}
`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ExpandDescriptor(k.Descriptor, map[string]string{"port": "8080"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("port 8080 of ${{ kit.args.name }}", got.Description); diff != "" {
		t.Errorf("description (-want +got):\n%s", diff)
	}
	if c := got.Capabilities[0].Config["container"]; c != float64(8080) {
		t.Errorf("a whole reference in a config takes its type: container = %#v, want 8080", c)
	}
	if s := got.Capabilities[1].Config["size"]; s != "8080" {
		t.Errorf("volume size stays text: %#v", s)
	}
	if k.Descriptor.Description == got.Description {
		t.Error("ExpandDescriptor modified its input")
	}
}

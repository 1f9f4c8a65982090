package artifact

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// parseDescriptor decodes a YAML descriptor for a test.
func parseDescriptor(t *testing.T, src string) *spec.Descriptor {
	t.Helper()
	k, err := spec.Parse("/usr/share/sandbox/kit/test/kit.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if k.Descriptor == nil {
		t.Fatalf("descriptor does not decode: %v", k.Validate().Err())
	}
	return k.Descriptor
}

func TestAnnotations(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		builtBy *BuiltBy
		created string
		want    map[string]string
	}{
		{
			name: "minimal mixin, no capabilities, no built-by",
			src:  "schemaVersion: \"3\"\nkind: mixin\nprovides: [\"tool@1.0\"]\n",
			want: map[string]string{
				AnnotationDescriptor:    `{"schemaVersion":"3","kind":"mixin","provides":["tool@1.0"]}`,
				AnnotationSchemaVersion: "3",
				AnnotationVersion:       "1.0",
			},
		},
		{
			name: "every derived key, sorted capabilities, built-by and created",
			src: `schemaVersion: "3"
kind: mixin
displayName: Tool
description: A tool.
author: Jane
sourceUrl: https://example.com/tool
version: "2.1.0"
licenses: [MIT, Apache-2.0]
provides: ["tool@9"]
capabilities:
  - type: com.docker.sandbox/long-running@1
  - group:
      capabilities:
        - type: com.docker.sandbox/agent-skills@1
          config: {paths: [/home/agent/skills]}
  - type: com.docker.sandbox/long-running@1
`,
			builtBy: &BuiltBy{Name: "kitsmith", Version: "v0.1.0", Revision: "abc"},
			created: "1970-01-01T00:00:00Z",
			want: map[string]string{
				AnnotationDescriptor:    `{"schemaVersion":"3","displayName":"Tool","author":"Jane","description":"A tool.","sourceUrl":"https://example.com/tool","version":"2.1.0","licenses":["MIT","Apache-2.0"],"kind":"mixin","provides":["tool@9"],"capabilities":[{"type":"com.docker.sandbox/long-running@1"},{"group":{"capabilities":[{"type":"com.docker.sandbox/agent-skills@1","config":{"paths":["/home/agent/skills"]}}]}},{"type":"com.docker.sandbox/long-running@1"}]}`,
				AnnotationSchemaVersion: "3",
				AnnotationCapabilities:  "com.docker.sandbox/agent-skills@1,com.docker.sandbox/long-running@1",
				AnnotationBuiltBy:       `{"name":"kitsmith","version":"v0.1.0","revision":"abc"}`,
				AnnotationTitle:         "Tool",
				AnnotationDescription:   "A tool.",
				AnnotationAuthors:       "Jane",
				AnnotationSource:        "https://example.com/tool",
				AnnotationLicenses:      "MIT,Apache-2.0",
				AnnotationVersion:       "2.1.0",
				AnnotationCreated:       "1970-01-01T00:00:00Z",
			},
		},
		{
			name:    "built-by without revision",
			src:     "schemaVersion: \"3\"\nkind: mixin\n",
			builtBy: &BuiltBy{Name: "kitsmith", Version: "dev"},
			want: map[string]string{
				AnnotationDescriptor:    `{"schemaVersion":"3","kind":"mixin"}`,
				AnnotationSchemaVersion: "3",
				AnnotationBuiltBy:       `{"name":"kitsmith","version":"dev"}`,
			},
		},
		{
			name: "provides disagree textually: no version key",
			src:  "schemaVersion: \"3\"\nkind: mixin\nprovides: [\"a@1.0\", \"b@1.0.0\"]\n",
			want: map[string]string{
				AnnotationDescriptor:    `{"schemaVersion":"3","kind":"mixin","provides":["a@1.0","b@1.0.0"]}`,
				AnnotationSchemaVersion: "3",
			},
		},
		{
			name: "derived and unversioned provides get no vote",
			src:  "schemaVersion: \"3\"\nkind: workload\nprovides: [\"deb/bash@5.2.15\", \"a\", \"b@3\", \"c@3\"]\n",
			want: map[string]string{
				AnnotationDescriptor:    `{"schemaVersion":"3","kind":"workload","provides":["deb/bash@5.2.15","a","b@3","c@3"]}`,
				AnnotationSchemaVersion: "3",
				AnnotationVersion:       "3",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Annotations(parseDescriptor(t, tt.src), tt.builtBy, tt.created)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Annotations() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnnotationsErrors(t *testing.T) {
	d := &spec.Descriptor{SchemaVersion: "3", Kind: "mixin"}
	tests := []struct {
		name    string
		d       *spec.Descriptor
		builtBy *BuiltBy
		created string
	}{
		{name: "nil descriptor"},
		{name: "created not RFC 3339", d: d, created: "1970-01-01 00:00:00"},
		{name: "created not a date", d: d, created: "2023-02-30T00:00:00Z"},
		{name: "built-by without version", d: d, builtBy: &BuiltBy{Name: "kitsmith"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Annotations(tt.d, tt.builtBy, tt.created); err == nil {
				t.Error("Annotations() succeeded, want an error")
			}
		})
	}
}

func TestValidCreated(t *testing.T) {
	tests := map[string]bool{
		"1970-01-01T00:00:00Z":          true,
		"2024-02-29T23:59:60.5+01:00":   true,
		"2024-06-01t12:00:00z":          true,
		"2023-02-29T00:00:00Z":          false,
		"2024-06-01T24:00:00Z":          false,
		"2024-06-01T12:00:00":           false,
		"2024-06-01":                    false,
		"Mon, 02 Jan 2006 15:04:05 MST": false,
	}
	for in, want := range tests {
		if got := ValidCreated(in); got != want {
			t.Errorf("ValidCreated(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestParseBuiltBy(t *testing.T) {
	tests := []struct {
		in      string
		want    *BuiltBy
		wantErr bool
	}{
		{in: `{"name":"kitsmith","version":"dev"}`, want: &BuiltBy{Name: "kitsmith", Version: "dev"}},
		{in: `{"name":"docker/sandbox-kit","version":"3.1.0","revision":"abc"}`, want: &BuiltBy{Name: "docker/sandbox-kit", Version: "3.1.0", Revision: "abc"}},
		{in: `{"name":"kitsmith"}`, wantErr: true},
		{in: `{"version":"1"}`, wantErr: true},
		{in: `kitsmith 1.0`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseBuiltBy(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrMalformedBuiltBy) {
					t.Errorf("ParseBuiltBy() error = %v, want ErrMalformedBuiltBy", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseBuiltBy() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

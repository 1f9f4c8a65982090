package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// TestDescriptorErrorPositions: the positions of an invalid kit's errors
// survive Build, through errors.As, as lint's and validate's do; an error
// that is no kit problem carries none.
func TestDescriptorErrorPositions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "broken")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\nversion: v1.2\n"
	if err := os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := spec.LoadPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		kit      *spec.Kit
		o        Options
		wantLine int // of the first spec.Error; 0: no spec.Errors
	}{
		{name: "invalid kit", kit: k, wantLine: 4},
		{name: "not a kit problem", kit: loadKit(t, "companion-workload")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(context.Background(), nil, tt.kit, tt.o, nil)
			if err == nil {
				t.Fatal("Build succeeded")
			}
			var errs spec.Errors
			var one *spec.Error
			gotErrs, gotOne := errors.As(err, &errs), errors.As(err, &one)
			if tt.wantLine == 0 {
				if gotErrs || gotOne {
					t.Errorf("errors.As found spec errors in %v", err)
				}
				return
			}
			if !gotErrs || !gotOne {
				t.Fatalf("errors.As(spec.Errors) %v, (*spec.Error) %v in %v", gotErrs, gotOne, err)
			}
			if errs[0].Range.Start.Line != tt.wantLine || errs[0] != one {
				t.Errorf("first error %v at line %d, want line %d", errs[0], errs[0].Range.Start.Line, tt.wantLine)
			}
			if _, ok := errors.AsType[*DescriptorError](err); !ok {
				t.Errorf("%v is no *DescriptorError", err)
			}
		})
	}
}

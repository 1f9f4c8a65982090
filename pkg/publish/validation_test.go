package publish

import (
	"errors"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// TestInvalidKitPositions: an invalid kit's validation report is kept in
// its result, and its errors, with their positions, are found through Run's
// error with errors.As; a kit that fails later carries a clean report and
// no spec errors.
func TestInvalidKitPositions(t *testing.T) {
	for _, tt := range []struct {
		name      string
		kit       string
		wantSpec  bool
		wantValid bool
	}{
		{name: "invalid kit", kit: "testdata/invalid", wantSpec: true},
		{name: "lint error", kit: "testdata/lint-error", wantValid: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			o := f.options(t)
			o.Tag = ref
			res, err, _ := run(t, []*spec.Kit{load(t, tt.kit)}, o)
			if err == nil {
				t.Fatal("Run succeeded")
			}
			kr := res.Kits[0]
			if kr.Validation == nil || kr.Validation.OK() != tt.wantValid {
				t.Fatalf("Validation = %+v, want one with OK() %v", kr.Validation, tt.wantValid)
			}
			for what, e := range map[string]error{"Run's error": err, "KitResult.Err": kr.Err} {
				var errs spec.Errors
				if got := errors.As(e, &errs); got != tt.wantSpec {
					t.Fatalf("errors.As(%s, spec.Errors) = %v, want %v (%v)", what, got, tt.wantSpec, e)
				}
				if tt.wantSpec && (len(errs) != len(kr.Validation.Errors) || errs[0].Range.Start.Line == 0) {
					t.Errorf("%s: spec errors %v, want the report's, with positions", what, errs)
				}
			}
			if tt.wantSpec && !errors.Is(err, ErrInvalidKit) {
				t.Errorf("%v does not wrap ErrInvalidKit", err)
			}
		})
	}
}

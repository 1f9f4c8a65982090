package spec

import (
	"errors"
	"strings"
	"testing"
)

// TestArgValueError: each way an arg lacks its phase's value is an
// *ArgValueError naming the arg and the phase, and no message names a
// command-line flag; an arg with a value and a declared one are not.
func TestArgValueError(t *testing.T) {
	args := map[string]Arg{
		"token": {Required: true},
		"cache": {BuildArg: "CACHE"},
		"mode":  {},
	}
	tests := []struct {
		name     string
		phase    ArgPhase
		supplied map[string]string
		want     []ArgValueError // Name and Phase
	}{
		{"required without a value", PhaseCreate, map[string]string{}, []ArgValueError{{Name: "token", Phase: PhaseCreate}}},
		{"a build arg given at create", PhaseCreate, map[string]string{"token": "t", "cache": "x"}, []ArgValueError{{Name: "cache", Phase: PhaseBuild}}},
		{"every value there", PhaseCreate, map[string]string{"token": "t", "mode": "m"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := ResolveArgs(args, tt.phase, tt.supplied)
			var got []ArgValueError
			for _, e := range errs {
				if strings.Contains(e.Msg, "--") {
					t.Errorf("message names a flag: %s", e.Msg)
				}
				var ae *ArgValueError
				if errors.As(e, &ae) {
					got = append(got, ArgValueError{Name: ae.Name, Phase: ae.Phase})
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("arg errors = %v, want %v (all: %v)", got, tt.want, errs)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("arg error %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
	u := unresolved("build", "cache")
	var ae *ArgValueError
	if err := error(&Error{Code: "arg-unresolved", Msg: u.Msg, Err: u}); !errors.As(err, &ae) || ae.Phase != PhaseBuild || strings.Contains(ae.Msg, "--") {
		t.Errorf("unresolved = %+v", ae)
	}
}

package spec

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestErrors(t *testing.T) {
	at := func(line, col int) Range { return Range{Start: Pos{File: "k.yaml", Line: line, Col: col}} }
	es := Errors{
		{Range: at(3, 1), Field: "b", Msg: "second"},
		{Range: at(1, 5), Field: "a", Msg: "first"},
		{Range: at(3, 1), Field: "b", Msg: "second"},
		{Msg: "no place"},
		{Range: Range{Start: Pos{File: "k.dockerfile"}}, Msg: "recipe", Err: fs.ErrNotExist},
	}
	es = es.Sort()
	want := "no place\nk.dockerfile: recipe\nk.yaml:1:5: first\nk.yaml:3:1: second"
	if diff := cmp.Diff(want, es.Error()); diff != "" {
		t.Errorf("Sort then Error (-want +got):\n%s", diff)
	}
	if !errors.Is(es, fs.ErrNotExist) {
		t.Error("errors.Is does not see through Errors and Error")
	}
	var e *Error
	if !errors.As(error(es), &e) || e.Msg != "no place" {
		t.Errorf("errors.As = %v", e)
	}
	if (&Error{Code: "c", Ref: "SPEC-v3 §6/x"}).Rule() != "SPEC-v3 §6/x" || (&Error{Code: "c"}).Rule() != "c" {
		t.Error("Rule prefers Ref, then Code")
	}
	var r *Report
	if !r.OK() || r.Err() != nil {
		t.Error("a nil report is OK")
	}
}

func TestPosOf(t *testing.T) {
	k, _ := Parse("k.yaml", []byte(kitSrc(`kind: mixin
capabilities:
  - type: com.example/a@1
    config:
      <<: &base {inherited: 1}
      list: [a, "b"]
`)))
	tests := []struct {
		field string
		key   bool
		want  string
	}{
		{"kind", false, "k.yaml:3:7"},
		{"kind", true, "k.yaml:3:1"},
		{"capabilities[0].config.list[1]", false, "k.yaml:8:17"},
		{"capabilities[0].config.inherited", false, "k.yaml:7:29"},
		{"capabilities[0].config.missing", false, "k.yaml:7:7"},
		{"capabilities[7]", false, "k.yaml:5:3"},
		{`args["a.b"]`, false, "k.yaml:2:1"},
	}
	for _, tc := range tests {
		got := k.PosOf(tc.field)
		if tc.key {
			got = k.KeyPosOf(tc.field)
		}
		if got.Start.String() != tc.want {
			t.Errorf("PosOf(%q, key=%v) = %s, want %s", tc.field, tc.key, got.Start, tc.want)
		}
	}
}

// SPEC-v3 §6: resolving arg values for a phase.
func TestResolveArgs(t *testing.T) {
	def := func(s string) *string { return &s }
	args := map[string]Arg{
		"v":     {Default: def("1.0"), BuildArg: "V", Pattern: `[0-9.]+`},
		"req":   {Required: true, Env: "REQ"},
		"mode":  {Default: def("fast"), Enum: []string{"fast", "slow"}},
		"empty": {Default: def("")},
		"none":  {},
		"bad":   {Default: def("x"), Enum: []string{"y"}},
	}
	got, errs := ResolveArgs(args, PhaseCreate, map[string]string{"req": "r", "mode": "slow", "v": "2"})
	want := map[string]string{"req": "r", "mode": "slow", "empty": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	var codes []string
	for _, e := range errs {
		codes = append(codes, e.Code+" "+e.Field)
	}
	if diff := cmp.Diff([]string{"arg-phase args.v", "arg-value args.bad"}, codes); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	got, errs = ResolveArgs(args, PhaseBuild, nil)
	if diff := cmp.Diff(map[string]string{"v": "1.0"}, got); diff != "" || len(errs) != 0 {
		t.Errorf("build values (-want +got):\n%s; errs %v", diff, errs)
	}
}

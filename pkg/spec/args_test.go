package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArgRefs(t *testing.T) {
	tests := []struct {
		in   string
		refs []ArgRef
		want string
	}{
		{in: "plain", want: "plain"},
		{in: "${{ kit.args.a }}", refs: []ArgRef{{0, 17, "a"}}, want: "A"},
		{in: "x-${{kit.args.b}}-${{ kit.args.nope }}", refs: []ArgRef{{2, 17, "b"}, {18, 38, "nope"}}, want: "x-B-${{ kit.args.nope }}"},
		{in: "${{ kit.env.a }} ${{ kit.args.1a }}", want: "${{ kit.env.a }} ${{ kit.args.1a }}"},
	}
	values := map[string]string{"a": "A", "b": "B"}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if diff := cmp.Diff(tc.refs, FindArgRefs(tc.in)); diff != "" {
				t.Errorf("FindArgRefs (-want +got):\n%s", diff)
			}
			got := ExpandArgRefs(tc.in, func(n string) (string, bool) { v, ok := values[n]; return v, ok })
			if got != tc.want {
				t.Errorf("ExpandArgRefs = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWholeArgRef(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"${{ kit.args.port }}", "port", true},
		{"${{kit.args.api_key}}", "api_key", true},
		{"x${{ kit.args.port }}", "", false},
		{"${{ kit.args.port }}/x", "", false},
		{"${{ kit.args.a }}${{ kit.args.b }}", "", false},
		{"${{ kit.args.my-arg }}", "", false},
		{"plain", "", false},
	}
	for _, tt := range tests {
		got, ok := WholeArgRef(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("WholeArgRef(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

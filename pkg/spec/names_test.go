package spec

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// SPEC-v3 §5: the provides and requires grammars and the version order.
func TestParseRequire(t *testing.T) {
	tests := []struct {
		in      string
		want    Require
		wantErr string
	}{
		{in: "gh", want: Require{Name: "gh"}},
		{in: " com.example/tool >=1.2,<2 ", want: Require{Name: "com.example/tool", Constraints: []Constraint{{">=", "1.2"}, {"<", "2"}}}},
		{in: "gh = 2.0-rc1", want: Require{Name: "gh", Constraints: []Constraint{{"=", "2.0-rc1"}}}},
		{in: "gh > 1.0, < 1.0.-", wantErr: "unsatisfiable constraints: > 1.0 and < 1.0.-"},
		{in: "gh > 1.0, <= 1.0.-", want: Require{Name: "gh", Constraints: []Constraint{{">", "1.0"}, {"<=", "1.0.-"}}}},
		{in: "gh = 1, = 2", wantErr: "unsatisfiable constraints: = 1 and = 2"},
		{in: "gh = 1, >= 2", wantErr: "= 1 conflicts with >= 2"},
		{in: "gh < 0", wantErr: "no version is < 0"},
		{in: "gh == 1", wantErr: `"==" is not a version operator`},
		{in: "gh ~1", wantErr: "invalid capability name"},
		{in: "gh >= ", wantErr: `constraint ">=" has no version`},
		{in: "gh >= v1", wantErr: `invalid version "v1"`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseRequire(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseRequire(%q) error = %v, want %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseRequire(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0", 0}, {"1.2", "1.10", -1}, {"010", "9", 1}, {"1.0", "1.0.0", -1},
		{"1.0.-", "1.0.0", -1}, {"2.0-rc1", "2.0", 1}, {"1.0", "1.0.-", -1},
		{"99999999999999999999999", "99999999999999999999998", 1},
	}
	for _, tc := range tests {
		if got := CompareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestParseProvide(t *testing.T) {
	tests := []struct {
		in   string
		want Provide
		ok   bool
	}{
		{"gh", Provide{Name: "gh"}, true},
		{" gh@1.2.3 ", Provide{Name: "gh", Version: "1.2.3"}, true},
		{"deb/jq@1.7", Provide{Name: "deb/jq", Version: "1.7"}, true},
		{"c++@17", Provide{Name: "c++", Version: "17"}, true},
		{"gh@", Provide{}, false},
		{"gh@v1", Provide{}, false},
		{"a/b/c", Provide{}, false},
		{"-gh", Provide{}, false},
	}
	for _, tc := range tests {
		got, err := ParseProvide(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseProvide(%q) = %+v, %v; want %+v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

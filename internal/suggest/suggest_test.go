package suggest

import "testing"

func TestClosest(t *testing.T) {
	ids := []string{"hook-env-undeclared", "host-docker-internal", "wildcard-allow"}
	tests := []struct {
		name string
		max  int
		want string
	}{
		{"host-docker-internl", 4, "host-docker-internal"},
		{"WILDCARD-ALLOW", 4, "wildcard-allow"},
		{"sourceURL", 3, ""},
		{"nothing-like-it", 4, ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.name, ids, tt.max); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance(kitten, sitting) = %d, want 3", d)
	}
}

package spec

import "testing"

func TestHostNameCovers(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*", "api.example.org", true},
		{"**", "*.example.org", true},
		{"api.example.org", "api.example.org", true},
		{"api.example.org", "www.example.org", false},
		{"**.example.org", "a.b.example.org", true},
		{"**.example.org", "example.org", false},
		{"**.example.org", "*.example.org", true},
		{"**.example.org", "*.a.example.org", true},
		{"**.example.org", "**.a.example.org", true},
		{"**.example.org", "**.example.org", true},
		{"**.example.org", "*.example.net", false},
		{"**.Example.ORG", "API.example.org.", true},
		{"api.example.org", "api.example.org,evil.com", false},
		{"*.example.org", "api.example.org", true},
		{"*.example.org", "a.b.example.org", false},
		{"*.example.org", "*.example.org", true},
		{"*.example.org", "**.example.org", false},
		{"*.example.org", "example.org", false},
	}
	for _, tt := range tests {
		if got := HostNameCovers(tt.pattern, tt.name); got != tt.want {
			t.Errorf("HostNameCovers(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

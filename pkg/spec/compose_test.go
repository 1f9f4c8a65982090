package spec

import "testing"

// volume@1/matching-requests-merge: equal configs after byte and octal
// normalisation merge; volume@1/no-silent-merge: the others do not.
func TestSameVolumeConfig(t *testing.T) {
	tests := []struct {
		a, b map[string]any
		want bool
	}{
		{map[string]any{"path": "/data"}, map[string]any{"path": "/data/"}, true},
		{map[string]any{"path": "/data", "size": "1g"}, map[string]any{"path": "/data", "size": "1024MiB"}, true},
		{map[string]any{"path": "/data", "size": "1.5k"}, map[string]any{"path": "/data", "size": "1536"}, true},
		{map[string]any{"path": "/data", "size": "1g"}, map[string]any{"path": "/data"}, false},
		{map[string]any{"path": "/data", "mode": "0755"}, map[string]any{"path": "/data", "mode": "755"}, true},
		{map[string]any{"path": "/data", "mode": "0755"}, map[string]any{"path": "/data"}, false},
		{map[string]any{"path": "/data", "tmpfs": true}, map[string]any{"path": "/data"}, false},
		{map[string]any{"path": "/data", "size": "lots"}, map[string]any{"path": "/data", "size": "lots"}, false},
	}
	for _, tc := range tests {
		if got := sameVolumeConfig(tc.a, tc.b); got != tc.want {
			t.Errorf("sameVolumeConfig(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

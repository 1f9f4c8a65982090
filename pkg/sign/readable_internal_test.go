package sign

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestReadable makes one readable line of sigstore-go's rejection texts.
func TestReadable(t *testing.T) {
	long := strings.Repeat("a reason that goes on ", 20)
	tests := []struct {
		name, in, reason, detail string
	}{
		{name: "plain", in: `expected SAN value "eve@example.com", got "dev@example.com"`, reason: `expected SAN value "eve@example.com", got "dev@example.com"`},
		{name: "byte dumps", in: "failed to verify log inclusion: calculated root [21 46 16 200 1 2 3 4 5 6 7 8 9] does not match expected root [1 2 3 4]",
			reason: "failed to verify log inclusion: calculated root 152e10c801020304… does not match expected root 01020304"},
		{name: "nil %w", in: fmt.Errorf("failed to verify timestamps: unable to verify signed timestamps: %w", error(nil)).Error(), reason: "failed to verify timestamps: unable to verify signed timestamps"},
		{name: "a list that is not bytes", in: "indexes [1 2 300 4] do not match", reason: "indexes [1 2 300 4] do not match"},
		{name: "long", in: long, reason: string([]rune(strings.TrimSpace(long))[:maxReason]) + "…", detail: strings.TrimSpace(long)},
		{name: "lines", in: "first\n  second", reason: "first second"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reason, detail := readable(errors.New(tt.in))
			if reason != tt.reason || detail != tt.detail {
				t.Errorf("readable(%q) =\n  %q, %q\nwant\n  %q, %q", tt.in, reason, detail, tt.reason, tt.detail)
			}
		})
	}
}

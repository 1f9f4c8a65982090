package sign_test

import (
	"testing"

	"github.com/kitsmith/kitsmith/pkg/sign"
)

func TestUnanchored(t *testing.T) {
	tests := []struct {
		expr, want string
		warn       bool
	}{
		{expr: `^dev@example\.com$`, want: `^dev@example\.com$`},
		{expr: `\Adev@example\.com\z`, want: `\Adev@example\.com\z`},
		{expr: `^https://github.com/acme/kits/`, want: `^https://github.com/acme/kits/`},
		{expr: `acme/kits`, want: `^acme/kits$`, warn: true},
		{expr: `@example\.com$`, want: `^@example\.com$`, warn: true},
		{expr: `^dev@example\.com`, want: `^dev@example\.com$`, warn: true},
		{expr: `^price\$`, want: `^price\$$`, warn: true},
		{expr: `^a@x\.org$|^b@x\.org$`, want: `^a@x\.org$|^b@x\.org$`},
		{expr: `^a@x\.org$|b@x\.org`, want: `^(?:^a@x\.org$|b@x\.org)$`, warn: true},
		{expr: `^(dev|ops)@example\.com$`, want: `^(dev|ops)@example\.com$`},
		{expr: `(`, want: `(`},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, warn := sign.Unanchored(tt.expr)
			if got != tt.want || warn != tt.warn {
				t.Errorf("Unanchored(%q) = %q, %v; want %q, %v", tt.expr, got, warn, tt.want, tt.warn)
			}
		})
	}
}

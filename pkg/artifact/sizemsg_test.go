package artifact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// TestVerifyingReaderSizeMessage: a blob shorter or longer than its
// descriptor says fails with a message naming both sizes.
func TestVerifyingReaderSizeMessage(t *testing.T) {
	body := []byte("hello, kit")
	sum := sha256.Sum256(body)
	h := v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(sum[:])}
	tests := []struct {
		size int64
		want string
	}{
		{size: 20, want: "is 10 bytes, its descriptor says 20"},
		{size: 4, want: "is at least 10 bytes, its descriptor says 4"},
	}
	for _, tc := range tests {
		_, err := io.ReadAll(newVerifyingReader(io.NopCloser(bytes.NewReader(body)), h, tc.size))
		if !errors.Is(err, ErrDigestMismatch) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("size %d: err = %v, want ErrDigestMismatch saying %q", tc.size, err, tc.want)
		}
	}
	if _, err := io.ReadAll(newVerifyingReader(io.NopCloser(bytes.NewReader(body)), h, 10)); err != nil {
		t.Errorf("matching blob: %v", err)
	}
}

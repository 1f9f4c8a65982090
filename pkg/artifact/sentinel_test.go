package artifact

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// TestSentinelsFolded: a bounded read and a file that is not regular fail
// with one sentinel each, whichever package reports it.
func TestSentinelsFolded(t *testing.T) {
	if _, err := readBounded(strings.NewReader("12345"), 4, "a blob"); !errors.Is(err, spec.ErrTooLarge) {
		t.Errorf("readBounded over its limit: %v, want spec.ErrTooLarge", err)
	}
	if _, err := readBounded(strings.NewReader("1234"), 4, "a blob"); err != nil {
		t.Errorf("readBounded at its limit: %v", err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := regular(f); !errors.Is(err, spec.ErrNotRegular) {
		t.Errorf("regular(FIFO) = %v, want spec.ErrNotRegular", err)
	}
	reg := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(reg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := os.Open(reg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := regular(g); err != nil {
		t.Errorf("regular(regular file) = %v", err)
	}
}

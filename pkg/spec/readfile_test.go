//go:build unix

package spec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestKitReadFile reads kit-relative files of a kit LoadPath loaded: a
// file inside is read and becomes a source file; escapes, FIFOs,
// directories, missing and oversized files are refused.
func TestKitReadFile(t *testing.T) {
	dir := t.TempDir()
	kitDir := filepath.Join(dir, "kit")
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(kitDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("kit.yaml", minimalMixin)
	write("scripts/setup.sh", "echo hi\n")
	write("../secret.txt", "outside\n")
	if err := os.Symlink("../secret.txt", filepath.Join(kitDir, "escape.sh")); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(kitDir, "fifo.sh"))
	big, err := os.Create(filepath.Join(kitDir, "big.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(maxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()

	k, err := LoadPath(kitDir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel     string
		want    string
		wantErr error // nil: read; errAny: any error
	}{
		{rel: "scripts/setup.sh", want: "echo hi\n"},
		{rel: "./scripts/../scripts/setup.sh", want: "echo hi\n"},
		{rel: "../secret.txt", wantErr: ErrOutsideKit},
		{rel: "/etc/passwd", wantErr: ErrOutsideKit},
		{rel: "escape.sh", wantErr: errAny},
		{rel: "fifo.sh", wantErr: ErrNotRegular},
		{rel: "scripts", wantErr: ErrNotRegular},
		{rel: "missing.sh", wantErr: fs.ErrNotExist},
		{rel: "big.sh", wantErr: ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() { got, err = k.ReadFile(tt.rel); close(done) }()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				t.Fatalf("ReadFile(%q) blocked", tt.rel)
			}
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("ReadFile: %v", err)
			case tt.wantErr == errAny && err == nil, tt.wantErr != nil && tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
				t.Fatalf("ReadFile error = %v, want %v", err, tt.wantErr)
			case tt.wantErr != nil:
				if _, ok := k.SourceFiles()[k.FilePath(tt.rel)]; ok {
					t.Errorf("a refused file is a source file")
				}
				return
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, string(k.SourceFiles()[filepath.Join(kitDir, "scripts", "setup.sh")])); diff != "" {
				t.Errorf("SourceFiles entry (-want +got):\n%s", diff)
			}
		})
	}
}

// errAny stands for any error in TestKitReadFile.
var errAny = errors.New("any error")

// TestKitReadFileFS reads through the fs.FS Load was given, from a kit in a
// subdirectory; a parsed kit has no files.
func TestKitReadFileFS(t *testing.T) {
	k, err := Load(mapFS(map[string]string{"kits/gh/gh.yaml": minimalMixin, "kits/gh/bin/run.sh": "exit 0\n"}), "kits/gh")
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.ReadFile("bin/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("exit 0\n", string(got)); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("kits/gh/bin/run.sh", k.FilePath("bin/run.sh")); diff != "" {
		t.Errorf("FilePath (-want +got):\n%s", diff)
	}
	p, err := Parse("gh.yaml", []byte(minimalMixin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReadFile("bin/run.sh"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a parsed kit: %v, want fs.ErrNotExist", err)
	}
}

func TestReadRegular(t *testing.T) {
	fsys := fstest.MapFS{
		"ok":   {Data: []byte("hello")},
		"big":  {Data: []byte("0123456789")},
		"fifo": {Mode: fs.ModeNamedPipe},
		"dev":  {Mode: fs.ModeDevice},
		"dir":  {Mode: fs.ModeDir},
	}
	tests := []struct {
		name    string
		want    string
		wantErr error
	}{
		{name: "ok", want: "hello"},
		{name: "big", wantErr: ErrFileTooLarge},
		{name: "fifo", wantErr: ErrNotRegular},
		{name: "dev", wantErr: ErrNotRegular},
		{name: "dir", wantErr: ErrNotRegular},
		{name: "missing", wantErr: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadRegular(fsys, tt.name, 8)
			if !errors.Is(err, tt.wantErr) || string(got) != tt.want {
				t.Errorf("ReadRegular(%s) = %q, %v; want %q, %v", tt.name, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

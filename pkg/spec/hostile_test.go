//go:build unix

package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadWithin runs LoadPath and fails the test if it takes more than two
// seconds (a FIFO opened for reading blocks until a writer comes).
func loadWithin(t *testing.T, dir string) (*Kit, error) {
	t.Helper()
	type result struct {
		k   *Kit
		err error
	}
	ch := make(chan result, 1)
	go func() {
		k, err := LoadPath(dir)
		ch <- result{k, err}
	}()
	select {
	case r := <-ch:
		return r.k, r.err
	case <-time.After(2 * time.Second):
		t.Fatalf("LoadPath(%s) blocked", dir)
		return nil, nil
	}
}

// mkfifo makes a FIFO and, at cleanup, opens it for writing without
// blocking so that a reader stuck on it (a failed test) is released.
func mkfifo(t *testing.T, name string) {
	t.Helper()
	if err := syscall.Mkfifo(name, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(name, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
}

// TestLoadRefusesFIFOs puts a FIFO where each kind of kit file goes and
// checks that loading neither blocks nor reads it.
func TestLoadRefusesFIFOs(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		fifo    string
		wantErr string // "" means: Load succeeds (the FIFO is not a candidate)
		noKit   bool
	}{
		{name: "descriptor", fifo: "k.yaml", wantErr: "not a regular file (a named pipe)"},
		{name: "yaml candidate", fifo: "other.yaml", noKit: true},
		{name: "dockerfile candidate", fifo: "Dockerfile", noKit: true},
		{name: "companion recipe", files: map[string]string{"k.yaml": minimalMixin}, fifo: "k.dockerfile",
			wantErr: "reading companion recipe"},
		{name: "named recipe", files: map[string]string{"k.yaml": minimalMixin + "dockerfile: r.dockerfile\n"}, fifo: "r.dockerfile",
			wantErr: "reading dockerfile:"},
		{name: "contentFile", fifo: "CONTEXT.md", wantErr: "reading contentFile", files: map[string]string{"k.yaml": minimalMixin +
			"capabilities:\n  - type: com.docker.sandbox/agent-context@1\n    config: {contentFile: CONTEXT.md}\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "k")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, body := range tc.files {
				writeFile(t, filepath.Join(dir, name), []byte(body))
			}
			mkfifo(t, filepath.Join(dir, tc.fifo))
			_, err := loadWithin(t, dir)
			switch {
			case tc.noKit:
				if !errors.Is(err, ErrNoKit) {
					t.Errorf("err = %v, want ErrNoKit (the FIFO is no candidate)", err)
				}
			case err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrNotRegular):
				t.Errorf("err = %v, want ErrNotRegular mentioning %q", err, tc.wantErr)
			}
			var fe *FileError
			if tc.wantErr != "" && tc.name != "descriptor" && !errors.As(err, &fe) {
				t.Errorf("err = %T, want a *FileError", err)
			}
		})
	}
}

// TestLoadHostileContent: explicit YAML tags, control characters, a huge
// Dockerfile. Each gets one error that says what is wrong, and where.
func TestLoadHostileContent(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		big     string // a file of 9 MB
		bigHead string
		want    []diagnostic
		msg     string
	}{
		{name: "binary tag on a string field", files: map[string]string{"k.yaml": minimalMixin + "displayName: !!binary aGVsbG8=\n"},
			want: []diagnostic{{Code: "yaml-tag", Pos: "4:14"}}, msg: "explicit YAML tag !!binary is not allowed"},
		{name: "local tag", files: map[string]string{"k.yaml": minimalMixin + "description: !x hi\n"},
			want: []diagnostic{{Code: "yaml-tag", Pos: "4:14"}}, msg: "explicit YAML tag !x is not allowed"},
		{name: "tag on a sequence", files: map[string]string{"k.yaml": minimalMixin + "licenses: !!set {MIT: null}\n"},
			want: []diagnostic{{Code: "yaml-tag", Pos: "4:11"}}, msg: "explicit YAML tag !!set"},
		{name: "str tag is plain", files: map[string]string{"k.yaml": minimalMixin + "displayName: !!str hello\n"}},
		{name: "control character", files: map[string]string{"k.yaml": minimalMixin + "displayName: \"a\x1b[2Jb\"\n"},
			want: []diagnostic{{Code: "yaml-syntax", Pos: "4:16"}}, msg: "control character U+001B"},
		{name: "DEL", files: map[string]string{"k.yaml": minimalMixin + "description: x\x7f\n"},
			want: []diagnostic{{Code: "yaml-syntax", Pos: "4:15"}}, msg: "U+007F"},
		{name: "9 MB Dockerfile", big: "Dockerfile", bigHead: "# kit:\n#   schemaVersion: \"3\"\n",
			want: []diagnostic{{Code: "file-too-large", Pos: "0:0"}}, msg: "over kitsmith's 8388608 byte limit"},
		{name: "9 MB Dockerfile without a kit block", big: "k.dockerfile",
			want: []diagnostic{{Code: "file-too-large", Pos: "0:0"}}, msg: "is 9437184 bytes, over kitsmith's 8388608 byte limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "k")
			for name, body := range tc.files {
				writeFile(t, filepath.Join(dir, name), []byte(body))
			}
			if tc.big != "" {
				writeFile(t, filepath.Join(dir, tc.big), []byte(tc.bigHead+strings.Repeat("x", 9<<20)))
			}
			k, err := loadWithin(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			got, msgs := diagnostics(k.Validate(), nil)
			for i := range got {
				got[i].Fix, got[i].Field = "", ""
			}
			if len(tc.want) == 0 && len(got) == 0 {
				return
			}
			if len(got) != len(tc.want) || len(got) > 0 && (got[0].Code != tc.want[0].Code || got[0].Pos != tc.want[0].Pos) {
				t.Errorf("diagnostics = %+v, want %+v (messages %q)", got, tc.want, msgs)
			}
			if len(msgs) == 0 || !strings.Contains(msgs[0], tc.msg) {
				t.Errorf("messages %q lack %q", msgs, tc.msg)
			}
		})
	}
}

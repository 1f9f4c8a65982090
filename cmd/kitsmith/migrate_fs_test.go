package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMigrateRefusesOutsideLinks: a link that leaves the kit is refused
// with exit 2 and an error naming the link, and nothing is written; the
// outside file's content never reaches the output.
func TestMigrateRefusesOutsideLinks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	writeFile(t, outside, "TOP SECRET\n")
	tests := []struct {
		name, link string
	}{
		{"home file", "files/home/passwd-link"},
		{"workspace file", "files/workspace/notes.txt"},
		{"home directory", "files/home/conf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyKit(t, "top-level")
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, tt.link)), 0o755); err != nil {
				t.Fatal(err)
			}
			target := outside
			if strings.HasSuffix(tt.link, "conf") {
				target = filepath.Dir(outside)
			}
			if err := os.Symlink(target, filepath.Join(dir, tt.link)); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "v3")
			stdout, stderr, code := runCLI(t, "migrate", "--output", out, dir)
			if code != 2 || !strings.Contains(stderr, tt.link) || !strings.Contains(stderr, "outside the kit") {
				t.Fatalf("exit %d, stderr %q; want 2 naming %s", code, stderr, tt.link)
			}
			if strings.Contains(stdout, "TOP SECRET") {
				t.Errorf("the outside file reached stdout")
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s was written (%v)", out, err)
			}
		})
	}
}

// TestMigrateOutputKeepsLinksAndModes: with --output, in-kit links are
// written as links and copied files keep their executable bit.
func TestMigrateOutputKeepsLinksAndModes(t *testing.T) {
	dir := copyKit(t, "files-tree")
	home := filepath.Join(dir, "files", "home")
	writeFile(t, filepath.Join(home, "bin-run"), "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(home, "bin-run"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("bin-run", filepath.Join(home, "again")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "v3")
	if _, stderr, code := runCLI(t, "migrate", "--output", out, dir); code > 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fi, err := os.Stat(filepath.Join(out, "files", "home", "bin-run"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("bin-run: %v, mode %v; want 0755", err, fi)
	}
	target, err := os.Readlink(filepath.Join(out, "files", "home", "again"))
	if err != nil || target != "bin-run" {
		t.Errorf("again: %q, %v; want a link to bin-run", target, err)
	}
}

// TestMigrateFIFOSpecAndSignal runs the real main on a kit whose spec.yaml
// is a FIFO: it ends on its own with exit 2 (the FIFO is refused unopened)
// and prints nothing on stdout. Should it still be running after a few
// seconds, as it was when it opened the FIFO and ignored the first signal,
// it gets SIGTERM and must end within a second.
func TestMigrateFIFOSpecAndSignal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "spec.yaml"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cmd := exec.Command(os.Args[0], "migrate", dir)
	cmd.Env = append(os.Environ(), "KITSMITH_TEST_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err = <-done:
			t.Errorf("still running 5 s in; it stopped on SIGTERM")
		case <-time.After(time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("still running a second after SIGTERM; stderr %q", stderr.String())
		}
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUsage || stdout.Len() > 0 || !strings.Contains(stderr.String(), "not a regular file") {
		t.Errorf("%v, stdout %q, stderr %q; want exit 2, no stdout, and the FIFO refused", err, stdout.String(), stderr.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the kit directory holds %d entries, want only the FIFO", len(entries))
	}
}

// TestMigrateForceRemovesStale: --force replaces an earlier migration
// whole: a file migrate wrote then but would not write now (the context
// body of instructions since removed, a files/home file since deleted) is
// removed, so it cannot leak into the kit or its image; other files stay.
func TestMigrateForceRemovesStale(t *testing.T) {
	dir := copyKit(t, "agent-instructions")
	out := filepath.Join(t.TempDir(), "v3")
	if err := os.MkdirAll(filepath.Join(dir, "files", "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "files", "home", ".old"), "old\n")
	if _, stderr, code := runCLI(t, "migrate", "--output", out, dir); code > 1 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"ctx-context.md", "files/home/.old"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatalf("the first run did not write %s: %v", f, err)
		}
	}
	writeFile(t, filepath.Join(out, "NOTES.md"), "mine\n")
	spec := "schemaVersion: \"2\"\nkind: sandbox\nname: ctx\nsandbox:\n  image: example.org/templates/shell:1\n  entrypoint: [agent]\n"
	writeFile(t, filepath.Join(dir, "spec.yaml"), spec)
	if err := os.Remove(filepath.Join(dir, "files", "home", ".old")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "files", "home", ".new"), "new\n")
	_, stderr, code := runCLI(t, "migrate", "--force", "--output", out, dir)
	if code > 1 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"ctx-context.md", "files/home/.old"} {
		if _, err := os.Lstat(filepath.Join(out, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale %s is still there (%v)", f, err)
		}
		if !strings.Contains(stderr, f) {
			t.Errorf("stderr does not say %s was removed: %s", f, stderr)
		}
	}
	for _, f := range []string{"ctx.yaml", "files/home/.new", "NOTES.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s is missing: %v", f, err)
		}
	}
}

// TestMigrateJSONErrorDocument: with --format json, an exit-2 error is
// also a JSON document on stdout.
func TestMigrateJSONErrorDocument(t *testing.T) {
	dir := copyKit(t, "top-level")
	writeFile(t, filepath.Join(dir, "spec.yaml"), "schemaVersion: \"1\"\nname: old\n")
	stdout, stderr, code := runCLI(t, "migrate", "--format", "json", dir)
	if code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, stderr)
	}
	var doc struct {
		FormatVersion int `json:"formatVersion"`
		Error         *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.FormatVersion != 1 || doc.Error == nil || !strings.Contains(doc.Error.Message, "v1 kit") {
		t.Errorf("stdout is not a JSON error document saying it is a v1 kit (%v):\n%s", err, stdout)
	}
	if !strings.Contains(stderr, "v1 kit") {
		t.Errorf("stderr lacks the error: %s", stderr)
	}
}

// TestMigrateApplyInterrupted: apply stopped by its context leaves
// nothing behind, not even the directories it made.
func TestMigrateApplyInterrupted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v3")
	ctx, cancel := context.WithCancel(context.Background())
	ws := []write{{path: filepath.Join(out, "a.yaml"), data: []byte("a\n")}, {path: filepath.Join(out, "files", "home", "x"), data: []byte("x\n")}}
	// cancel once the first file is staged: a context that reports done on
	// its second look
	stopping := &countingCtx{Context: ctx, after: 2, cancel: cancel}
	if err := apply(stopping, ws); !errors.Is(err, context.Canceled) {
		t.Fatalf("apply = %v, want context.Canceled", err)
	}
	if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is left behind (%v)", out, err)
	}
}

// countingCtx cancels itself the after-th time Err is called.
type countingCtx struct {
	context.Context
	after, n int
	cancel   func()
}

func (c *countingCtx) Err() error {
	if c.n++; c.n >= c.after {
		c.cancel()
	}
	return c.Context.Err()
}

// stuckFS is a file system whose every call blocks until unblock is
// closed, as a read of a FIFO or a hung network mount does.
type stuckFS struct{ unblock chan struct{} }

func (s stuckFS) Open(name string) (fs.File, error) {
	<-s.unblock
	return nil, fs.ErrNotExist
}

// TestMigrateStopsWhileStuck: the first interrupt stops migrate even while
// a read of the kit is stuck.
func TestMigrateStopsWhileStuck(t *testing.T) {
	s := stuckFS{unblock: make(chan struct{})}
	defer close(s.unblock)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := migrateFS(ctx, s, func() error { return nil }, "kit", "kit")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("returned before the interrupt: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("still running a second after the interrupt")
	}
}

package main

import (
	"bytes"
	"errors"
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
// is a FIFO and sends SIGTERM: it ends within a second with exit 2 and
// prints nothing on stdout (a FIFO is refused unopened, and the first
// signal stops migrate whatever it is doing).
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
	time.Sleep(300 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitUsage || stdout.Len() > 0 {
			t.Errorf("%v, stdout %q, stderr %q; want exit 2 and no stdout", err, stdout.String(), stderr.String())
		}
	case <-time.After(time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running a second after SIGTERM; stderr %q", stderr.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the kit directory holds %d entries, want only the FIFO", len(entries))
	}
}

package gitdate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// commitAt writes files into the work tree of r and commits them at when.
func commitAt(t *testing.T, r *git.Repository, root string, when time.Time, files map[string]string) {
	t.Helper()
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			t.Fatal(err)
		}
	}
	sig := &object.Signature{Name: "t", Email: "t@example.org", When: when}
	if _, err := wt.Commit("c", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
}

// TestLastCommitRunsNothing plants a repository whose config would run a
// program (pager, gpg program, signature display, fsmonitor) that creates
// a marker file, and proves LastCommit reads the time without running it.
func TestLastCommitRunsNothing(t *testing.T) {
	root := t.TempDir()
	r, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	t1, t2 := time.Unix(1700000000, 0), time.Unix(1700009999, 0)
	commitAt(t, r, root, t1, map[string]string{"kits/a/a.yaml": "a", "kits/b/b.yaml": "b"})
	commitAt(t, r, root, t2, map[string]string{"kits/b/b.yaml": "b2"})

	marker := filepath.Join(t.TempDir(), "ran")
	evil := filepath.Join(t.TempDir(), "evil.sh")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.OpenFile(filepath.Join(root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cfg.WriteString("[core]\n\tpager = " + evil + "\n\tfsmonitor = " + evil + "\n[gpg]\n\tprogram = " + evil +
		"\n[log]\n\tshowSignature = true\n[diff]\n\texternal = " + evil + "\n")
	if cerr := cfg.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		dir  string
		want time.Time
	}{
		{"kits/a", t1},
		{"kits/b", t2},
		{"kits", t2},
		{".", t2},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			got, err := LastCommit(context.Background(), filepath.Join(root, tc.dir))
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("LastCommit(%s) = %v, want %v", tc.dir, got, tc.want)
			}
		})
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a program configured in the kit's .git/config ran (marker %s: %v)", marker, err)
	}
}

func TestLastCommitOutsideRepository(t *testing.T) {
	if _, err := LastCommit(context.Background(), t.TempDir()); !errors.Is(err, ErrNotRepository) {
		t.Errorf("LastCommit outside a repository: %v, want ErrNotRepository", err)
	}
}

func TestLastCommitCancelled(t *testing.T) {
	root := t.TempDir()
	r, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	commitAt(t, r, root, time.Unix(1, 0), map[string]string{"a": "a"})
	commitAt(t, r, root, time.Unix(2, 0), map[string]string{"b": "b"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LastCommit(ctx, filepath.Join(root)); !errors.Is(err, context.Canceled) {
		t.Errorf("LastCommit with a cancelled context: %v", err)
	}
}

// TestLastCommitAgreesWithGit compares LastCommit with `git log -1
// --format=%ct -- DIR` on a history with a merge, when git is installed.
// The repository is made here, with no config that runs anything.
func TestLastCommitAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	n := 0
	gitRun := func(args ...string) string {
		t.Helper()
		n++
		date := fmt.Sprintf("@%d +0000", 1600000000+n*1000)
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun("init", "-q", "-b", "main")
	write("a/k.yaml", "1")
	write("b/k.yaml", "1")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "one")
	gitRun("checkout", "-q", "-b", "side")
	write("a/k.yaml", "2")
	gitRun("commit", "-q", "-am", "side changes a")
	gitRun("checkout", "-q", "main")
	write("b/k.yaml", "2")
	gitRun("commit", "-q", "-am", "main changes b")
	gitRun("merge", "-q", "--no-edit", "side")
	write("c.txt", "x")
	gitRun("add", "c.txt")
	gitRun("commit", "-q", "-m", "elsewhere")
	for _, dir := range []string{"a", "b", "."} {
		t.Run(dir, func(t *testing.T) {
			want := gitRun("log", "-1", "--format=%ct", "--", dir)
			got, err := LastCommit(context.Background(), filepath.Join(root, dir))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got.Unix()) != want {
				t.Errorf("LastCommit(%s) = %d, git log says %s", dir, got.Unix(), want)
			}
		})
	}
}

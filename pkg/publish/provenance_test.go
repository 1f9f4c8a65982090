package publish

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// commitFile writes name under dir and commits it at when.
func commitFile(t *testing.T, repo *git.Repository, dir, name string, when time.Time) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(when.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(filepath.ToSlash(name)); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.org", When: when}
	h, err := wt.Commit("change "+name, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// TestGitSource reads a kit's source from a repository made with go-git:
// the origin, HEAD's commit and branch, and the descriptor's path.
func TestGitSource(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{"https://example.org/acme/kits.git"}}); err != nil {
		t.Fatal(err)
	}
	commitFile(t, repo, dir, "kits/a/a.yaml", time.Unix(1700000000, 0))
	head := commitFile(t, repo, dir, "kits/b/b.yaml", time.Unix(1700003600, 0))

	src, err := gitSource(filepath.Join(dir, "kits", "a"), filepath.Join(dir, "kits", "a", "a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := Source{Repository: "https://example.org/acme/kits.git", Commit: head, Ref: "refs/heads/master", Path: "kits/a/a.yaml"}
	if src != want {
		t.Errorf("gitSource = %+v; want %+v", src, want)
	}
	outside := t.TempDir()
	if src, err := gitSource(outside, filepath.Join(outside, "k.yaml")); err != nil || src.Commit != "" || src.Path == "" {
		t.Errorf("gitSource outside a repository = %+v, %v; want the path alone", src, err)
	}
}

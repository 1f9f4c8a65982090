package publish

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/kitsmith/kitsmith/internal/gitdate"
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

// TestGitSource reads a kit's source and commit time from a repository
// made with go-git: the kit's last commit, not the repository's.
func TestGitSource(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{"https://example.org/acme/kits.git"}}); err != nil {
		t.Fatal(err)
	}
	kitTime := time.Unix(1700000000, 0)
	commitFile(t, repo, dir, "kits/a/a.yaml", kitTime)
	head := commitFile(t, repo, dir, "kits/b/b.yaml", kitTime.Add(time.Hour))

	// The commit time comes from internal/gitdate, as for kitsmith build.
	if got, err := gitdate.LastCommit(context.Background(), filepath.Join(dir, "kits", "a")); err != nil || !got.Equal(kitTime) {
		t.Errorf("LastCommit(kits/a) = %v, %v; want %v", got, err, kitTime)
	}
	if got, err := gitdate.LastCommit(context.Background(), filepath.Join(dir, "kits", "b")); err != nil || !got.Equal(kitTime.Add(time.Hour)) {
		t.Errorf("LastCommit(kits/b) = %v, %v; want %v", got, err, kitTime.Add(time.Hour))
	}
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

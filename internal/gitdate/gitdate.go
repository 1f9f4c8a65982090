// Package gitdate reads the time of the last commit that touched a
// directory, from the repository's files, without running git: a kit
// checked out from anywhere carries its own .git/config, whose
// core.pager, gpg.program or log.showSignature would run programs if git
// were asked.
package gitdate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxCommits bounds the history walked looking for the last change.
const maxCommits = 100_000

// ErrNotRepository reports a directory outside any git work tree.
var ErrNotRepository = errors.New("not in a git work tree")

// LastCommit returns the committer time of the last commit reachable from
// HEAD that changed dir's tracked contents, as `git log -1 -- dir` finds it
// (following the parent a merge kept dir from). It returns
// ErrNotRepository when dir is in no work tree, and another error when dir
// is not tracked at HEAD or the repository cannot be read.
func LastCommit(ctx context.Context, dir string) (time.Time, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return time.Time{}, err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return time.Time{}, ErrNotRepository
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("opening the git repository of %s: %w", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return time.Time{}, fmt.Errorf("opening the git work tree of %s: %w", dir, err)
	}
	root := wt.Filesystem.Root()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return time.Time{}, fmt.Errorf("%s is outside its work tree %s", dir, root)
	}
	head, err := repo.Head()
	if err != nil {
		return time.Time{}, fmt.Errorf("reading HEAD of %s: %w", root, err)
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the HEAD commit of %s: %w", root, err)
	}
	return lastChange(ctx, c, filepath.ToSlash(rel))
}

// lastChange walks from c to the first commit whose tree at rel differs
// from every parent's.
func lastChange(ctx context.Context, c *object.Commit, rel string) (time.Time, error) {
	h, err := treeAt(c, rel)
	if err != nil {
		return time.Time{}, err
	}
	if h.IsZero() {
		return time.Time{}, fmt.Errorf("%s is not tracked at HEAD", rel)
	}
	for range maxCommits {
		if err := ctx.Err(); err != nil {
			return time.Time{}, err
		}
		var same *object.Commit
		err := c.Parents().ForEach(func(p *object.Commit) error {
			ph, err := treeAt(p, rel)
			if err != nil {
				return err
			}
			if ph == h && same == nil {
				same = p
			}
			return nil
		})
		if err != nil {
			return time.Time{}, fmt.Errorf("walking the history of %s: %w", rel, err)
		}
		if same == nil {
			return c.Committer.When, nil
		}
		c = same
	}
	return time.Time{}, fmt.Errorf("no change to %s in the last %d commits", rel, maxCommits)
}

// treeAt returns the hash of rel's tree (or blob) in c, zero when c has
// no such path.
func treeAt(c *object.Commit, rel string) (plumbing.Hash, error) {
	t, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if rel == "." || rel == "" {
		return t.Hash, nil
	}
	e, err := t.FindEntry(rel)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return e.Hash, nil
}

package build_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// committedKit copies testdata/kits/decl-mixin into a new repository as
// kits/decl-mixin, committed at when, with a later commit elsewhere.
func committedKit(t *testing.T, when time.Time) string {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	commit := func(name string, data []byte, when time.Time) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(filepath.ToSlash(name)); err != nil {
			t.Fatal(err)
		}
		sig := &object.Signature{Name: "t", Email: "t@example.org", When: when}
		if _, err := wt.Commit("add "+name, &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"decl-mixin.yaml", "CONTEXT.md"} {
		src, err := os.ReadFile(filepath.Join("testdata", "kits", "decl-mixin", f))
		if err != nil {
			t.Fatal(err)
		}
		commit("kits/decl-mixin/"+f, src, when)
	}
	commit("README.md", []byte("later\n"), when.Add(time.Hour))
	return filepath.Join(dir, "kits", "decl-mixin")
}

func TestSourceDateEpoch(t *testing.T) {
	when := time.Unix(1700000000, 0)
	inGit := committedKit(t, when)
	outside := filepath.Join(t.TempDir(), "decl-mixin")
	if err := os.CopyFS(outside, os.DirFS(filepath.Join("testdata", "kits", "decl-mixin"))); err != nil {
		t.Fatal(err)
	}
	load := func(dir string) *spec.Kit {
		k, err := spec.LoadPath(dir)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, tt := range []struct {
		name    string
		kit     *spec.Kit
		env     string
		want    *int64
		wantErr error
	}{
		{name: "environment first", kit: load(inGit), env: "42", want: ptr(42)},
		{name: "environment zero", kit: load(outside), env: "0", want: ptr(0)},
		{name: "the kit's last commit, not the repository's", kit: load(inGit), want: ptr(when.Unix())},
		{name: "outside git", kit: load(outside), want: nil},
		{name: "not a number", kit: load(inGit), env: "yesterday", wantErr: build.ErrSourceDateEpoch},
		{name: "negative", kit: load(inGit), env: "-1", wantErr: build.ErrSourceDateEpoch},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := build.SourceDateEpoch(context.Background(), tt.kit, tt.env)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Errorf("SourceDateEpoch = %v, want %v", deref(got), deref(tt.want))
			}
		})
	}
}

// TestSourceDateEpochDigests pins why the resolution is exported: the
// three ways to leave a timestamp give three digests, and the resolved one
// is what a build in the checkout gives.
func TestSourceDateEpochDigests(t *testing.T) {
	ctx := context.Background()
	k, err := spec.LoadPath(committedKit(t, time.Unix(1700000000, 0)))
	if err != nil {
		t.Fatal(err)
	}
	digest := func(epoch *int64) string {
		res, err := build.Build(ctx, nil, k, build.Options{BuildArgs: map[string]string{"version": "1.2.0"}, SourceDateEpoch: epoch}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Index.Digest.String()
	}
	resolved, err := build.SourceDateEpoch(ctx, k, "")
	if err != nil || resolved == nil {
		t.Fatalf("SourceDateEpoch = %v, %v", resolved, err)
	}
	git, zero, unset := digest(resolved), digest(ptr(0)), digest(nil)
	if git == zero || git == unset || zero == unset {
		t.Errorf("digests: commit time %s, SOURCE_DATE_EPOCH=0 %s, unset %s; want three different", git, zero, unset)
	}
	if again := digest(ptr(1700000000)); again != git {
		t.Errorf("the commit time as SOURCE_DATE_EPOCH gives %s, the resolved epoch %s", again, git)
	}
}

func ptr(n int64) *int64 { return &n }

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// consumer is the program a kit author writes with kitsmith's packages
// alone to do what `kitsmith build` does for a declaration-only kit:
// validate it, lint it under its .kitsmith.yaml, and build it at the time
// the command takes (sourceDateEpoch is SOURCE_DATE_EPOCH as the program
// read it, else the kit's last git commit), so that it gets the command's
// digest.
func consumer(ctx context.Context, dir, sourceDateEpoch string, w io.Writer) (v1.Hash, error) {
	k, err := spec.LoadPath(dir)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := k.Validate().Err(); err != nil {
		return v1.Hash{}, err // a spec.Errors: every problem with its position
	}
	res, err := lint.Run(ctx, []*spec.Kit{k}, lint.WithKitConfig())
	if err != nil {
		return v1.Hash{}, err
	}
	if res.Fails(lint.SeverityError) {
		return v1.Hash{}, fmt.Errorf("%s: %d lint errors", k.Path, res.Count(lint.SeverityError))
	}
	epoch, err := build.SourceDateEpoch(ctx, k, sourceDateEpoch)
	if err != nil {
		return v1.Hash{}, err
	}
	b, err := build.Build(ctx, nil, k, build.Options{SourceDateEpoch: epoch}, nil)
	if err != nil {
		return v1.Hash{}, err
	}
	fmt.Fprintf(w, "%s: valid, %d lint errors, built %s for %d platforms\n",
		b.Stem, res.Count(lint.SeverityError), b.Route, len(b.Manifests))
	return b.Index.Digest, nil
}

// The consumer program on the repository's kits/outside: its digest is the
// one `kitsmith build kits/outside` prints (TestConsumerDigest).
func Example_consumer() {
	digest, err := consumer(context.Background(), "../../kits/outside", os.Getenv("SOURCE_DATE_EPOCH"), os.Stdout)
	if err != nil {
		log.Fatal(err)
	}
	_ = digest // what kitsmith build kits/outside prints
	// Output:
	// reshapr-outside: valid, 0 lint errors, built in-process for 2 platforms
}

// TestConsumerDigest checks that the consumer program and `kitsmith build`
// give one digest for kits/outside: in this checkout, in a git repository
// of its own (the kit's commit time), outside any repository, and with
// SOURCE_DATE_EPOCH set.
func TestConsumerDigest(t *testing.T) {
	inRepo := filepath.Join("..", "..", "kits", "outside")
	committed := filepath.Join(t.TempDir(), "outside")
	copyDir(t, inRepo, committed)
	commitAll(t, filepath.Dir(committed), time.Unix(1750000000, 0))
	outside := filepath.Join(t.TempDir(), "outside")
	copyDir(t, inRepo, outside)

	builtRE := regexp.MustCompile(`(?m)^built reshapr-outside \(mixin, in-process\): (sha256:[0-9a-f]{64})$`)
	digests := map[string]string{}
	for _, tt := range []struct {
		name, dir, epoch string
	}{
		{"this checkout", inRepo, ""},
		{"a repository of its own", committed, ""},
		{"outside git", outside, ""},
		{"SOURCE_DATE_EPOCH=0", committed, "0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lib, err := consumer(context.Background(), tt.dir, tt.epoch, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			e := env{}
			if tt.epoch != "" {
				e["SOURCE_DATE_EPOCH"] = tt.epoch
			}
			var out, errOut bytes.Buffer
			if code := run(context.Background(), []string{"build", "--progress", "quiet", tt.dir}, e, &out, &errOut); code != exitOK {
				t.Fatalf("kitsmith build: exit %d\n%s", code, errOut.String())
			}
			m := builtRE.FindStringSubmatch(out.String())
			if m == nil {
				t.Fatalf("no digest in kitsmith build's output:\n%s", out.String())
			}
			if m[1] != lib.String() {
				t.Errorf("kitsmith build gives %s, the consumer program %s", m[1], lib)
			}
			digests[tt.name] = m[1]
			t.Logf("%s: %s", tt.name, m[1])
		})
	}
	// The commit time matters: a kit's own repository, no repository and
	// SOURCE_DATE_EPOCH=0 are three builds.
	if a, b, c := digests["a repository of its own"], digests["outside git"], digests["SOURCE_DATE_EPOCH=0"]; a == b || a == c || b == c {
		t.Errorf("digests %s, %s, %s: want three different", a, b, c)
	}
}

// copyDir copies the regular files of src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// commitAll makes dir a git repository with everything in it committed at
// when.
func commitAll(t *testing.T, dir string, when time.Time) {
	t.Helper()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.org", When: when}
	if _, err := wt.Commit("kit", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
}

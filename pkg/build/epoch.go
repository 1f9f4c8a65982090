package build

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/kitsmith/kitsmith/internal/gitdate"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// ErrSourceDateEpoch reports a SOURCE_DATE_EPOCH value that is not a
// number of seconds since 1970-01-01.
var ErrSourceDateEpoch = errors.New("not a number of seconds since 1970-01-01")

// ParseSourceDateEpoch parses a SOURCE_DATE_EPOCH value: nil for "" (unset),
// else the non-negative number of seconds it states. Anything else is an
// error wrapping ErrSourceDateEpoch.
func ParseSourceDateEpoch(v string) (*int64, error) {
	if v == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("SOURCE_DATE_EPOCH=%q is %w", v, ErrSourceDateEpoch)
	}
	return &n, nil
}

// SourceDateEpoch returns the Options.SourceDateEpoch a build of k takes,
// resolved as kitsmith build and kitsmith publish resolve it, so that a
// library build gives the command's digest:
//
//  1. env, the value of the SOURCE_DATE_EPOCH environment variable as the
//     caller read it, when it is not empty (ParseSourceDateEpoch; a
//     malformed value is an error wrapping ErrSourceDateEpoch);
//  2. else the committer time of the last commit that touched k's
//     directory (k.Dir, as spec.LoadPath sets it), read from the repository's files (no git program runs,
//     so a kit's own .git/config cannot run one);
//  3. else nil: k is in no git work tree, is not tracked, or its history
//     cannot be read. Build then stamps every file with 0 and writes no
//     org.opencontainers.image.created annotation, which is not the digest
//     SOURCE_DATE_EPOCH=0 gives (that sets the annotation).
//
// k.Dir is an operating-system path, relative to the working directory
// when it is relative (a kit spec.Parse made has "."). The only error
// besides a malformed env is ctx's.
func SourceDateEpoch(ctx context.Context, k *spec.Kit, env string) (*int64, error) {
	if v, err := ParseSourceDateEpoch(env); v != nil || err != nil {
		return v, err
	}
	if k == nil {
		return nil, nil
	}
	t, err := gitdate.LastCommit(ctx, k.Dir)
	if err != nil {
		return nil, ctx.Err()
	}
	n := t.Unix()
	return &n, nil
}

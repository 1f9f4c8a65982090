package sign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Bounds on one Verify's examination of a kit's referrers. Anyone who may
// push to a kit's repository can add referrers to it, and publish's
// digests are predictable, so each bound keeps junk from costing more
// than a verification is worth while every referrer still gets its turn.
const (
	// MaxExaminedReferrers is the most referrers one Verify reads.
	MaxExaminedReferrers = 4096
	// MaxExaminedBytes bounds the manifest and bundle bytes one Verify
	// reads, all referrers together.
	MaxExaminedBytes = 256 << 20
	// MaxExamineTime bounds the examination as a whole; referrers not read
	// by then are counted as not examined.
	MaxExamineTime = 2 * time.Minute
	// ReferrerTimeout bounds reading one referrer, its manifest and its
	// bundle, unless WithReferrerTimeout says otherwise.
	ReferrerTimeout = 10 * time.Second
	// maxReferrerManifest bounds one referrer's manifest: a bundle
	// referrer's is about 1 KB.
	maxReferrerManifest = 256 << 10
	// examineJobs is how many referrers are read at once.
	examineJobs = 8
)

// errNotBundle marks a referrer that is not a Sigstore bundle (an SBOM,
// another artifact): it is skipped.
var errNotBundle = errors.New("not a Sigstore bundle")

// errNotExamined marks a referrer left unread at the examination bounds.
var errNotExamined = errors.New("not examined")

// isBundleType reports whether a media type is a Sigstore bundle's.
func isBundleType(mt string) bool {
	return strings.HasPrefix(mt, "application/vnd.dev.sigstore.bundle")
}

// markedBundle reports whether a listed descriptor says it is a Sigstore
// bundle, before anything is read: by its artifactType or cosign's
// annotations.
func markedBundle(d v1.Descriptor) bool {
	return isBundleType(d.ArtifactType) || d.Annotations[AnnotationBundleContent] != "" || d.Annotations[AnnotationBundlePredicateType] != ""
}

// examine reads the referrers refs of subject, those marked as bundles
// first, each on its own within timeout, and calls judge for each
// bundle read. It returns one Signature per bundle referrer, accepted or
// rejected (a referrer that could not be read is rejected with why), and
// fills c. Only the cancellation of ctx itself is an error.
func examine(ctx context.Context, st ReferrerStore, subject v1.Descriptor, refs []v1.Descriptor, timeout time.Duration, c *ReferrerCounts, judge func(b *Bundle, ref v1.Hash) Signature) ([]Signature, error) {
	order := slices.Clone(refs)
	slices.SortStableFunc(order, func(a, b v1.Descriptor) int {
		switch ma, mb := markedBundle(a), markedBundle(b); {
		case ma && !mb:
			return -1
		case mb && !ma:
			return 1
		}
		return 0
	})
	c.Listed = len(order)
	deadline, cancel := context.WithTimeout(ctx, MaxExamineTime)
	defer cancel()
	sigs := make([]*Signature, len(order))
	var (
		next     atomic.Int64
		budget   atomic.Int64
		examined atomic.Int64
		skipped  atomic.Int64
		wg       sync.WaitGroup
	)
	budget.Store(MaxExaminedBytes)
	for range min(examineJobs, len(order)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(order) || i >= MaxExaminedReferrers || deadline.Err() != nil || budget.Load() <= 0 {
					return
				}
				d := order[i]
				rctx, rcancel := context.WithTimeout(deadline, timeout)
				b, err := readBundle(rctx, st, subject, d, &budget, timeout)
				rcancel()
				if errors.Is(err, errNotExamined) || err != nil && deadline.Err() != nil {
					return // the budget or the examination's time ran out
				}
				examined.Add(1)
				switch {
				case errors.Is(err, errNotBundle):
					skipped.Add(1)
				case err != nil:
					s := rejected(d.Digest, "bundle", err)
					sigs[i] = &s
				default:
					s := judge(b, d.Digest)
					sigs[i] = &s
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.Examined, c.Skipped = int(examined.Load()), int(skipped.Load())
	c.NotExamined = c.Listed - c.Examined
	out := []Signature{}
	for _, s := range sigs {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out, nil
}

// readBundle reads the bundle of referrer d of subject, charging the
// bytes read to budget: errNotBundle for a referrer of another kind,
// errNotExamined when the budget or the examination's time is spent, and
// any other error for a referrer that cannot be read or is malformed.
func readBundle(ctx context.Context, st ReferrerStore, subject v1.Descriptor, d v1.Descriptor, budget *atomic.Int64, timeout time.Duration) (*Bundle, error) {
	if d.Size > maxReferrerManifest {
		if markedBundle(d) {
			return nil, fmt.Errorf("its manifest is %d bytes, over the %d byte limit of a signature referrer", d.Size, maxReferrerManifest)
		}
		return nil, errNotBundle
	}
	img, err := st.Referrer(ctx, d)
	if err != nil {
		return nil, readFailure(ctx, err, timeout)
	}
	raw, err := img.RawManifest()
	if err != nil {
		return nil, readFailure(ctx, err, timeout)
	}
	if budget.Add(-int64(len(raw))) < 0 {
		return nil, errNotExamined
	}
	var m v1.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("its manifest does not parse: %w", err)
	}
	if !isBundleType(m.ArtifactType) && !(len(m.Layers) == 1 && isBundleType(string(m.Layers[0].MediaType))) {
		return nil, errNotBundle
	}
	if len(m.Layers) != 1 || !isBundleType(string(m.Layers[0].MediaType)) {
		return nil, fmt.Errorf("a Sigstore bundle referrer has exactly one bundle layer, this one has %d layers", len(m.Layers))
	}
	if m.Subject != nil && m.Subject.Digest != subject.Digest {
		return nil, fmt.Errorf("its subject is %s, not this kit", m.Subject.Digest)
	}
	ld := m.Layers[0]
	if ld.Size > maxBundleSize {
		return nil, fmt.Errorf("its bundle is %d bytes, over the %d byte limit of a bundle", ld.Size, maxBundleSize)
	}
	if budget.Add(-ld.Size) < 0 {
		return nil, errNotExamined
	}
	l, err := img.LayerByDigest(ld.Digest)
	if err != nil {
		return nil, fmt.Errorf("reading its bundle: %w", readFailure(ctx, err, timeout))
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, fmt.Errorf("reading its bundle: %w", readFailure(ctx, err, timeout))
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxBundleSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading its bundle: %w", readFailure(ctx, err, timeout))
	}
	return ParseBundle(data)
}

// readFailure names a read that ran out of its referrer's time.
func readFailure(ctx context.Context, err error, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the registry did not serve it within %s: %w", timeout, err)
	}
	return err
}

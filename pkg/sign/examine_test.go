package sign_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"

	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// truncatedError is what a store whose listing stopped at its bound
// returns with the referrers it listed.
type truncatedError struct{}

func (truncatedError) Error() string   { return "listing stopped at its bound" }
func (truncatedError) Truncated() bool { return true }

// orderStore records the order referrers are read in and can report its
// listing as truncated.
type orderStore struct {
	*signtest.Store
	truncated bool
	mu        sync.Mutex
	read      []v1.Hash
}

func (s *orderStore) Referrers(ctx context.Context, subject v1.Descriptor) ([]v1.Descriptor, error) {
	list, err := s.Store.Referrers(ctx, subject)
	if err == nil && s.truncated {
		err = fmt.Errorf("listing: %w", truncatedError{})
	}
	return list, err
}

func (s *orderStore) Referrer(ctx context.Context, d v1.Descriptor) (v1.Image, error) {
	s.mu.Lock()
	s.read = append(s.read, d.Digest)
	s.mu.Unlock()
	return s.Store.Referrer(ctx, d)
}

// TestVerifyExamination: a listing cut at the store's bound is still
// examined and said to be cut; referrers that are not signatures are
// counted as skipped; the result counts what was listed and examined.
func TestVerifyExamination(t *testing.T) {
	f := newFixture(t)
	for _, truncated := range []bool{false, true} {
		t.Run(fmt.Sprintf("truncated=%v", truncated), func(t *testing.T) {
			k := kit(t)
			st := &orderStore{Store: signtest.NewStore(), truncated: truncated}
			for i := range 40 {
				sbom, err := mutate.Append(empty.Image, mutate.Addendum{Layer: static.NewLayer([]byte(fmt.Sprintf(`{"sbom":%d}`, i)), "application/spdx+json")})
				if err != nil {
					t.Fatal(err)
				}
				sbom = mutate.Subject(sbom, k).(v1.Image)
				if _, err := st.PushReferrer(context.Background(), k, sbom); err != nil {
					t.Fatal(err)
				}
			}
			f.signed(t, st, k, k, signtest.Cert{})
			res, err := verifierFor(t, f.trust).Verify(context.Background(), st, k, devPolicy)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			want := sign.ReferrerCounts{Listed: 41, Examined: 41, Skipped: 40, Truncated: truncated}
			if res.Referrers != want || len(res.Signatures) != 1 || !res.Signatures[0].Accepted {
				t.Errorf("referrers %+v, signatures %+v; want %+v and one accepted", res.Referrers, res.Signatures, want)
			}
			// The signature, marked by cosign's annotations, is taken first
			// although it was pushed last (several are read at once, so it is
			// among the first reads, not necessarily the first).
			if at := slices.Index(st.read, res.Signatures[0].Referrer); at < 0 || at >= 16 {
				t.Errorf("the signature was read %d-th of %d; want it among the first", at+1, len(st.read))
			}
		})
	}
}

// TestVerifyStoreFailurePerReferrer: a referrer the store cannot read is
// one rejection with its reason; the valid signature beside it is
// accepted.
func TestVerifyStoreFailurePerReferrer(t *testing.T) {
	f := newFixture(t)
	k := kit(t)
	st := &failingStore{Store: signtest.NewStore()}
	f.signed(t, st, k, k, signtest.Cert{})
	f.signed(t, st, k, k, signtest.Cert{})
	list, _ := st.Referrers(context.Background(), k)
	st.fail = list[0].Digest
	res, err := verifierFor(t, f.trust).Verify(context.Background(), st, k, devPolicy)
	if err != nil || len(res.Signatures) != 2 {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
	for _, s := range res.Signatures {
		if s.Referrer == st.fail && (s.Accepted || !strings.Contains(s.Reason, "BLOB_UNKNOWN")) {
			t.Errorf("the unreadable referrer: %+v", s)
		}
		if s.Referrer != st.fail && !s.Accepted {
			t.Errorf("the valid signature was rejected: %+v", s)
		}
	}
}

type failingStore struct {
	*signtest.Store
	fail v1.Hash
}

func (s *failingStore) Referrer(ctx context.Context, d v1.Descriptor) (v1.Image, error) {
	if d.Digest == s.fail {
		return nil, fmt.Errorf("GET /v2/kits/blobs/%s: BLOB_UNKNOWN: blob unknown to registry", d.Digest)
	}
	return s.Store.Referrer(ctx, d)
}

// hangingStore never serves one referrer: its reads wait until their
// context ends.
type hangingStore struct {
	*signtest.Store
	hang v1.Hash
}

func (s *hangingStore) Referrer(ctx context.Context, d v1.Descriptor) (v1.Image, error) {
	if d.Digest == s.hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.Store.Referrer(ctx, d)
}

// TestVerifySlowReferrer: a referrer the registry never serves is
// rejected at the referrer timeout, saying so, and the valid signature
// beside it is accepted.
func TestVerifySlowReferrer(t *testing.T) {
	f := newFixture(t)
	k := kit(t)
	st := &hangingStore{Store: signtest.NewStore()}
	f.signed(t, st, k, k, signtest.Cert{})
	f.signed(t, st, k, k, signtest.Cert{})
	list, _ := st.Referrers(context.Background(), k)
	st.hang = list[1].Digest
	v, err := sign.NewVerifier(f.trust, sign.WithoutSCTUnsafe(), sign.WithoutTlogUnsafe(), sign.WithReferrerTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := v.Verify(context.Background(), st, k, devPolicy)
	if err != nil || len(res.Signatures) != 2 {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Verify took %v with a 200ms referrer timeout", d)
	}
	for _, s := range res.Signatures {
		if s.Referrer == st.hang && (s.Accepted || !strings.Contains(s.Reason, "did not serve it within 200ms")) {
			t.Errorf("the hanging referrer: %+v", s)
		}
		if s.Referrer != st.hang && !s.Accepted {
			t.Errorf("the valid signature: %+v", s)
		}
	}
	if _, err := sign.NewVerifier(f.trust, sign.WithReferrerTimeout(0)); err == nil {
		t.Error("WithReferrerTimeout(0) accepted")
	}
}

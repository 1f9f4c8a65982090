package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// journal records the calls the fakes receive, in order, so that tests
// can assert the pipeline's order.
type journal struct {
	mu    sync.Mutex
	calls []string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.calls = append(j.calls, fmt.Sprintf(format, args...))
}

// of returns the calls that mention s (a reference or a digest).
func (j *journal) of(s string) []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, c := range j.calls {
		if strings.Contains(c, s) {
			out = append(out, c)
		}
	}
	return out
}

const identityAnnotation = "org.example.test.identity"

// fakeRegistry is an in-memory registry: tags, pushed artifacts and
// referrers by subject.
type fakeRegistry struct {
	j         *journal
	mu        sync.Mutex
	tags      map[string]v1.Descriptor
	pushed    map[v1.Hash]bool
	referrers map[v1.Hash][]v1.Image
	pushErr   error
	tagErr    error
}

var _ Registry = (*fakeRegistry)(nil)

func newFakeRegistry(j *journal) *fakeRegistry {
	return &fakeRegistry{j: j, tags: map[string]v1.Descriptor{}, pushed: map[v1.Hash]bool{}, referrers: map[v1.Hash][]v1.Image{}}
}

func (f *fakeRegistry) Push(_ context.Context, a *artifact.Artifact, ref string) (v1.Descriptor, error) {
	f.j.add("push %s", ref)
	if f.pushErr != nil {
		return v1.Descriptor{}, f.pushErr
	}
	idx, ok := a.Index()
	if !ok {
		return v1.Descriptor{}, errors.New("fake registry: not an index")
	}
	d, err := descriptorOf(idx)
	if err != nil {
		return v1.Descriptor{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pushed[d.Digest] = true
	return d, nil
}

func descriptorOf(idx v1.ImageIndex) (v1.Descriptor, error) {
	h, err := idx.Digest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	n, err := idx.Size()
	if err != nil {
		return v1.Descriptor{}, err
	}
	mt, err := idx.MediaType()
	return v1.Descriptor{MediaType: mt, Digest: h, Size: n}, err
}

func (f *fakeRegistry) Tag(_ context.Context, ref string, d v1.Descriptor) error {
	f.j.add("tag %s", ref)
	if f.tagErr != nil {
		return f.tagErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.pushed[d.Digest] {
		return fmt.Errorf("fake registry: tagging %s, which was never pushed", d.Digest)
	}
	f.tags[ref] = d
	return nil
}

func (f *fakeRegistry) Head(_ context.Context, ref string) (v1.Descriptor, error) {
	f.j.add("head %s", ref)
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.tags[ref]
	if !ok {
		return v1.Descriptor{}, fmt.Errorf("tag %s: %w", ref, artifact.ErrNotFound)
	}
	return d, nil
}

// Target opens the fake target of ref: the registry's Push, Tag and Head
// for ref, and a fakeStore.
func (f *fakeRegistry) Target(_ context.Context, ref string) (artifact.Target, error) {
	return &fakeTarget{fakeStore: &fakeStore{r: f}, ref: ref}, nil
}

// fakeTarget is one reference of the fake registry.
type fakeTarget struct {
	*fakeStore
	ref string
}

var _ artifact.Target = (*fakeTarget)(nil)

func (t *fakeTarget) Push(ctx context.Context, a *artifact.Artifact) (v1.Descriptor, error) {
	return t.r.Push(ctx, a, t.ref)
}

func (t *fakeTarget) Tag(ctx context.Context, d v1.Descriptor) error { return t.r.Tag(ctx, t.ref, d) }

func (t *fakeTarget) Head(ctx context.Context) (v1.Descriptor, error) { return t.r.Head(ctx, t.ref) }

// tag returns what ref points at, and whether it exists.
func (f *fakeRegistry) tag(ref string) (v1.Descriptor, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.tags[ref]
	return d, ok
}

// fakeStore fails a PushReferrer that overlaps another, as a registry
// without the referrers API would lose one of two tag-schema updates.
type fakeStore struct {
	r        *fakeRegistry
	inflight atomic.Int32
}

var _ sign.ReferrerStore = (*fakeStore)(nil)

func (s *fakeStore) Referrers(_ context.Context, subject v1.Descriptor) ([]v1.Descriptor, error) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	var out []v1.Descriptor
	for _, img := range s.r.referrers[subject.Digest] {
		d, err := imageDescriptor(img)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func (s *fakeStore) Referrer(_ context.Context, d v1.Descriptor) (v1.Image, error) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	for _, imgs := range s.r.referrers {
		for _, img := range imgs {
			if h, _ := img.Digest(); h == d.Digest {
				return img, nil
			}
		}
	}
	return nil, artifact.ErrNotFound
}

func (s *fakeStore) PushReferrer(_ context.Context, subject v1.Descriptor, m v1.Image) (v1.Descriptor, error) {
	if s.inflight.Add(1) > 1 {
		return v1.Descriptor{}, errors.New("fake store: two referrers attached at once")
	}
	defer s.inflight.Add(-1)
	time.Sleep(5 * time.Millisecond) // widen the window an unserialised caller would hit
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.r.referrers[subject.Digest] = append(s.r.referrers[subject.Digest], m)
	return imageDescriptor(m)
}

func imageDescriptor(img v1.Image) (v1.Descriptor, error) {
	h, err := img.Digest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	n, err := img.Size()
	if err != nil {
		return v1.Descriptor{}, err
	}
	mt, err := img.MediaType()
	return v1.Descriptor{MediaType: mt, Digest: h, Size: n}, err
}

// fakeSigner attaches a referrer carrying its identity. With attach false
// it signs without attaching, so read-back verification finds nothing.
type fakeSigner struct {
	j          *journal
	identity   string
	signErr    error
	attestErr  error
	detach     bool
	barrier    *barrier
	mu         sync.Mutex
	predicates []json.RawMessage
	n          int64
}

var _ Signer = (*fakeSigner)(nil)

func (s *fakeSigner) Sign(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor) (*Signature, error) {
	s.j.add("sign %s", subject.Digest)
	if s.barrier != nil {
		if err := s.barrier.wait(ctx); err != nil {
			return nil, err
		}
	}
	if s.signErr != nil {
		return nil, s.signErr
	}
	return s.attach(ctx, st, subject, "sign")
}

func (s *fakeSigner) Attest(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor, predicateType string, predicate json.RawMessage) (*Signature, error) {
	s.j.add("attest %s %s", predicateType, subject.Digest)
	if s.attestErr != nil {
		return nil, s.attestErr
	}
	s.mu.Lock()
	s.predicates = append(s.predicates, predicate)
	s.mu.Unlock()
	return s.attach(ctx, st, subject, predicateType)
}

func (s *fakeSigner) attach(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor, what string) (*Signature, error) {
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	img := mutate.Annotations(empty.Image, map[string]string{identityAnnotation: s.identity, "what": what, "n": fmt.Sprint(n)}).(v1.Image)
	img = mutate.Subject(img, subject).(v1.Image)
	var d v1.Descriptor
	var err error
	if s.detach {
		d, err = imageDescriptor(img)
	} else {
		d, err = st.PushReferrer(ctx, subject, img)
	}
	if err != nil {
		return nil, err
	}
	return &Signature{Referrer: d, Subject: subject, Identity: s.identity, Issuer: "http://127.0.0.1:1", LogIndex: n}, nil
}

// fakeVerifier reads the subject's referrers back and accepts one whose
// identity matches the wanted one.
type fakeVerifier struct{ j *journal }

var _ Verifier = (*fakeVerifier)(nil)

func (v *fakeVerifier) Verify(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor, want Signature) (*Verification, error) {
	v.j.add("verify %s as %s", subject.Digest, want.Identity)
	refs, err := st.Referrers(ctx, subject)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, d := range refs {
		img, err := st.Referrer(ctx, d)
		if err != nil {
			return nil, err
		}
		m, err := img.Manifest()
		if err != nil {
			return nil, err
		}
		if m.Annotations["what"] == "sign" && m.Annotations[identityAnnotation] == want.Identity {
			n++
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("no signature by %s among %d referrers", want.Identity, len(refs))
	}
	return &Verification{Identity: want.Identity, Issuer: want.Issuer, Signatures: n}, nil
}

// barrier makes n callers wait for each other, bounded in time: it proves
// that n kits sign at the same time.
type barrier struct {
	mu      sync.Mutex
	n       int
	arrived int
	all     chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, all: make(chan struct{})} }

func (b *barrier) wait(ctx context.Context) error {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("the other kits never signed at the same time")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failingBuilder fails every build with err, after closing ev.
type failingBuilder struct{ err error }

func (b failingBuilder) Build(_ context.Context, _ *spec.Kit, _ build.Options, ev chan<- progress.Event) (*build.Result, error) {
	if ev != nil {
		close(ev)
	}
	return nil, b.err
}

// countingBuilder builds with build.Build and records how many builds
// ran at once.
type countingBuilder struct {
	// overlap is how many builds each build waits (a bounded time) to see
	// running at once, so that a loaded machine cannot serialise them.
	overlap   int
	mu        sync.Mutex
	now, peak int
}

func (b *countingBuilder) Build(ctx context.Context, k *spec.Kit, o build.Options, ev chan<- progress.Event) (*build.Result, error) {
	b.mu.Lock()
	b.now++
	b.peak = max(b.peak, b.now)
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.now--
		b.mu.Unlock()
	}()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b.mu.Lock()
		seen := b.peak
		b.mu.Unlock()
		if seen >= b.overlap {
			break
		}
	}
	time.Sleep(20 * time.Millisecond) // let other kits try to start
	return build.Build(ctx, nil, k, o, ev)
}

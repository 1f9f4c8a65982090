package signtest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/kitsmith/kitsmith/pkg/sign"
)

var _ sign.ReferrerStore = (*Store)(nil)

// Store is an in-memory sign.ReferrerStore. Like go-containerregistry's
// test registry, it reports each referrer's artifactType as its config's
// media type, so that code trusting the listed artifactType fails with it,
// and its manifest's annotations, as the referrers API lists them.
type Store struct {
	mu        sync.Mutex
	referrers map[v1.Hash][]v1.Descriptor
	images    map[v1.Hash]v1.Image
	// Pushes counts PushReferrer calls.
	Pushes int
}

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{referrers: map[v1.Hash][]v1.Descriptor{}, images: map[v1.Hash]v1.Image{}}
}

// Referrers lists the referrers pushed for subject.
func (s *Store) Referrers(_ context.Context, subject v1.Descriptor) ([]v1.Descriptor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]v1.Descriptor(nil), s.referrers[subject.Digest]...), nil
}

// Referrer returns a pushed referrer.
func (s *Store) Referrer(_ context.Context, d v1.Descriptor) (v1.Image, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	img, ok := s.images[d.Digest]
	if !ok {
		return nil, fmt.Errorf("referrer %s: not found", d.Digest)
	}
	return img, nil
}

// PushReferrer stores m as a referrer of subject.
func (s *Store) PushReferrer(_ context.Context, subject v1.Descriptor, m v1.Image) (v1.Descriptor, error) {
	raw, err := m.RawManifest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	var man v1.Manifest
	if err := json.Unmarshal(raw, &man); err != nil {
		return v1.Descriptor{}, fmt.Errorf("parsing the referrer manifest: %w", err)
	}
	if man.Subject == nil || man.Subject.Digest != subject.Digest {
		return v1.Descriptor{}, fmt.Errorf("the referrer's subject is not %s", subject.Digest)
	}
	d, err := partial.Descriptor(m)
	if err != nil {
		return v1.Descriptor{}, err
	}
	d.ArtifactType = string(man.Config.MediaType)
	d.Annotations = man.Annotations
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Pushes++
	s.images[d.Digest] = m
	s.referrers[subject.Digest] = append(s.referrers[subject.Digest], *d)
	return *d, nil
}

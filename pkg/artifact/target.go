package artifact

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Target is a place kits live, as publishing, signing and a build's
// outputs need it: a registry repository or an OCI image layout
// directory, opened from a reference by NewTarget (or a Client's Target).
// The reference it was opened by names the manifest Head reads and the
// tag Tag writes; Push, Referrers, Referrer and PushReferrer work on the
// repository or layout as a whole. Target implements pkg/sign's
// ReferrerStore.
//
// Publishing pushes everything by digest first and tags last, so that a
// tag never points at something incomplete: Push, then PushReferrer for
// signatures, then Tag. In a layout the same order holds: Push adds
// blobs only, and Tag adds (or replaces) the index.json entry.
type Target interface {
	// Head returns the descriptor of the manifest the reference names now:
	// what a registry tag or digest points to (without reading the
	// manifest), or a layout's index.json entry (the one tagged with the
	// reference's tag, or its only entry). Errors wrap ErrNotFound when
	// there is none.
	Head(ctx context.Context) (v1.Descriptor, error)
	// Push writes every blob and manifest of a by digest and sets no tag.
	// A digest in the reference must be a's. It returns the descriptor of
	// a's top-level manifest.
	Push(ctx context.Context, a *Artifact) (v1.Descriptor, error)
	// Tag points the reference's tag at the manifest d, which must already
	// be in the target (Push it first); errors wrap ErrNotFound when it is
	// not. A registry reference that names a digest has no tag to set: a
	// *DestinationError. A registry reference without a tag means "latest";
	// a layout reference without one sets the untagged entry.
	Tag(ctx context.Context, d v1.Descriptor) error
	// Referrers lists the manifests whose subject is subject, unfiltered:
	// the artifactType a registry reports may be wrong, so callers check
	// each manifest. An empty list and nil error mean none.
	Referrers(ctx context.Context, subject v1.Descriptor) ([]v1.Descriptor, error)
	// Referrer reads the referrer manifest d, bounded and checked against
	// d's digest and size.
	Referrer(ctx context.Context, d v1.Descriptor) (v1.Image, error)
	// PushReferrer stores m, whose manifest's subject must be subject, by
	// digest and without a tag, and makes it discoverable through
	// Referrers. It returns m's descriptor.
	PushReferrer(ctx context.Context, subject v1.Descriptor, m v1.Image) (v1.Descriptor, error)
}

var (
	_ Target = (*registryTarget)(nil)
	_ Target = (*layoutTarget)(nil)
)

// Client opens Targets that share one set of Options: one HTTP transport
// (so connections are kept alive from one operation to the next, across
// targets), one credential lookup and one authenticated session per
// registry repository. Layout targets of one Client that share a
// directory take turns at its index.json, so kits tagged and signed in one
// layout at once lose no entry (targets of different Clients, or other
// processes, are not coordinated). The zero value is not usable; use
// NewClient. A Client is safe for concurrent use.
type Client struct {
	o       *options
	layouts sync.Map // absolute layout directory → *sync.Mutex
}

// NewClient checks opts (see Option) and returns a Client reaching
// registries with them.
func NewClient(opts ...Option) (*Client, error) {
	o, err := makeOptions(opts)
	if err != nil {
		return nil, err
	}
	return &Client{o: o}, nil
}

// Close releases the idle connections of the transport the Client made;
// a transport given with WithTransport is left alone. Targets opened
// from the Client stay usable and open new connections as needed.
func (c *Client) Close() error {
	c.o.done()
	return nil
}

// NewTarget opens the Target ref names: a registry reference
// (REGISTRY/REPO[:TAG|@DIGEST]; a bare name means Docker Hub) or an OCI
// layout ("oci:DIR[:TAG]"; DIR may be missing or empty, and is made a
// layout by the first Push). An archive (oci-archive:) is read-only: a
// *DestinationError, as is a reference that does not parse or a layout
// path holding something that is not a layout. NewTarget does not
// contact a registry. The target has a transport of its own; open
// several from one Client to share one.
func NewTarget(ctx context.Context, ref string, opts ...Option) (Target, error) {
	c, err := NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref, err)
	}
	return c.Target(ctx, ref)
}

// Target opens the Target ref names, as NewTarget does, reaching
// registries through c.
func (c *Client) Target(ctx context.Context, ref string) (Target, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := ParseReference(ref)
	if err != nil {
		return nil, err
	}
	switch r.Kind {
	case OriginArchive:
		return nil, &DestinationError{Ref: ref, Reason: "is an archive, which cannot hold referrers or be pushed to; unpack it into a layout and use " + LayoutPrefix + "DIR"}
	case OriginLayout:
		if err := checkParents(ref, r.Path); err != nil {
			return nil, err
		}
		t := &layoutTarget{opts: c.o, ref: ref, dir: r.Path, tag: r.Tag, index: c.layoutLock(r.Path)}
		t.index.Lock() // another target may be making it a layout
		_, err := checkLayoutDest(ref, r.Path)
		t.index.Unlock()
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	nr, err := c.o.registryRef(r.Name)
	if err != nil {
		return nil, err
	}
	return &registryTarget{opts: c.o, ref: nr, repo: nr.Context()}, nil
}

// layoutLock is the lock of the layout at dir's index.json.
func (c *Client) layoutLock(dir string) *sync.Mutex {
	key := filepath.Clean(dir)
	if abs, err := filepath.Abs(dir); err == nil {
		key = abs
	}
	mu, _ := c.layouts.LoadOrStore(key, &sync.Mutex{})
	return mu.(*sync.Mutex)
}

// registryTarget is a registry repository; ref is the reference it was
// opened by.
type registryTarget struct {
	opts *options
	ref  name.Reference
	repo name.Repository
	sess session // the referrer reads' client (referrers.go)

	mu sync.Mutex
	// pushed holds the manifests Push wrote, by digest, so that Tag can
	// put one without reading it back.
	pushed map[v1.Hash]remote.Taggable
}

func (t *registryTarget) Head(ctx context.Context) (v1.Descriptor, error) {
	ctx, cancel := t.opts.operation(ctx)
	defer cancel()
	if dg, ok := t.ref.(name.Digest); ok {
		return t.headPinned(ctx, dg) // what is served is checked (referrers.go)
	}
	d, err := remote.Head(t.ref, t.opts.remoteOptions(ctx)...)
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("reading %s: %w", t.ref, classifyRegistryError(t.ref, err))
	}
	return v1.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size}, nil
}

func (t *registryTarget) Push(ctx context.Context, a *Artifact) (v1.Descriptor, error) {
	d, err := a.descriptor()
	if err != nil {
		return v1.Descriptor{}, &DestinationError{Ref: t.ref.String(), Reason: "has nothing to write", Err: err}
	}
	if dg, ok := t.ref.(name.Digest); ok && dg.DigestStr() != d.Digest.String() {
		return v1.Descriptor{}, &DestinationError{Ref: t.ref.String(), Reason: fmt.Sprintf("pins digest %s, but the artifact is %s", dg.DigestStr(), d.Digest)}
	}
	ctx, cancel := t.opts.operation(ctx)
	defer cancel()
	pinned := t.repo.Digest(d.Digest.String())
	if a.index != nil {
		err = remote.WriteIndex(pinned, a.index, t.opts.remoteOptions(ctx)...)
	} else {
		err = remote.Write(pinned, a.image, t.opts.remoteOptions(ctx)...)
	}
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("pushing to %s: %w", t.ref, classifyRegistryError(pinned, err))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pushed == nil {
		t.pushed = map[v1.Hash]remote.Taggable{}
	}
	t.pushed[d.Digest] = a.taggable()
	return d, nil
}

func (t *registryTarget) Tag(ctx context.Context, d v1.Descriptor) error {
	ctx, cancel := t.opts.operation(ctx)
	defer cancel()
	tag, m, err := t.taggable(ctx, d)
	if err != nil {
		return err
	}
	return t.put(ctx, tag, m)
}

// taggable returns the target's tag and the manifest of d to point it
// at: at hand when d was pushed through this target, else read by digest.
func (t *registryTarget) taggable(ctx context.Context, d v1.Descriptor) (name.Tag, remote.Taggable, error) {
	tag, ok := t.ref.(name.Tag)
	if !ok {
		return name.Tag{}, nil, &DestinationError{Ref: t.ref.String(), Reason: "names a digest, not a tag"}
	}
	t.mu.Lock()
	m, ok := t.pushed[d.Digest]
	t.mu.Unlock()
	if ok {
		return tag, m, nil
	}
	pinned := t.repo.Digest(d.Digest.String())
	desc, err := remote.Get(pinned, t.opts.remoteOptions(ctx)...)
	if err != nil {
		return name.Tag{}, nil, fmt.Errorf("tagging %s: reading %s: %w", tag, d.Digest, classifyRegistryError(pinned, err))
	}
	return tag, desc, nil
}

// put points tag at the manifest m, at hand.
func (t *registryTarget) put(ctx context.Context, tag name.Tag, m remote.Taggable) error {
	if err := remote.Tag(tag, m, t.opts.remoteOptions(ctx)...); err != nil {
		return fmt.Errorf("tagging %s: %w", tag, classifyRegistryError(tag, err))
	}
	return nil
}

// layoutTarget is an OCI image layout directory; ref is the reference it
// was opened by, tag its tag ("" for none).
type layoutTarget struct {
	opts          *options
	ref, dir, tag string
	// index is held while the layout is created or its index.json edited.
	index *sync.Mutex
}

func (t *layoutTarget) Head(ctx context.Context) (v1.Descriptor, error) {
	if err := ctx.Err(); err != nil {
		return v1.Descriptor{}, err
	}
	if _, err := os.Stat(t.dir); errors.Is(err, fs.ErrNotExist) {
		return v1.Descriptor{}, fmt.Errorf("reading %s: %w: there is no layout at %s", t.ref, ErrNotFound, t.dir)
	}
	a, err := openLayout(t.ref, dirStore{dir: t.dir}, t.tag, OriginLayout)
	if err != nil {
		return v1.Descriptor{}, err
	}
	return a.descriptor()
}

// Push adds a's blobs to the layout, making dir a layout first when it is
// missing or empty; index.json is left as it is (Tag adds the entry).
func (t *layoutTarget) Push(ctx context.Context, a *Artifact) (v1.Descriptor, error) {
	d, err := a.descriptor()
	if err != nil {
		return v1.Descriptor{}, &DestinationError{Ref: t.ref, Reason: "has nothing to write", Err: err}
	}
	blobs, err := a.blobs()
	if err != nil {
		return v1.Descriptor{}, fmt.Errorf("pushing to %s: %w", t.ref, err)
	}
	if err := t.ensure(); err != nil {
		return v1.Descriptor{}, err
	}
	if err := putBlobs(ctx, t.dir, blobs); err != nil {
		return v1.Descriptor{}, fmt.Errorf("pushing to %s: %w", t.ref, err)
	}
	return d, nil
}

// ensure makes dir an empty layout when nothing, or an empty directory,
// is there.
func (t *layoutTarget) ensure() error {
	t.index.Lock()
	defer t.index.Unlock()
	state, err := checkLayoutDest(t.ref, t.dir)
	if err != nil || state == layoutExisting {
		return err
	}
	if err := os.MkdirAll(t.dir, dirMode); err != nil {
		return fmt.Errorf("writing %s: %w", t.ref, err)
	}
	if err := writeFileAtomic(filepath.Join(t.dir, "oci-layout"), []byte(layoutMarkerJSON)); err != nil {
		return fmt.Errorf("writing %s: %w", t.ref, err)
	}
	if err := updateIndex(t.dir, false, func(*v1.IndexManifest) {}); err != nil {
		return fmt.Errorf("writing %s: %w", t.ref, err)
	}
	return nil
}

// Tag sets the layout's index.json entry for the reference's tag to d, as
// Write does: entries with the same tag (or, without a tag, the untagged
// entries that are not referrers) are replaced.
func (t *layoutTarget) Tag(ctx context.Context, d v1.Descriptor) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t.index.Lock()
	defer t.index.Unlock()
	state, err := checkLayoutDest(t.ref, t.dir)
	if err != nil {
		return err
	}
	if state != layoutExisting {
		return fmt.Errorf("tagging %s: %w: there is no layout at %s; push the kit first", t.ref, ErrNotFound, t.dir)
	}
	rc, _, err := dirStore{dir: t.dir}.open(d.Digest)
	if err != nil {
		return fmt.Errorf("tagging %s: %w: the layout holds no manifest %s; push it first: %w", t.ref, ErrNotFound, d.Digest, err)
	}
	rc.Close()
	entry := v1.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size}
	if t.tag != "" {
		entry.Annotations = map[string]string{AnnotationRefName: t.tag}
	}
	err = updateIndex(t.dir, true, func(im *v1.IndexManifest) {
		im.Manifests = slices.DeleteFunc(im.Manifests, func(e v1.Descriptor) bool {
			return !isReferrerEntry(e) && sameTag(e.Annotations[AnnotationRefName], t.tag)
		})
		im.Manifests = append(im.Manifests, entry)
	})
	if err != nil {
		return fmt.Errorf("tagging %s: %w", t.ref, err)
	}
	return nil
}

package publish

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"github.com/kitsmith/kitsmith/pkg/sign"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Run publishes kits: for each, validate (a set resolved with the kits
// it lists), lint, build, check, judge against o.Policy's ceiling, push by
// digest, sign, attest provenance, verify by reading back, and only then
// tag (see the package documentation). s builds kits that need a BuildKit
// daemon when o.Builder is nil; it may be nil for declaration-only kits.
//
// Kits are published concurrently: at most o.Jobs are validated, linted
// and built at once, while the network stages (push, sign, verify, tag) of
// built kits overlap freely, so that the transparency log's latency is
// paid once rather than per kit. One kit's failure does not stop the
// others. Progress goes to ev, which Run closes before it returns; ev may
// be nil.
//
// Run returns a Result for every kit. The error is nil when every kit was
// published (or already was), the join of the kits' *StageError values
// when some were not, and an options error (with a nil Result) before
// anything ran.
func Run(ctx context.Context, s build.Solver, kits []*spec.Kit, o Options, ev chan<- progress.Event) (*Result, error) {
	if ev != nil {
		defer close(ev)
	}
	if o.Builder == nil {
		o.Builder = solverBuilder{s: s}
	}
	opts, err := makeOptions(o, len(kits))
	if err != nil {
		return nil, err
	}
	rep := progress.NewReporter(ev)
	res := &Result{Kits: make([]*KitResult, len(kits))}
	cpu := make(chan struct{}, opts.jobs)
	net := make(chan struct{}, 4*opts.jobs)
	var wg sync.WaitGroup
	for i, k := range kits {
		r := &kitRun{opts: opts, p: rep, k: k, res: &KitResult{Kit: k.Path, Stem: k.Stem}, cpu: cpu, net: net}
		res.Kits[i] = r.res
		wg.Go(func() { r.run(ctx) })
	}
	wg.Wait()
	var errs []error
	for _, k := range res.Kits {
		if k.Err != nil {
			errs = append(errs, k.Err)
		}
	}
	return res, errors.Join(errs...)
}

// solverBuilder is build.Build on a solver.
type solverBuilder struct{ s build.Solver }

func (b solverBuilder) Build(ctx context.Context, k *spec.Kit, o build.Options, ev chan<- progress.Event) (*build.Result, error) {
	return build.Build(ctx, b.s, k, o, ev)
}

// kitRun publishes one kit.
type kitRun struct {
	opts     *options
	p        progress.Reporter
	k        *spec.Kit
	res      *KitResult
	cpu, net chan struct{}
	started  time.Time
	built    *build.Result
	bo       build.Options // as the kit was built
	steps    int           // progress steps reported
	mu       sync.Mutex    // guards steps, res.Timings and res.Pushed while signing and attesting run at once
	art      *artifact.Artifact
	target   artifact.Target // where the kit is published, opened by the first tag check
}

func (r *kitRun) run(ctx context.Context) {
	r.started = r.opts.Now()
	if err := r.acquire(ctx, r.cpu); err != nil {
		r.res.Err = &StageError{Kit: r.k.Path, Stage: StageValidate, Err: err}
		return
	}
	tmp, err := os.MkdirTemp(r.opts.Build.TempDir, "kitsmith-publish-")
	if err == nil {
		defer os.RemoveAll(tmp)
		err = r.local(ctx, tmp)
	} else {
		err = &StageError{Kit: r.k.Path, Stage: StageBuild, Err: fmt.Errorf("creating a temporary directory: %w", err)}
	}
	<-r.cpu
	if err == nil {
		if err = r.acquire(ctx, r.net); err == nil {
			err = r.remote(ctx)
			<-r.net
		}
	}
	var se *StageError
	if err != nil && !errors.As(err, &se) {
		err = &StageError{Kit: r.k.Path, Stage: StagePush, Err: err}
	}
	r.res.Err = err
}

func (r *kitRun) acquire(ctx context.Context, sem chan struct{}) error {
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stage runs fn as stage st, reporting it as a progress step and timing
// it. An error fn returns becomes a *StageError of st, unless it already is
// one (of a later stage the step covers, such as check inside build).
func (r *kitRun) stage(ctx context.Context, st Stage, what string, fn func() error) error {
	start := time.Now()
	r.mu.Lock()
	r.steps++ // the tag stage runs twice: check, then tag
	id := fmt.Sprintf("%s/%s#%d", r.k.Path, st, r.steps)
	r.mu.Unlock()
	done := r.p.Step(ctx, id, fmt.Sprintf("[%s] %s", r.k.Stem, what))
	err := fn()
	done(err)
	r.mu.Lock()
	r.res.Timings = append(r.res.Timings, Timing{Stage: st, Duration: time.Since(start)})
	r.mu.Unlock()
	if err == nil {
		return nil
	}
	var se *StageError
	if errors.As(err, &se) {
		return err
	}
	return &StageError{Kit: r.k.Path, Stage: st, Err: err}
}

// local runs the stages that need no registry: validate, lint, build and
// check. The built image is written to an OCI layout under tmp.
func (r *kitRun) local(ctx context.Context, tmp string) error {
	if err := r.stage(ctx, StageValidate, "validate", func() error { return r.validate(ctx) }); err != nil {
		return err
	}
	if err := r.stage(ctx, StageLint, "lint at fail level "+r.opts.FailLevel.String(), func() error { return r.lint(ctx) }); err != nil {
		return err
	}
	layout := filepath.Join(tmp, "layout")
	if err := r.stage(ctx, StageBuild, "build and check "+platformList(r.opts.Build.Platforms), func() error { return r.build(ctx, layout) }); err != nil {
		return err
	}
	a, err := artifact.Open(ctx, "oci:"+layout)
	if err != nil {
		return &StageError{Kit: r.k.Path, Stage: StageBuild, Err: fmt.Errorf("reading the built kit image: %w", err)}
	}
	r.art = a
	if r.opts.Policy == nil {
		return nil
	}
	return r.stage(ctx, StagePolicy, "judge against the permission ceiling", func() error { return r.judgeCeiling(ctx) })
}

func platformList(p []string) string {
	if len(p) == 0 {
		p = build.DefaultPlatforms()
	}
	return strings.Join(p, ", ")
}

func (r *kitRun) validate(ctx context.Context) error {
	ref := r.opts.Tag
	if r.opts.TagTemplate != "" {
		var err error
		if ref, err = Reference(r.opts.TagTemplate, r.k); err != nil {
			return err
		}
	}
	r.res.Reference = ref
	rep := r.k.Validate()
	r.res.Validation = rep
	if rep.OK() {
		return r.resolveSet(ctx)
	}
	lines := make([]string, 0, len(rep.Errors))
	for _, e := range rep.Errors {
		lines = append(lines, e.Error())
	}
	return &problemsError{error: listError(ErrInvalidKit, "error", lines), problems: rep.Errors}
}

// problemsError is a listError that also unwraps to the problems it
// lists (a spec.Errors), so errors.As finds them with their positions.
type problemsError struct {
	error
	problems error
}

// Unwrap returns the listed error and the problems.
func (e *problemsError) Unwrap() []error { return []error{e.error, e.problems} }

func (r *kitRun) lint(ctx context.Context) error {
	res, err := lint.Run(ctx, []*spec.Kit{r.k}, append([]lint.Option{lint.WithKitConfig()}, r.opts.Lint...)...)
	if err != nil {
		return err
	}
	r.res.Lint = res
	if !res.Fails(r.opts.FailLevel) {
		return nil
	}
	var lines []string
	for _, f := range res.Findings {
		if f.Severity >= r.opts.FailLevel {
			lines = append(lines, fmt.Sprintf("%s: %s: %s [%s]", f.Range.Start, f.Severity, f.Message, f.RuleID))
		}
	}
	return fmt.Errorf("%w (%d at %s or above):\n  %s", ErrLintFindings, len(lines), r.opts.FailLevel, strings.Join(lines, "\n  "))
}

// build builds and checks the kit into an OCI layout at dir, relaying the
// build's progress with its step IDs scoped to the kit.
func (r *kitRun) build(ctx context.Context, dir string) error {
	bo := r.opts.Build
	bo.Outputs = []build.Output{{Type: build.OutputOCI, Dest: dir}}
	if bo.SourceDateEpoch == nil {
		// What kitsmith build takes, so that publish builds the same digest.
		epoch, err := build.SourceDateEpoch(ctx, r.k, "")
		if err != nil {
			return err
		}
		bo.SourceDateEpoch = epoch
	}
	r.bo = bo
	ch := make(chan progress.Event)
	var wg sync.WaitGroup
	wg.Go(func() {
		for e := range ch {
			if e.Step != nil && strings.HasPrefix(e.Step.ID, "output-") {
				continue // the temporary layout publish pushes from
			}
			if e.Step != nil {
				s := *e.Step
				s.ID = r.k.Path + "/build/" + s.ID
				s.Name = fmt.Sprintf("[%s] %s", r.k.Stem, strings.TrimPrefix(s.Name, "[kitsmith] "))
				e.Step = &s
			}
			r.p.Send(ctx, e)
		}
	})
	res, err := r.opts.Builder.Build(ctx, r.k, bo, ch)
	wg.Wait()
	var ce *build.CheckError
	var pe *build.DescriptorError
	switch {
	case errors.As(err, &ce):
		return &StageError{Kit: r.k.Path, Stage: StageCheck, Err: fmt.Errorf("%w: %s", err, failedChecks(ce.Report))}
	case errors.As(err, &pe):
		return &StageError{Kit: r.k.Path, Stage: StageValidate, Err: err}
	case err != nil:
		return err
	}
	r.built = res
	r.res.Index, r.res.Manifests = res.Index, res.Manifests
	return nil
}

// remote runs the registry stages: the existing-tag check, push, sign,
// attest, verify and tag.
func (r *kitRun) remote(ctx context.Context) error {
	ref := r.res.Reference
	if err := r.stage(ctx, StageTag, "check the tag "+ref, func() error {
		var err error
		if r.target, err = r.opts.Registry.Target(ctx, ref); err != nil {
			return err
		}
		return r.checkTag(ctx)
	}); err != nil {
		return err
	}
	if r.res.Unchanged {
		return nil
	}
	if err := r.stage(ctx, StagePush, "push by digest to "+repoOf(ref), func() error { return r.push(ctx) }); err != nil {
		return err
	}
	if r.opts.Unsigned {
		r.res.Unsigned = true
	} else if err := r.signAll(ctx); err != nil {
		return err
	}
	return r.stage(ctx, StageTag, "tag "+ref, func() error { return r.tag(ctx) })
}

// checkTag refuses a tag that points at another digest (without Force)
// and notices one that already points at this digest.
func (r *kitRun) checkTag(ctx context.Context) error {
	d, err := r.target.Head(ctx)
	if errors.Is(err, artifact.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the tag %s: %w", r.res.Reference, err)
	}
	r.res.Previous = &d
	switch {
	case d.Digest == r.res.Index.Digest && !r.opts.Force:
		r.res.Unchanged = true
		return nil
	case d.Digest != r.res.Index.Digest && !r.opts.Force:
		return fmt.Errorf("%w: %s is %s, this build is %s; publish under another tag, or move it with Options.Force", ErrTagExists, r.res.Reference, d.Digest, r.res.Index.Digest)
	}
	return nil
}

func (r *kitRun) push(ctx context.Context) error {
	d, err := r.target.Push(ctx, r.art)
	if err != nil {
		return err
	}
	if d.Digest != r.res.Index.Digest {
		return fmt.Errorf("the registry holds %s, not the built %s", d.Digest, r.res.Index.Digest)
	}
	for _, m := range r.res.Manifests {
		r.res.Pushed = append(r.res.Pushed, manifestDescriptor(r.art, m))
	}
	r.res.Pushed = append(r.res.Pushed, d)
	r.res.Index = d
	return nil
}

// signAll signs the index (and with Recursive each manifest) while it
// attests the provenance, both at once (each waits on the transparency
// log), then verifies the signature by reading it back.
func (r *kitRun) signAll(ctx context.Context) error {
	ref := r.res.Reference
	st := &serialStore{ReferrerStore: r.target}
	var attestErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		attestErr = r.stage(ctx, StageAttest, "attest SLSA provenance", func() error { return r.attest(ctx, st) })
	})
	signErr := r.stage(ctx, StageSign, "sign "+r.res.Index.Digest.String(), func() error { return r.signIndex(ctx, st) })
	wg.Wait()
	if signErr != nil {
		return signErr
	}
	if attestErr != nil {
		return attestErr
	}
	return r.stage(ctx, StageVerify, "verify the signature read back from "+repoOf(ref), func() error {
		// The target keeps no cache: what it lists is what the registry
		// serves now.
		v, err := r.opts.Verifier.Verify(ctx, r.target, r.res.Index, *r.res.Signature)
		if err != nil {
			return err
		}
		r.res.Verified = v
		return nil
	})
}

// serialStore attaches one referrer at a time: on a registry without the
// referrers API, attaching rewrites the subject's tag-schema index
// (sha256-<hex>), and two attachments at once would lose one.
type serialStore struct {
	sign.ReferrerStore
	mu sync.Mutex
}

func (s *serialStore) PushReferrer(ctx context.Context, subject v1.Descriptor, m v1.Image) (v1.Descriptor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ReferrerStore.PushReferrer(ctx, subject, m)
}

// signIndex signs the index and, with Recursive, each platform manifest.
func (r *kitRun) signIndex(ctx context.Context, st sign.ReferrerStore) error {
	sig, err := r.sign(ctx, st, r.res.Index)
	if err != nil {
		return err
	}
	r.res.Signature = sig
	if !r.opts.Recursive {
		return nil
	}
	for _, m := range r.res.Manifests {
		sig, err := r.sign(ctx, st, manifestDescriptor(r.art, m))
		if err != nil {
			return fmt.Errorf("signing the %s manifest: %w", m.Platform, err)
		}
		r.res.ManifestSignatures = append(r.res.ManifestSignatures, sig)
	}
	return nil
}

// pushed records a descriptor written to the registry.
func (r *kitRun) pushed(d v1.Descriptor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Pushed = append(r.res.Pushed, d)
}

func (r *kitRun) sign(ctx context.Context, st sign.ReferrerStore, subject v1.Descriptor) (*Signature, error) {
	sig, err := r.opts.Signer.Sign(ctx, st, subject)
	if err != nil {
		return nil, err
	}
	r.pushed(sig.Referrer)
	return sig, nil
}

func (r *kitRun) attest(ctx context.Context, st sign.ReferrerStore) error {
	src, err := gitSource(r.k.Dir, r.k.Path)
	if err != nil {
		return err
	}
	pred, err := provenance(r.k, r.built, r.bo, src, r.opts.Provenance, r.started, r.opts.Now())
	if err != nil {
		return err
	}
	sig, err := r.opts.Signer.Attest(ctx, st, r.res.Index, SLSAPredicateType, pred)
	if err != nil {
		return err
	}
	r.pushed(sig.Referrer)
	r.res.Provenance = sig
	return nil
}

// tag writes the tag, checking once more that nobody moved it since the
// first check, and reads it back.
//
// The write is conditional where the registry supports it (a target that
// is a ConditionalTagger, as pkg/artifact's registry targets are): it
// carries what the check saw (If-Match with the previous digest, or
// If-None-Match: *), and a registry honouring it refuses the write when
// another run moved the tag in between. Whatever the registry, the tag is
// read back after the write: when it no longer points at this run's
// digest, another run wrote it at the same time and this run fails with
// ErrTagRaced, so that its report names no digest the tag does not hold.
// A run that read its own digest back can still be overwritten afterwards
// by a writer that does not check (a registry without conditional writes
// cannot prevent it); that writer's own read-back then names the tag's
// digest.
func (r *kitRun) tag(ctx context.Context) error {
	if err := r.checkTag(ctx); err != nil {
		return err
	}
	if r.res.Unchanged {
		return nil
	}
	ref, want := r.res.Reference, r.res.Index.Digest
	var err error
	if ct, ok := r.target.(ConditionalTagger); ok {
		var prev *v1.Hash
		if r.res.Previous != nil {
			prev = &r.res.Previous.Digest
		}
		err = ct.TagIf(ctx, r.res.Index, prev)
	} else {
		err = r.target.Tag(ctx, r.res.Index)
	}
	if errors.Is(err, artifact.ErrTagMoved) {
		return fmt.Errorf("%w: %s moved after it was checked, and the registry refused to overwrite it: %w", ErrTagRaced, ref, err)
	}
	if err != nil {
		return err
	}
	got, err := r.target.Head(ctx)
	if err != nil {
		return fmt.Errorf("reading the tag %s back: %w", ref, err)
	}
	if got.Digest != want {
		return fmt.Errorf("%w: %s points at %s, not this run's %s: another publish wrote it at the same time", ErrTagRaced, ref, got.Digest, want)
	}
	r.res.Tagged = true
	r.res.Moved = r.res.Previous != nil && r.res.Previous.Digest != want
	return nil
}

// manifestDescriptor returns the index's descriptor of the platform
// manifest m, or one built from m with the OCI manifest media type.
func manifestDescriptor(a *artifact.Artifact, m build.Manifest) v1.Descriptor {
	if idx, ok := a.Index(); ok {
		if im, err := idx.IndexManifest(); err == nil {
			for _, d := range im.Manifests {
				if d.Digest == m.Digest {
					return d
				}
			}
		}
	}
	return v1.Descriptor{MediaType: types.OCIManifestSchema1, Digest: m.Digest, Size: m.Size}
}

// pinTo is ref's repository pinned to digest (artifact.Ref.Pinned); ref
// itself when it cannot be pinned, which a publish reference, checked as a
// registry tag before anything runs, always can.
func pinTo(ref, digest string) string {
	r, err := artifact.ParseReference(ref)
	if err != nil {
		return ref
	}
	p, err := r.Pinned(digest)
	if err != nil {
		return ref
	}
	return p
}

// repoOf is the repository part of a tag reference, for messages.
func repoOf(ref string) string {
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i]
	}
	return ref
}

// listError is sentinel with the count of lines, each noun, and the lines
// themselves, one per indented line.
func listError(sentinel error, noun string, lines []string) error {
	return fmt.Errorf("%w (%d %s%s):\n  %s", sentinel, len(lines), noun, plural(len(lines)), strings.Join(lines, "\n  "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// failedChecks names the failed checks of rep with their messages, so a
// summary line says what broke without the full report.
func failedChecks(rep *conform.Report) string {
	var list []string
	for _, f := range rep.Findings {
		if f.Severity != conform.SeverityFail {
			continue
		}
		list = append(list, f.String())
	}
	return strings.Join(list, "; ")
}

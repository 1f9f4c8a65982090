package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Severity of a check finding.
type Severity string

// Finding severities, as kit-tck reports them.
const (
	SeverityFail Severity = "fail"
	SeverityWarn Severity = "warn"
	SeveritySkip Severity = "skip"
)

// Finding is one check result that is not a pass.
type Finding struct {
	// Check is the check id, e.g. "overlay-home-ownership".
	Check string `json:"check"`
	// Severity is fail, warn or skip.
	Severity Severity `json:"severity"`
	// Platform is the platform manifest judged ("linux/amd64"), or "" for
	// the index.
	Platform string `json:"platform"`
	// Message says what is wrong, how it happened and how to fix it.
	Message string `json:"message"`
	// Spec is the specification reference, e.g. "SPEC-v3 §10/overlay-home-ownership".
	Spec string `json:"spec"`
}

// Report is the outcome of Check. It marshals to JSON as the document
// kitsmith check --format json prints (MarshalJSON), and unmarshals from
// it.
type Report struct {
	// Reference is the artifact's reference ("" in memory).
	Reference string `json:"reference"`
	// Platforms lists the platform manifests judged, in index order.
	// Attestation manifests are not judged.
	Platforms []string `json:"platforms"`
	// Findings are every failure, warning and skip, index findings first,
	// then each platform's in check order. Never nil.
	Findings []Finding `json:"findings"`
}

// FormatVersion is the formatVersion of a Report's JSON document (the
// check --format json document).
const FormatVersion = 1

// MarshalJSON writes the report as the versioned document kitsmith check
// --format json prints: formatVersion, reference, platforms, conforms
// (no failure), summary (the count of each severity) and findings, with
// empty lists as [] rather than null.
func (r Report) MarshalJSON() ([]byte, error) {
	type summary struct {
		Fail int `json:"fail"`
		Warn int `json:"warn"`
		Skip int `json:"skip"`
	}
	doc := struct {
		FormatVersion int       `json:"formatVersion"`
		Reference     string    `json:"reference"`
		Platforms     []string  `json:"platforms"`
		Conforms      bool      `json:"conforms"`
		Summary       summary   `json:"summary"`
		Findings      []Finding `json:"findings"`
	}{
		FormatVersion: FormatVersion, Reference: r.Reference, Platforms: r.Platforms, Conforms: !r.Failed(),
		Summary:  summary{Fail: r.Count(SeverityFail), Warn: r.Count(SeverityWarn), Skip: r.Count(SeveritySkip)},
		Findings: r.Findings,
	}
	if doc.Platforms == nil {
		doc.Platforms = []string{}
	}
	if doc.Findings == nil {
		doc.Findings = []Finding{}
	}
	return json.Marshal(doc)
}

// Failed reports whether any finding is a failure.
func (r Report) Failed() bool {
	for _, f := range r.Findings {
		if f.Severity == SeverityFail {
			return true
		}
	}
	return false
}

// Count returns how many findings have severity s.
func (r Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Option configures Check.
type Option func(*checkOptions)

type checkOptions struct {
	resolver    artifact.KitResolver
	resolverSet bool
	// layers caches composed filesystems by layer list: platforms built
	// from the same layers (COPY-only and declaration-only kits) are read
	// once.
	layers map[string]*composed
	// budget is the memory the whole Check may spend on layer contents.
	budget *kitimage.Budget
}

// composed is the outcome of reading one list of layers.
type composed struct {
	fs      *kitimage.FS
	skipped []int
	err     error
}

// WithKitResolver sets how merged-set-declarations reaches the kits a
// merged set lists. The default, for an artifact opened from a registry,
// reads them from their registries with the options Open was given; for
// other artifacts there is none and the check is skipped. A nil resolver
// skips the check.
func WithKitResolver(r artifact.KitResolver) Option {
	return func(o *checkOptions) { o.resolver, o.resolverSet = r, true }
}

func makeOptions(a *artifact.Artifact, opts []Option) checkOptions {
	var o checkOptions
	for _, opt := range opts {
		opt(&o)
	}
	if !o.resolverSet {
		o.resolver = a.Resolver()
	}
	return o
}

// CheckInfo describes one check.
type CheckInfo struct {
	// ID is the check id findings carry: kit-tck's name for the twenty
	// conformance checks, "oci-media-types" for kitsmith's own.
	ID string `json:"id"`
	// Summary says what the check asserts, in one sentence.
	Summary string `json:"summary"`
	// Spec is the specification reference findings carry by default.
	Spec string `json:"spec"`
}

// check is one rule applied to one platform manifest.
type check struct {
	CheckInfo
	run func(*checkState) []Finding
}

// Checks lists every check Check runs, in the order it runs them:
// oci-media-types, then kit-tck's artifact checks in kit-tck's order.
func Checks() []CheckInfo {
	list := kitChecks()
	out := make([]CheckInfo, 0, len(list)+2)
	out = append(out, mediaTypesInfo, descriptorAnnotationInfo)
	for _, c := range list {
		out = append(out, c.CheckInfo)
	}
	return out
}

// Check judges the artifact: every platform manifest, and the index. It
// returns an error only when the artifact cannot be read (a registry or
// file that fails, a cancelled ctx); everything wrong with the artifact
// itself is a finding.
func Check(ctx context.Context, a *artifact.Artifact, opts ...Option) (*Report, error) {
	if a == nil {
		return nil, errors.New("artifact: no index or image; use Open, FromIndex or FromImage")
	}
	o := makeOptions(a, opts)
	idx, _ := a.Index()
	img, _ := a.Image()
	st, err := kitimage.Load(ctx, idx, img)
	if err != nil {
		return nil, err
	}
	rep := &Report{Reference: a.Reference(), Platforms: []string{}, Findings: []Finding{}}
	rep.Findings = append(rep.Findings, indexMediaTypeFindings(st)...)
	if len(st.Manifests) == 0 {
		rep.Findings = append(rep.Findings, Finding{Check: "descriptor-annotation", Severity: SeverityFail, Spec: "SPEC-v3 §9.3",
			Message: "the index lists no platform image manifest, so there is no kit to read: a kit index lists one image manifest per platform"})
		return rep, nil
	}
	o.layers = map[string]*composed{}
	o.budget = kitimage.NewBudget()
	for _, m := range st.Manifests {
		rep.Platforms = append(rep.Platforms, m.Platform)
		fs, err := checkManifest(ctx, st, m, o)
		if err != nil {
			return nil, fmt.Errorf("checking %s: %w", m.Platform, err)
		}
		rep.Findings = append(rep.Findings, fs...)
	}
	return rep, nil
}

// checkManifest runs every check on one platform manifest.
func checkManifest(ctx context.Context, st *kitimage.Structure, m *kitimage.Manifest, o checkOptions) ([]Finding, error) {
	s := &checkState{ctx: ctx, st: st, m: m, ann: m.Annotations(), resolver: o.resolver, layers: o.layers, budget: o.budget}
	var out []Finding
	emit := func(info CheckInfo, fs []Finding) {
		for _, f := range fs {
			f.Check, f.Platform = info.ID, m.Platform
			if f.Spec == "" {
				f.Spec = info.Spec
			}
			out = append(out, f)
		}
	}
	emit(mediaTypesInfo, manifestMediaTypeFindings(s))
	if fs := s.decodeDescriptor(); fs != nil {
		emit(descriptorAnnotationInfo, fs)
		return out, nil
	}
	if err := s.readLayers(); err != nil {
		return nil, err
	}
	for _, c := range kitChecks() {
		emit(c.CheckInfo, c.run(s))
	}
	return out, nil
}

// checkState is what the checks of one platform manifest share.
type checkState struct {
	ctx      context.Context
	st       *kitimage.Structure
	m        *kitimage.Manifest
	ann      map[string]string
	resolver artifact.KitResolver

	raw string
	kit *spec.Kit
	d   *spec.Descriptor

	// fs is the composed filesystem of the layers; nil when the manifest
	// has none or they could not be read (fsErr says why).
	fs            *kitimage.FS
	fsErr         error
	skippedLayers []int
	stems         []string
	stem          string
	layers        map[string]*composed
	budget        *kitimage.Budget
}

func fail(format string, args ...any) []Finding {
	return []Finding{{Severity: SeverityFail, Message: fmt.Sprintf(format, args...)}}
}

func warn(format string, args ...any) []Finding {
	return []Finding{{Severity: SeverityWarn, Message: fmt.Sprintf(format, args...)}}
}

func skip(format string, args ...any) []Finding {
	return []Finding{{Severity: SeveritySkip, Message: fmt.Sprintf(format, args...)}}
}

// withSpec sets the specification reference of findings.
func withSpec(ref string, fs []Finding) []Finding {
	for i := range fs {
		fs[i].Spec = ref
	}
	return fs
}

// readLayers composes the layers and finds the kit's own staged root.
// Content that is wrong (not a tar, a digest mismatch) is kept in fsErr
// for the checks to report; failing to reach it is an error.
func (s *checkState) readLayers() error {
	if len(s.m.Manifest.Layers) == 0 {
		return nil
	}
	var key strings.Builder
	for _, l := range s.m.Manifest.Layers {
		key.WriteString(l.Digest.String() + string(l.MediaType) + ",")
	}
	c, ok := s.layers[key.String()]
	if !ok {
		c = &composed{}
		c.fs, c.skipped, c.err = s.m.ReadFS(s.ctx, s.budget)
		if c.err != nil && kitimage.IsIOError(c.err) {
			return c.err
		}
		if s.layers != nil {
			s.layers[key.String()] = c
		}
	}
	s.skippedLayers = c.skipped
	if c.err != nil {
		s.fsErr = c.err
		return nil
	}
	s.fs = c.fs
	s.stems = c.fs.Stems()
	s.stem = kitimage.OwnStem(c.fs, s.d, s.stems)
	return nil
}

// noFS returns a skip when the layers could not be composed.
func (s *checkState) noFS() []Finding {
	switch {
	case s.fsErr != nil:
		return skip("the layers could not be read (see at-least-one-layer)")
	case s.fs == nil:
		return skip("the manifest has no layers to read (see at-least-one-layer)")
	}
	return nil
}

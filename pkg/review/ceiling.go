package review

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Violation is one grant of a kit's surface that its policy's ceiling
// does not allow.
type Violation struct {
	// Category and Grant name the surface entry ("network.runtime.allow",
	// "evil.example.org").
	Category string `json:"category"`
	Grant    string `json:"grant"`
	// Rule is the policy rule broken, as a dotted path into the policy
	// file ("ceiling.network.runtime", "ceiling.baseline").
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// At is where a kit source declares the grant, or nil.
	At *spec.Pos `json:"at,omitempty"`
	// Platforms are the platforms of a published kit the grant is on,
	// when not on every platform judged; nil otherwise.
	Platforms []string `json:"platforms,omitempty"`
}

// String formats the violation as "[file:line:col: ]message".
func (v Violation) String() string {
	if v.At != nil {
		return v.At.String() + ": " + v.Message
	}
	return v.Message
}

// CeilingResult is the verdict of the ceiling on one kit.
type CeilingResult struct {
	Kit        string      `json:"kit"`
	Digest     string      `json:"digest,omitempty"`
	Violations []Violation `json:"violations"`
	// Platforms are the platforms judged, for a published kit.
	Platforms []string `json:"platforms,omitempty"`
	// Refusals are why a published kit could not be judged at all
	// (RefusalError); a refused kit is never within the ceiling.
	Refusals []string `json:"refusals,omitempty"`
}

// OK reports whether the kit stays within the ceiling: judged, and
// without a violation.
func (r *CeilingResult) OK() bool { return len(r.Violations) == 0 && len(r.Refusals) == 0 }

// ErrNoBaseline is returned when a policy pins a baseline digest and the
// baseline's surface cannot be had: no WithBaselineSurface, and no
// registry reference to read it from.
var ErrNoBaseline = errors.New("the baseline digest's surface is not available")

// CeilingOption configures CheckCeiling and CheckArtifact.
type CeilingOption func(*ceilingOptions) error

type ceilingOptions struct {
	name     string
	kit      *Kit
	baseline *spec.Surface
	platform string
	kitArgs  map[string]string
	artOpts  []artifact.Option
	ref      string
}

// WithKit names the kit whose surface is judged, so that violations carry
// the positions of a kit source's declarations; for CheckArtifact, only
// its Source is used (the positions of the source the image was built
// from).
func WithKit(k *Kit) CeilingOption { return func(o *ceilingOptions) error { o.kit = k; return nil } }

// WithName labels the kit CheckArtifact judges; the default is the
// artifact's reference.
func WithName(name string) CeilingOption {
	return func(o *ceilingOptions) error { o.name = name; return nil }
}

// baselineRef is the reference a baseline digest is pinned in: the
// artifact's own, read back from its name.
func (o *ceilingOptions) baselineRef(name string) string {
	if o.ref != "" {
		return o.ref
	}
	return name
}

// WithBaselineRef names the reference whose repository a baseline
// digest is read from; the default is the kit's name.
func WithBaselineRef(ref string) CeilingOption {
	return func(o *ceilingOptions) error { o.ref = ref; return nil }
}

// WithBaselineSurface supplies the surface of the policy's baseline
// digest, read by the caller.
func WithBaselineSurface(s *spec.Surface) CeilingOption {
	return func(o *ceilingOptions) error { o.baseline = s; return nil }
}

// WithPlatform makes CheckArtifact judge only that platform's descriptor
// ("linux/arm64"); the default is every platform and the index's.
func WithPlatform(p string) CeilingOption {
	return func(o *ceilingOptions) error { o.platform = p; return nil }
}

// WithKitArgs supplies create-phase arg values; CheckArtifact judges the
// effective form with them and the defaults.
func WithKitArgs(args map[string]string) CeilingOption {
	return func(o *ceilingOptions) error { o.kitArgs = args; return nil }
}

// WithArtifactOptions are the options CheckArtifact opens a baseline
// digest with (registry credentials, insecure registries).
func WithArtifactOptions(opts ...artifact.Option) CeilingOption {
	return func(o *ceilingOptions) error { o.artOpts = opts; return nil }
}

func makeCeilingOptions(opts []CeilingOption) (*ceilingOptions, error) {
	o := &ceilingOptions{}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// CheckCeiling judges a surface against the policy's ceiling and returns
// every grant beyond it, in surface order, then every widening against
// the policy's baseline. A policy without a ceiling allows everything. A
// baseline digest needs WithBaselineSurface unless the kit (WithKit) is
// that digest; without it the error is ErrNoBaseline.
func CheckCeiling(s *spec.Surface, p *Policy, opts ...CeilingOption) ([]Violation, error) {
	return checkAtoms(s.Atoms(), p, opts)
}

func checkAtoms(atoms []spec.Atom, p *Policy, opts []CeilingOption) ([]Violation, error) {
	o, err := makeCeilingOptions(opts)
	if err != nil {
		return nil, err
	}
	c := p.Ceiling
	if c == nil {
		return []Violation{}, nil
	}
	var origins []spec.Origin
	if o.kit != nil && o.kit.Source != nil {
		origins = spec.SurfaceOrigins(o.kit.Descriptor)
	}
	out := []Violation{}
	add := func(category, grant, rule, why string) {
		v := Violation{Category: category, Grant: grant, Rule: rule,
			Message: fmt.Sprintf("%s %s is beyond the ceiling: %s", category, grant, why)}
		if category == spec.CatInvalid {
			v.Message = fmt.Sprintf("%s is not a valid grant: the gate refuses what it cannot read", grant)
		}
		if strings.Contains(grant, "${{") {
			v.Message += "; the grant is parameterized, so judge the effective form (the kit with its arg values given)"
		}
		v.At = o.kit.pos(origin(origins, category, grant))
		out = append(out, v)
	}
	c.judge(atoms, add)
	base, err := p.baselineSurface(o)
	if err != nil {
		return nil, err
	}
	if base != nil {
		for _, w := range spec.Widenings(base.Atoms(), atoms) {
			v := Violation{Category: w.Category, Grant: w.Detail, Rule: "ceiling.baseline",
				Message: fmt.Sprintf("%s %s widens the pinned baseline", w.Category, w.Detail)}
			v.At = o.kit.pos(origin(origins, strings.TrimSuffix(w.Category, "-removed"), w.Detail))
			out = append(out, v)
		}
	}
	return out, nil
}

func (p *Policy) baselineSurface(o *ceilingOptions) (*spec.Surface, error) {
	b := p.baselineSpec()
	switch {
	case b == nil:
		return nil, nil
	case b.Surface != "":
		if p.baseline == nil {
			return nil, fmt.Errorf("%s: ceiling.baseline.surface %s was not read (LoadPolicy reads it)", p.file, b.Surface)
		}
		return p.baseline, nil
	case o.baseline != nil:
		return o.baseline, nil
	case o.kit != nil && o.kit.Digest == b.Digest:
		return spec.SurfaceOf(o.kit.Descriptor), nil
	}
	return nil, fmt.Errorf("ceiling.baseline.digest %s: %w", b.Digest, ErrNoBaseline)
}

type addFunc func(category, grant, rule, why string)

// judge holds every atom of s to the ceiling: network hosts (connection
// and HTTP grants, and the hosts a credential's secret is presented to)
// against the phase's host patterns, each credential's service, a secret
// entering the sandbox against rawCredentials, paths against the path
// patterns, the switches, and services by their type. A grant that does
// not parse is always beyond the ceiling. Deny entries narrow and are
// not judged.
func (c *Ceiling) judge(atoms []spec.Atom, add addFunc) {
	patterns := map[string][]spec.Host{"install": parsePatterns(c.Network.Install), "runtime": parsePatterns(c.Network.Runtime)}
	reported := map[string]bool{}
	for _, a := range atoms {
		g := a.Detail()
		phase, kind := atomPhase(a.Category)
		rule := "ceiling.network." + phase
		switch kind {
		case "allow":
			if !hostAllowed(patterns[phase], a.Host) {
				reported[phase+" "+a.Host.String()] = true
				add(a.Category, g, rule, "no pattern of "+rule+" matches it")
			}
		case "http.allow":
			h := a.Host.String()
			if !reported[phase+" "+h] && !hostAllowed(patterns[phase], a.Host) {
				add(a.Category, g, rule, "no pattern of "+rule+" matches "+h)
			}
		case "deny", "http.deny":
		case "credential":
			if !slices.Contains(c.Credentials, a.Value) {
				add(a.Category, g, "ceiling.credentials", "ceiling.credentials does not allow it")
			}
		case "inject":
			if !hostAllowed(patterns[phase], a.Host) {
				add(a.Category, g, rule, "the "+a.Value+" credential's secret is presented to "+a.Host.String()+", which no pattern of "+rule+" matches")
			}
		case "raw":
			if !slices.Contains(c.RawCredentials, a.Value) {
				add(a.Category, g, "ceiling.rawCredentials", "the secret itself enters the sandbox (a named apiKey without proxyManaged: true), and ceiling.rawCredentials does not allow it")
			}
		default:
			if rule, ok := c.allows(a); !ok {
				add(a.Category, g, rule, rule+" does not allow it")
			}
		}
	}
}

// atomPhase splits a per-phase category into its phase and what it is:
// allow, deny, http.allow, http.deny, credential, inject or raw.
func atomPhase(category string) (phase, kind string) {
	if rest, ok := strings.CutPrefix(category, "network."); ok {
		phase, kind, _ = strings.Cut(rest, ".")
		return phase, kind
	}
	if rest, ok := strings.CutPrefix(category, "credentials."); ok {
		phase, kind, _ = strings.Cut(rest, ".")
		if kind == "" {
			kind = "credential"
		}
		return phase, kind
	}
	return "", ""
}

// allows judges an atom outside the network and credentials, returning
// the rule it falls under.
func (c *Ceiling) allows(a spec.Atom) (string, bool) {
	switch a.Category {
	case spec.CatSSHAgent:
		return "ceiling.sshAgent", c.SSHAgent
	case spec.CatStorage:
		return "ceiling.volumes", pathIn(c.Volumes, a.Path)
	case spec.CatHostMount:
		return "ceiling.hostMounts", pathIn(c.HostMounts, a.Path)
	case spec.CatSkills:
		return "ceiling.skills", pathIn(c.Skills, a.Path)
	case spec.CatSkillsWrite:
		return "ceiling.skillsWrite", c.SkillsWrite
	case spec.CatPorts:
		return "ceiling.ports", c.Ports
	case spec.CatUSB:
		return "ceiling.usb", c.USB
	case spec.CatServices:
		return "ceiling.services", spec.ValidType(a.Value) && slices.Contains(c.Services, a.Value)
	case spec.CatPrivileged:
		return "ceiling.privileged", c.Privileged
	}
	// invalid, or a category this ceiling does not know: refused.
	return "ceiling", false
}

// pathIn matches a cleaned absolute path against path patterns: the
// path itself, or dir/** for dir and everything under it.
func pathIn(patterns []string, p string) bool {
	for _, pat := range patterns {
		if spec.PathGlobCovers(pat, p) {
			return true
		}
	}
	return false
}

// parsePatterns parses a ceiling's host patterns (checked at load).
func parsePatterns(list []string) []spec.Host {
	out := make([]spec.Host, 0, len(list))
	for _, p := range list {
		if h, err := spec.ParseHost(p); err == nil {
			out = append(out, h)
		}
	}
	return out
}

// hostAllowed reports whether one of the patterns covers every
// destination the surface host pattern h grants.
func hostAllowed(patterns []spec.Host, h spec.Host) bool {
	for _, p := range patterns {
		if p.Covers(h) {
			return true
		}
	}
	return false
}

// CheckKit judges a kit's surface against the policy's ceiling, with the
// positions of a kit source's declarations.
func CheckKit(k *Kit, p *Policy, opts ...CeilingOption) (*CeilingResult, error) {
	vs, err := checkAtoms(spec.AtomsOf(k.Descriptor), p, append([]CeilingOption{WithKit(k)}, opts...))
	if err != nil {
		return nil, err
	}
	return &CeilingResult{Kit: k.Name, Digest: k.Digest, Violations: vs}, nil
}

// CheckArtifact judges the kit an opened artifact carries against the
// policy's ceiling, as Published reads it: every descriptor a consumer
// can be served (the index's and each platform's, or the one platform
// WithPlatform names), each validated in published and effective mode
// and judged in its effective form under WithKitArgs and the defaults.
// Each violation names the platforms it is on. A kit Published refuses
// comes back with its reasons in Refusals, never as a pass. A baseline
// digest other than the artifact's is read from the artifact's
// repository (registry references only), with WithArtifactOptions. No
// network is used otherwise.
func CheckArtifact(ctx context.Context, a *artifact.Artifact, p *Policy, opts ...CeilingOption) (*CeilingResult, error) {
	o, err := makeCeilingOptions(opts)
	if err != nil {
		return nil, err
	}
	kits, err := Published(ctx, a, o.name, PublishedOptions{Platform: o.platform, KitArgs: o.kitArgs})
	var re *RefusalError
	if errors.As(err, &re) {
		in, ierr := a.Inspect(ctx)
		if ierr != nil {
			return nil, ierr
		}
		return &CeilingResult{Kit: re.Kit, Digest: in.Digest, Violations: []Violation{}, Refusals: re.Reasons}, nil
	}
	if err != nil {
		return nil, err
	}
	if o.kit != nil && o.kit.Source != nil {
		for _, k := range kits {
			k.Source = o.kit.Source
		}
	}
	return checkKits(ctx, kits, p, o, opts)
}

// checkKits judges the kits Published returned for one artifact, and
// merges their verdicts: a violation on several platforms is listed once
// with all of them.
func checkKits(ctx context.Context, kits []*Kit, p *Policy, o *ceilingOptions, opts []CeilingOption) (*CeilingResult, error) {
	res := &CeilingResult{Kit: kits[0].Name, Digest: kits[0].Digest, Violations: []Violation{}}
	if b := p.baselineSpec(); b != nil && b.Digest != "" && b.Digest != res.Digest && o.baseline == nil {
		s, err := BaselineSurface(ctx, o.baselineRef(res.Kit), b.Digest, o.platform, o.kitArgs, o.artOpts...)
		if err != nil {
			return nil, err
		}
		opts = append(opts, WithBaselineSurface(s))
	}
	seen := map[string]int{}
	for _, k := range kits {
		r, err := CheckKit(k, p, append(opts, WithKit(k))...)
		if err != nil {
			return nil, err
		}
		for _, v := range r.Violations {
			key := v.Rule + "\x00" + v.Category + "\x00" + v.Grant
			if i, ok := seen[key]; ok {
				res.Violations[i].Platforms = append(res.Violations[i].Platforms, k.Platforms...)
				continue
			}
			v.Platforms = append([]string(nil), k.Platforms...)
			seen[key] = len(res.Violations)
			res.Violations = append(res.Violations, v)
		}
		res.Platforms = append(res.Platforms, k.Platforms...)
	}
	for i := range res.Violations {
		if len(res.Violations[i].Platforms) == len(res.Platforms) {
			res.Violations[i].Platforms = nil // on every platform
		}
	}
	return res, nil
}

// BaselineSurface reads the permission surface of a policy's pinned
// baseline: the kit at digest in ref's repository (a registry reference;
// never what a tag points at now), for platform ("" for the index's), in
// the effective form under kitArgs. A reference that cannot be pinned
// wraps ErrNoBaseline.
func BaselineSurface(ctx context.Context, ref, digest, platform string, kitArgs map[string]string, artOpts ...artifact.Option) (*spec.Surface, error) {
	r, err := artifact.ParseReference(ref)
	var bref string
	if err == nil {
		bref, err = r.Pinned(digest)
	}
	if err != nil {
		return nil, fmt.Errorf("ceiling.baseline.digest %s: %w: %s is not a registry reference; pin a surface file instead", digest, ErrNoBaseline, ref)
	}
	ba, err := artifact.Open(ctx, bref, artOpts...)
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	bks, err := Published(ctx, ba, bref, PublishedOptions{Platform: platform, KitArgs: kitArgs})
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	bk, err := onePlatformSet(bref, bks)
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	return spec.SurfaceOf(bk.Descriptor), nil
}

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
}

// OK reports whether the kit stays within the ceiling.
func (r *CeilingResult) OK() bool { return len(r.Violations) == 0 }

// ErrNoBaseline is returned when a policy pins a baseline digest and the
// baseline's surface cannot be had: no WithBaselineSurface, and no
// registry reference to read it from.
var ErrNoBaseline = errors.New("the baseline digest's surface is not available")

// CeilingOption configures CheckCeiling and CheckArtifact.
type CeilingOption func(*ceilingOptions) error

type ceilingOptions struct {
	kit      *Kit
	baseline *spec.Surface
	platform string
	kitArgs  map[string]string
	artOpts  []artifact.Option
}

// WithKit names the kit whose surface is judged, so that violations carry
// the positions of a kit source's declarations.
func WithKit(k *Kit) CeilingOption { return func(o *ceilingOptions) error { o.kit = k; return nil } }

// WithBaselineSurface supplies the surface of the policy's baseline
// digest, read by the caller.
func WithBaselineSurface(s *spec.Surface) CeilingOption {
	return func(o *ceilingOptions) error { o.baseline = s; return nil }
}

// WithPlatform selects the platform manifest CheckArtifact reads the
// descriptor from; the default is the artifact's (artifact.Inspect).
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
		if strings.Contains(grant, "${{") {
			v.Message += "; the grant is parameterized, so judge the effective form (--kit-arg)"
		}
		v.At = o.kit.pos(origin(origins, category, grant))
		out = append(out, v)
	}
	c.checkNetwork(s, add)
	c.checkLists(s, add)
	base, err := p.baselineSurface(o)
	if err != nil {
		return nil, err
	}
	if base != nil {
		for _, w := range base.Widenings(s) {
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

func (c *Ceiling) checkNetwork(s *spec.Surface, add addFunc) {
	for _, ph := range []struct {
		name       string
		allow      []string
		httpAllow  []string
		categories [2]string
	}{
		{"install", s.NetworkInstallAllow, s.NetworkInstallHTTPAllow, [2]string{"network.install.allow", "network.install.http.allow"}},
		{"runtime", s.NetworkRuntimeAllow, s.NetworkRuntimeHTTPAllow, [2]string{"network.runtime.allow", "network.runtime.http.allow"}},
	} {
		patterns := c.Network.Install
		if ph.name == "runtime" {
			patterns = c.Network.Runtime
		}
		rule := "ceiling.network." + ph.name
		reported := map[string]bool{}
		for _, h := range ph.allow {
			if !hostAllowed(patterns, h) {
				reported[h] = true
				add(ph.categories[0], h, rule, "no pattern of "+rule+" matches it")
			}
		}
		for _, a := range ph.httpAllow {
			h := atomHost(a)
			if !reported[h] && !hostAllowed(patterns, h) {
				add(ph.categories[1], a, rule, "no pattern of "+rule+" matches "+h)
			}
		}
	}
}

func (c *Ceiling) checkLists(s *spec.Surface, add addFunc) {
	for _, l := range []struct {
		category string
		grants   []string
		rule     string
		ok       func(string) bool
	}{
		{"credentials.install", s.CredentialsInstall, "ceiling.credentials", in(c.Credentials)},
		{"credentials.runtime", s.CredentialsRuntime, "ceiling.credentials", in(c.Credentials)},
		{"ssh-agent", s.SSHAgent, "ceiling.sshAgent", func(string) bool { return c.SSHAgent }},
		{"storage", s.StoragePaths, "ceiling.volumes", pathIn(c.Volumes)},
		{"host-mount", s.HostMountPaths, "ceiling.hostMounts", pathIn(c.HostMounts)},
		{"skills", s.SkillsPaths, "ceiling.skills", pathIn(c.Skills)},
		{"skills.write", s.SkillsWritePaths, "ceiling.skillsWrite", func(string) bool { return c.SkillsWrite }},
		{"ports", s.Ports, "ceiling.ports", func(string) bool { return c.Ports }},
		{"usb", s.USB, "ceiling.usb", func(string) bool { return c.USB }},
		{"services", s.Services, "ceiling.services", func(g string) bool {
			t, _, _ := strings.Cut(g, "+")
			return slices.Contains(c.Services, t)
		}},
	} {
		for _, g := range l.grants {
			if !l.ok(g) {
				add(l.category, g, l.rule, l.rule+" does not allow it")
			}
		}
	}
	if s.Privileged && !c.Privileged {
		add("privileged", spec.PrivilegedGrant, "ceiling.privileged", "ceiling.privileged does not allow it")
	}
}

func in(list []string) func(string) bool {
	return func(s string) bool { return slices.Contains(list, s) }
}

// pathIn matches a path against path patterns: the path itself, or
// dir/** for dir and everything under it.
func pathIn(patterns []string) func(string) bool {
	return func(p string) bool {
		for _, pat := range patterns {
			if dir, ok := strings.CutSuffix(pat, "/**"); ok {
				if p == dir || strings.HasPrefix(p, dir+"/") || dir == "" {
					return true
				}
			} else if p == pat {
				return true
			}
		}
		return false
	}
}

// atomHost returns the host of an HTTP grant "<METHOD> <host><path>".
func atomHost(a string) string {
	_, rest, _ := strings.Cut(a, " ")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i]
	}
	return rest
}

// hostAllowed reports whether one of the patterns covers every
// destination the surface host pattern h grants.
func hostAllowed(patterns []string, h string) bool {
	for _, p := range patterns {
		if hostCovers(p, h) {
			return true
		}
	}
	return false
}

func hostCovers(pattern, h string) bool {
	if pattern == "*" || pattern == "**" {
		return true
	}
	pname, pport, _ := strings.Cut(pattern, ":")
	name, port, _ := strings.Cut(h, ":")
	if pport != "" && pport != port {
		return false
	}
	return spec.HostNameCovers(pname, name)
}

// CheckKit judges a kit's surface against the policy's ceiling, with the
// positions of a kit source's declarations.
func CheckKit(k *Kit, p *Policy, opts ...CeilingOption) (*CeilingResult, error) {
	vs, err := CheckCeiling(spec.SurfaceOf(k.Descriptor), p, append([]CeilingOption{WithKit(k)}, opts...)...)
	if err != nil {
		return nil, err
	}
	return &CeilingResult{Kit: k.Name, Digest: k.Digest, Violations: vs}, nil
}

// CheckArtifact judges the kit an opened artifact carries against the
// policy's ceiling: its published descriptor, in the effective form under
// WithKitArgs and the defaults. A baseline digest other than the
// artifact's is read from the artifact's repository (registry references
// only), with WithArtifactOptions. No network is used otherwise.
func CheckArtifact(ctx context.Context, a *artifact.Artifact, p *Policy, opts ...CeilingOption) (*CeilingResult, error) {
	o, err := makeCeilingOptions(opts)
	if err != nil {
		return nil, err
	}
	k, err := FromArtifact(ctx, a, "", o.platform)
	if err != nil {
		return nil, err
	}
	if k, err = k.Effective(o.kitArgs); err != nil {
		return nil, err
	}
	if b := p.baselineSpec(); b != nil && b.Digest != "" && b.Digest != k.Digest && o.baseline == nil {
		s, err := BaselineSurface(ctx, k.Name, b.Digest, o.platform, o.kitArgs, o.artOpts...)
		if err != nil {
			return nil, err
		}
		opts = append(opts, WithBaselineSurface(s))
	}
	return CheckKit(k, p, opts...)
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
	bk, err := FromArtifact(ctx, ba, bref, platform)
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	if bk, err = bk.Effective(kitArgs); err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	return spec.SurfaceOf(bk.Descriptor), nil
}

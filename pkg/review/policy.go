package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/sign/signer"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// PolicyVersion is the only policy file grammar version this package
// reads.
const PolicyVersion = "1"

// Policy is a team's admission policy for kits (docs/policy.md): who may
// publish them (Signers, GitHubWorkflow) and how much authority they may
// ask for (Ceiling). Signers are the one signer type (signer.Signer),
// which sign.TrustedSigner is too.
type Policy struct {
	// PolicyVersion is PolicyVersion.
	PolicyVersion string `yaml:"policyVersion" json:"policyVersion"`
	// Signers are the trusted signer identities; a signature by any of
	// them is accepted.
	Signers []signer.Signer `yaml:"signers,omitempty" json:"signers,omitempty"`
	// GitHubWorkflow are certificate claims every accepted signature must
	// also carry, or nil.
	GitHubWorkflow *GitHubWorkflow `yaml:"githubWorkflow,omitempty" json:"githubWorkflow,omitempty"`
	// Ceiling is the most authority a kit may ask for, or nil for no
	// ceiling.
	Ceiling *Ceiling `yaml:"ceiling,omitempty" json:"ceiling,omitempty"`

	// baseline is the surface file Ceiling.Baseline.Surface names, read
	// by LoadPolicy.
	baseline *spec.Surface
	file     string
}

// GitHubWorkflow are GitHub Actions certificate claims (the Fulcio
// extensions cosign's --certificate-github-workflow-* flags match). An
// empty field is not checked.
type GitHubWorkflow struct {
	Repository string `yaml:"repository,omitempty" json:"repository,omitempty"`
	Ref        string `yaml:"ref,omitempty" json:"ref,omitempty"`
	Trigger    string `yaml:"trigger,omitempty" json:"trigger,omitempty"`
	Name       string `yaml:"name,omitempty" json:"name,omitempty"`
	SHA        string `yaml:"sha,omitempty" json:"sha,omitempty"`
}

// Ceiling is a permission ceiling: what a kit's surface may grant. Every
// omitted list allows nothing and every omitted switch is off, so a
// ceiling states everything it allows.
type Ceiling struct {
	// Network are the allowed destinations per phase, as host patterns:
	// host, host:port, *.example.org (one label), **.example.org (any
	// labels), or * and ** for everything.
	Network NetworkCeiling `yaml:"network,omitempty" json:"network,omitzero"`
	// Credentials are the allowed credential services, in either phase.
	// The hosts a credential's secret is presented to (inject domains,
	// OAuth token endpoint and resource hosts) must be allowed by
	// Network in the credential's phase.
	Credentials []string `yaml:"credentials,omitempty" json:"credentials,omitempty"`
	// RawCredentials are the services whose secret itself may enter the
	// sandbox: an apiKey with a name and without proxyManaged: true.
	RawCredentials []string `yaml:"rawCredentials,omitempty" json:"rawCredentials,omitempty"`
	// HostMounts and Volumes are the allowed host-mount@1 and volume@1
	// paths: a path, or a directory followed by /** for it and everything
	// under it.
	HostMounts []string `yaml:"hostMounts,omitempty" json:"hostMounts,omitempty"`
	Volumes    []string `yaml:"volumes,omitempty" json:"volumes,omitempty"`
	// Skills are the allowed agent-skills@1 paths, as path patterns;
	// SkillsWrite allows them read-write.
	Skills      []string `yaml:"skills,omitempty" json:"skills,omitempty"`
	SkillsWrite bool     `yaml:"skillsWrite,omitempty" json:"skillsWrite,omitempty"`
	// Services are the other requests allowed, by capability type (any
	// config): git-identity@1, kit-registry@1, unknown types.
	Services []string `yaml:"services,omitempty" json:"services,omitempty"`
	// Privileged, SSHAgent, USB and Ports allow privileged@1, any
	// ssh-agent@1 grant, any usb-device@1 match and any port@1.
	Privileged bool `yaml:"privileged,omitempty" json:"privileged,omitempty"`
	SSHAgent   bool `yaml:"sshAgent,omitempty" json:"sshAgent,omitempty"`
	USB        bool `yaml:"usb,omitempty" json:"usb,omitempty"`
	Ports      bool `yaml:"ports,omitempty" json:"ports,omitempty"`
	// Baseline pins a kit's surface: any widening against it fails.
	Baseline *Baseline `yaml:"baseline,omitempty" json:"baseline,omitempty"`
}

// NetworkCeiling are the allowed destinations of each phase.
type NetworkCeiling struct {
	Install []string `yaml:"install,omitempty" json:"install,omitempty"`
	Runtime []string `yaml:"runtime,omitempty" json:"runtime,omitempty"`
}

// Baseline is a pinned surface: the kit published at Digest, or the
// surface recorded in the JSON file Surface (relative to the policy
// file; kitsmith diff --format json and kitsmith inspect --format json
// write one). Exactly one is set.
type Baseline struct {
	Digest  string `yaml:"digest,omitempty" json:"digest,omitempty"`
	Surface string `yaml:"surface,omitempty" json:"surface,omitempty"`
}

// ErrPolicy is wrapped by every error about a policy file's content.
var ErrPolicy = errors.New("invalid policy")

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// LoadPolicy reads and checks the policy file at path, and the baseline
// surface file it names.
func LoadPolicy(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the policy: %w", err)
	}
	p, err := ParsePolicy(path, b)
	if err != nil {
		return nil, err
	}
	if bl := p.baselineSpec(); bl != nil && bl.Surface != "" {
		sp := bl.Surface
		if !filepath.IsAbs(sp) {
			sp = filepath.Join(filepath.Dir(path), sp)
		}
		if p.baseline, err = LoadSurface(sp); err != nil {
			return nil, fmt.Errorf("%s: ceiling.baseline.surface: %w", path, err)
		}
	}
	return p, nil
}

// ParsePolicy decodes and checks a policy file; name labels it in errors.
// Unknown keys are errors. A baseline surface file is not read (see
// LoadPolicy).
func ParsePolicy(name string, src []byte) (*Policy, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	var p Policy
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %w: the file is empty", name, ErrPolicy)
		}
		return nil, fmt.Errorf("%s: %w: %w", name, ErrPolicy, err)
	}
	p.file = name
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err == nil {
		if err := stringsQuoted(&doc, ""); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", name, ErrPolicy, err)
		}
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, ErrPolicy, err)
	}
	return &p, nil
}

// stringKeys are the policy keys whose values, or list items, are
// strings.
var stringKeys = map[string]bool{
	"policyVersion": true, "identity": true, "identityRegexp": true, "issuer": true, "issuerRegexp": true,
	"repository": true, "ref": true, "trigger": true, "name": true, "sha": true, "digest": true, "surface": true,
	"install": true, "runtime": true, "credentials": true, "rawCredentials": true, "hostMounts": true, "volumes": true, "skills": true, "services": true,
}

// stringsQuoted refuses a null and a string field written as another
// YAML scalar (policyVersion: 1, sha: 0123), which the decoder would take
// as empty or as text but the schema, and an editor using it, refuse.
func stringsQuoted(n *yaml.Node, key string) error {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := stringsQuoted(c, ""); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := stringsQuoted(n.Content[i+1], n.Content[i].Value); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if err := stringsQuoted(c, key); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return fmt.Errorf("line %d: %s is null; give it a value or remove it", n.Line, key)
		}
		if stringKeys[key] && n.Tag != "!!str" {
			return fmt.Errorf("line %d: %s: %q is not a string; quote it", n.Line, key, n.Value)
		}
	}
	return nil
}

func (p *Policy) baselineSpec() *Baseline {
	if p.Ceiling == nil {
		return nil
	}
	return p.Ceiling.Baseline
}

func (p *Policy) check() error {
	if p.PolicyVersion != PolicyVersion {
		return fmt.Errorf("policyVersion is %q; this kitsmith reads %q", p.PolicyVersion, PolicyVersion)
	}
	if len(p.Signers) == 0 && p.Ceiling == nil {
		return errors.New("the policy states neither signers nor a ceiling")
	}
	for i, s := range p.Signers {
		if err := s.Check(); err != nil {
			return fmt.Errorf("signers[%d]: %w", i, err)
		}
	}
	if c := p.Ceiling; c != nil {
		return c.check()
	}
	return nil
}

// SignerMatchers returns the policy's signers as a verifier is to match
// them (signer.Signer.WholeMatch): every regular expression wrapped as
// ^(?:expr)$, so that it matches whole identities and issuers only.
func (p *Policy) SignerMatchers() []signer.Signer {
	out := make([]signer.Signer, len(p.Signers))
	for i, s := range p.Signers {
		out[i] = s.WholeMatch()
	}
	return out
}

func (c *Ceiling) check() error {
	for _, l := range []struct {
		name string
		list []string
		ok   func(string) error
	}{
		{"network.install", c.Network.Install, checkHostPattern}, {"network.runtime", c.Network.Runtime, checkHostPattern},
		{"hostMounts", c.HostMounts, checkPathPattern}, {"volumes", c.Volumes, checkPathPattern}, {"skills", c.Skills, checkPathPattern},
		{"credentials", c.Credentials, nonEmpty}, {"rawCredentials", c.RawCredentials, nonEmpty}, {"services", c.Services, nonEmpty},
	} {
		for i, v := range l.list {
			if err := l.ok(v); err != nil {
				return fmt.Errorf("ceiling.%s[%d]: %w", l.name, i, err)
			}
		}
	}
	if b := c.Baseline; b != nil {
		switch {
		case (b.Digest == "") == (b.Surface == ""):
			return errors.New("ceiling.baseline: state exactly one of digest and surface")
		case b.Digest != "" && !digestRE.MatchString(b.Digest):
			return fmt.Errorf("ceiling.baseline.digest %q is not sha256:<64 hex digits>", b.Digest)
		}
	}
	return nil
}

func nonEmpty(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty entry")
	}
	return nil
}

// pathPatternRE is the item pattern of schemas/policy.schema.json for
// paths.
var pathPatternRE = regexp.MustCompile(`^/[^*]*(/\*\*)?$`)

// checkHostPattern parses a ceiling host pattern as spec.ParseHost does,
// refusing a wildcard that does not stand first (bedrock-*.example.org),
// whose meaning is the runtime's matcher's, and a reference.
func checkHostPattern(s string) error {
	h, err := spec.ParseHost(s)
	switch {
	case err != nil:
	case h.Kind == spec.HostGlob || h.Kind == spec.HostParam:
		err = errors.New("a wildcard stands only first")
	case h.Kind == spec.HostAny && h.Port != 0:
		err = errors.New("* and ** take no port")
	}
	if err != nil {
		return fmt.Errorf("%q is not a host pattern (%w): write host, host:port, *.domain or **.domain (a wildcard stands only first), * or **", s, err)
	}
	return nil
}

// checkPathPattern refuses a path pattern that is not absolute and
// canonical, or has a wildcard other than a final /**.
func checkPathPattern(s string) error {
	dir := strings.TrimSuffix(s, "/**")
	if !pathPatternRE.MatchString(s) || dir != "" && path.Clean(dir) != dir {
		return fmt.Errorf("%q is not a path pattern: write an absolute, clean path (no . or .. elements, no trailing /), or a directory followed by /**", s)
	}
	return nil
}

// LoadSurface reads a surface recorded as JSON: a spec.Surface itself,
// the "surface" member of kitsmith resolve --format json, or the
// kit.permissionSurface member of kitsmith inspect --format json.
func LoadSurface(path string) (*spec.Surface, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the surface: %w", err)
	}
	var doc struct {
		Surface *spec.Surface `json:"surface"`
		Kit     struct {
			Surface *spec.Surface `json:"permissionSurface"`
		} `json:"kit"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("reading the surface %s: %w", path, err)
	}
	s := doc.Surface
	if s == nil {
		s = doc.Kit.Surface
	}
	if s == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		s = &spec.Surface{}
		if err := dec.Decode(s); err != nil {
			return nil, fmt.Errorf("reading the surface %s: not a recorded surface: %w", path, err)
		}
	}
	// Every grant is read as the typed atom it records; a baseline that
	// does not parse would cover nothing a gate can vouch for.
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("reading the surface %s: %w", path, err)
	}
	return s, nil
}

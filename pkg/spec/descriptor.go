package spec

import (
	"encoding/json"
	"fmt"
	"slices"
)

// SchemaVersion is the only descriptor grammar version this package reads.
const SchemaVersion = "3"

// Kit kinds. A workload's layers are a root filesystem; a mixin's are an
// overlay; a set is an authoring kind whose content is a list of published
// kits and which is published as the kind those kits imply.
const (
	KindWorkload = "workload"
	KindMixin    = "mixin"
	KindSet      = "set"
)

// Syntax lines that mark a kit descriptor (line 1 of a YAML descriptor, or
// the first line of a Dockerfile carrying a comment descriptor).
const (
	SyntaxLine        = "# syntax=docker/sandbox-kit:3"
	RuntimeSyntaxLine = "# syntax=docker/runtime-kit:3" // legacy docs spelling
)

// Descriptor is the typed model of a kit descriptor (SPEC-v3 §4). Field
// order follows the specification's reference model, so that
// json.Marshal yields the published annotation's canonical layout.
type Descriptor struct {
	SchemaVersion string         `json:"schemaVersion"`
	DisplayName   string         `json:"displayName,omitempty"`
	Author        string         `json:"author,omitempty"`
	Description   string         `json:"description,omitempty"`
	SourceURL     string         `json:"sourceUrl,omitempty"`
	IconURL       string         `json:"iconUrl,omitempty"`
	Version       string         `json:"version,omitempty"`
	Licenses      []string       `json:"licenses,omitempty"`
	Kind          string         `json:"kind"`
	Provides      []string       `json:"provides,omitempty"`
	Requires      []string       `json:"requires,omitempty"`
	Integrates    []string       `json:"integrates,omitempty"`
	Conflicts     []string       `json:"conflicts,omitempty"`
	Capabilities  []Capability   `json:"capabilities,omitempty"`
	Args          map[string]Arg `json:"args,omitempty"`
	Build         string         `json:"build,omitempty"`
	Kits          []KitRef       `json:"kits,omitempty"`
	Dockerfile    string         `json:"dockerfile,omitempty"`
}

// Arg declares an installer-supplied value (SPEC-v3 §6). An arg with
// BuildArg is expanded at build time; one with Env, or private, at create
// time.
type Arg struct {
	Description string `json:"description,omitempty"`
	// Default is nil when no default is declared; "" is a default.
	Default  *string  `json:"default,omitempty"`
	Required bool     `json:"required,omitempty"`
	Enum     []string `json:"enum,omitempty"`
	Pattern  string   `json:"pattern,omitempty"`
	Env      string   `json:"env,omitempty"`
	BuildArg string   `json:"buildArg,omitempty"`
}

// Phase reports when the arg is expanded: PhaseBuild for args with a
// buildArg, PhaseCreate for the others.
func (a Arg) Phase() ArgPhase {
	if a.BuildArg != "" {
		return PhaseBuild
	}
	return PhaseCreate
}

// ArgPhase is when an arg reference is expanded.
type ArgPhase int

// Arg phases.
const (
	PhaseCreate ArgPhase = iota
	PhaseBuild
)

// String returns "build" or "create".
func (p ArgPhase) String() string {
	if p == PhaseBuild {
		return "build"
	}
	return "create"
}

// KitRef is one entry of a set's kits list (SPEC-v3 §3.4).
type KitRef struct {
	Ref    string            `json:"ref"`
	Digest string            `json:"digest,omitempty"`
	Args   map[string]string `json:"args,omitempty"`
}

// Capability is one item of the capabilities list: either an ordinary
// typed entry or, when Group is set, a group of entries (SPEC-v3 §7).
type Capability struct {
	Group  *Group  `json:"group,omitempty"`
	Source *Source `json:"source,omitempty"`

	Type     string `json:"type,omitempty"`
	Name     string `json:"name,omitempty"`
	Optional bool   `json:"optional,omitempty"`
	// Config is the type-specific payload in the JSON data model. A nil
	// Config with HasConfig set means an explicit null.
	Config      map[string]any `json:"config,omitempty"`
	Description string         `json:"description,omitempty"`

	// HasConfig records that the document states a config key at all,
	// which config-less types refuse even when it is null or {}.
	HasConfig bool `json:"-"`
}

// Group is an all-or-nothing group of capability entries (SPEC-v3 §7.1.1).
type Group struct {
	Name         string       `json:"name,omitempty"`
	Description  string       `json:"description,omitempty"`
	Optional     bool         `json:"optional,omitempty"`
	Capabilities []Capability `json:"capabilities"`
}

// Source attributes a capability entry to the kit it came from. It is
// diagnostic metadata only.
type Source struct {
	Kit  string `json:"kit,omitempty"`
	Path string `json:"path"`
}

// UnmarshalJSON records whether config was stated.
func (c *Capability) UnmarshalJSON(b []byte) error {
	type plain Capability
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	_, p.HasConfig = keys["config"]
	*c = Capability(p)
	return nil
}

// MarshalJSON keeps an explicitly stated null or empty config, so that
// re-decoding the output reports it the same way.
func (c Capability) MarshalJSON() ([]byte, error) {
	type plain Capability
	if !c.HasConfig || len(c.Config) > 0 {
		return json.Marshal(plain(c))
	}
	var cfg any // null
	if c.Config != nil {
		cfg = map[string]any{}
	}
	return json.Marshal(struct {
		Group       *Group  `json:"group,omitempty"`
		Source      *Source `json:"source,omitempty"`
		Type        string  `json:"type,omitempty"`
		Name        string  `json:"name,omitempty"`
		Optional    bool    `json:"optional,omitempty"`
		Config      any     `json:"config"`
		Description string  `json:"description,omitempty"`
	}{c.Group, c.Source, c.Type, c.Name, c.Optional, cfg, c.Description})
}

// Entries returns every ordinary entry of the descriptor, group members
// included, with the index path at which it was declared.
func (d *Descriptor) Entries() []Entry {
	var out []Entry
	for i, c := range d.Capabilities {
		if c.Group != nil {
			for j, m := range c.Group.Capabilities {
				out = append(out, Entry{Capability: m, Index: i, Member: j, InGroup: true, Group: c.Group})
			}
			continue
		}
		out = append(out, Entry{Capability: c, Index: i, Member: -1})
	}
	return out
}

// Entry is an ordinary capability entry with where it was declared.
type Entry struct {
	Capability
	// Index is the position in the top-level capabilities list.
	Index int
	// Member is the position inside the group, or -1.
	Member  int
	InGroup bool
	Group   *Group
}

// Field returns the dotted path of the entry, e.g. "capabilities[2]" or
// "capabilities[1].group.capabilities[0]".
func (e Entry) Field() string {
	if e.InGroup {
		return fmt.Sprintf("capabilities[%d].group.capabilities[%d]", e.Index, e.Member)
	}
	return fmt.Sprintf("capabilities[%d]", e.Index)
}

// CapabilityTypes returns the distinct capability types the descriptor
// declares, group members included, sorted.
func (d *Descriptor) CapabilityTypes() []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range d.Entries() {
		if e.Type != "" && !seen[e.Type] {
			seen[e.Type] = true
			out = append(out, e.Type)
		}
	}
	slices.Sort(out)
	return out
}

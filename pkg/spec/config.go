package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
)

// DecodeConfig decodes a capability config (in the JSON data model) into
// the typed config of a well-known type, rejecting unknown fields. It fails
// on configs that still hold unexpanded references where a number or
// boolean belongs.
func DecodeConfig(config map[string]any, out any) error {
	b, err := json.Marshal(config)
	if err != nil {
		return fmt.Errorf("encoding config: %w", err)
	}
	return decodeConfigJSON(b, out)
}

// decodeConfigJSON decodes a config already encoded as JSON.
func decodeConfigJSON(b []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("decoding config: %w", err)
	}
	return nil
}

// NetworkPolicy is the config of network-policy@1 and @2.
type NetworkPolicy struct {
	Install *NetworkRules `json:"install,omitempty"`
	Runtime *NetworkRules `json:"runtime,omitempty"`
}

// Phase returns the rules of a phase ("install" or "runtime"), or nil.
func (p *NetworkPolicy) Phase(phase string) *NetworkRules {
	if p == nil {
		return nil
	}
	if phase == "install" {
		return p.Install
	}
	return p.Runtime
}

// NetworkRules are one phase's allow and deny lists.
type NetworkRules struct {
	Allow []NetworkEntry `json:"allow,omitempty"`
	Deny  []NetworkEntry `json:"deny,omitempty"`
}

// NetworkEntry is a host pattern (written as a string) or, in
// network-policy@2, a bounded entry {hosts, methods, paths}.
type NetworkEntry struct {
	Hosts   []string `json:"hosts"`
	Methods []string `json:"methods,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	// Object reports an entry written as an object (as opposed to a bare
	// host string).
	Object bool `json:"-"`
	// MethodsStated and PathsStated record keys written with an empty
	// list, which the specification refuses.
	MethodsStated, PathsStated bool `json:"-"`
}

// UnmarshalJSON accepts a host string or an entry object.
func (e *NetworkEntry) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*e = NetworkEntry{Hosts: []string{s}}
		return nil
	}
	type plain NetworkEntry
	var p plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(b, &keys)
	_, p.MethodsStated = keys["methods"]
	_, p.PathsStated = keys["paths"]
	p.Object = true
	*e = NetworkEntry(p)
	return nil
}

// Bounded reports whether the entry limits methods or paths.
func (e NetworkEntry) Bounded() bool { return len(e.Methods) > 0 || len(e.Paths) > 0 }

// Phases is a phase or a list of phases ("install", "runtime").
type Phases []string

// phasesOf reads a phase value of the JSON data model as DecodeConfig
// would: absent or null is no phase, a string one, a list of strings
// several; anything else does not decode.
func phasesOf(v any) (Phases, bool) {
	switch v := v.(type) {
	case nil:
		return nil, true
	case string:
		return Phases{v}, true
	case []any:
		out := make(Phases, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// UnmarshalJSON accepts a string or a list of strings.
func (p *Phases) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*p = Phases{s}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("phase must be a string or a list of strings: %w", err)
	}
	*p = l
	return nil
}

// Credential is the config of credential@1.
type Credential struct {
	Service string  `json:"service"`
	Phase   Phases  `json:"phase"`
	APIKey  *APIKey `json:"apiKey,omitempty"`
	OAuth   *OAuth  `json:"oauth,omitempty"`
}

// APIKey describes an API-key credential.
type APIKey struct {
	Name         string   `json:"name,omitempty"`
	ProxyManaged *bool    `json:"proxyManaged,omitempty"`
	Inject       []Inject `json:"inject,omitempty"`
}

// Inject is one header-injection rule of an API key.
type Inject struct {
	Domain   string `json:"domain"`
	Header   string `json:"header,omitempty"`
	Format   string `json:"format,omitempty"`
	Scheme   string `json:"scheme,omitempty"`
	Username string `json:"username,omitempty"`
}

// OAuth describes an OAuth credential.
type OAuth struct {
	TokenEndpoint  *TokenEndpoint  `json:"tokenEndpoint,omitempty"`
	ResourceHosts  []string        `json:"resourceHosts,omitempty"`
	Sentinels      *Sentinels      `json:"sentinels,omitempty"`
	CredentialFile *CredentialFile `json:"credentialFile,omitempty"`
	ResponseFields *ResponseFields `json:"responseFields,omitempty"`
	Passthrough    *bool           `json:"passthrough,omitempty"`
}

// TokenEndpoint is where OAuth tokens are fetched.
type TokenEndpoint struct {
	Host string `json:"host"`
	Path string `json:"path,omitempty"`
}

// Sentinels are the placeholder tokens put in the sandbox.
type Sentinels struct {
	AccessToken  string `json:"accessToken,omitempty"`
	RefreshToken string `json:"refreshToken,omitempty"`
}

// CredentialFile is a file the runtime writes with placeholder tokens.
type CredentialFile struct {
	Path      string         `json:"path"`
	Structure map[string]any `json:"structure,omitempty"`
	Format    *string        `json:"format,omitempty"`
}

// ResponseFields names the token endpoint's response fields.
type ResponseFields struct {
	AccessToken  string `json:"accessToken,omitempty"`
	RefreshToken string `json:"refreshToken,omitempty"`
	ExpiresIn    string `json:"expiresIn,omitempty"`
}

// SSHAgent is the config of ssh-agent@1.
type SSHAgent struct {
	Phase        Phases   `json:"phase"`
	Unrestricted *bool    `json:"unrestricted,omitempty"`
	Sign         []string `json:"sign,omitempty"`
	Authenticate []string `json:"authenticate,omitempty"`
}

// Volume is the config of volume@1.
type Volume struct {
	Path  string `json:"path"`
	Size  string `json:"size,omitempty"`
	Tmpfs bool   `json:"tmpfs,omitempty"`
	Mode  string `json:"mode,omitempty"`
}

// HostMount is the config of host-mount@1.
type HostMount struct {
	Path string  `json:"path"`
	Mode *string `json:"mode,omitempty"`
}

// Port is the config of port@1.
type Port struct {
	Name      string `json:"name,omitempty"`
	Container int    `json:"container"`
	Transport string `json:"transport,omitempty"`
}

// Key identifies a port request: "<container>/<transport>", tcp by default.
func (p Port) Key() string {
	t := p.Transport
	if t == "" {
		t = "tcp"
	}
	return fmt.Sprintf("%d/%s", p.Container, t)
}

// USBDevice is the config of usb-device@1.
type USBDevice struct {
	VendorID  string `json:"vendorId,omitempty"`
	ProductID string `json:"productId,omitempty"`
	Class     string `json:"class,omitempty"`
}

// Resources is the config of resources@1.
type Resources struct {
	CPU    *float64 `json:"cpu,omitempty"`
	Memory string   `json:"memory,omitempty"`
	GPU    string   `json:"gpu,omitempty"`
}

// Lifecycle is the config of lifecycle@1.
type Lifecycle struct {
	Install     []Hook   `json:"install,omitempty"`
	Startup     []Hook   `json:"startup,omitempty"`
	Files       []File   `json:"files,omitempty"`
	Interactive []string `json:"interactive,omitempty"`
}

// Hook is a lifecycle install or startup hook.
type Hook struct {
	Command     Command  `json:"command"`
	User        string   `json:"user,omitempty"`
	Env         []string `json:"env,omitempty"`
	Description string   `json:"description,omitempty"`
	Background  bool     `json:"background,omitempty"`
}

// Command is a command given as a shell string (run with sh -c) or as an
// argv list.
type Command struct {
	// Shell is the command string when it was written as one.
	Shell string
	// Argv is the argument vector when it was written as a list.
	Argv []string
	// IsShell reports the string form.
	IsShell bool
}

// UnmarshalJSON accepts a string or a list of strings.
func (c *Command) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*c = Command{Shell: s, IsShell: true}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("command must be a string or a list of strings: %w", err)
	}
	*c = Command{Argv: l}
	return nil
}

// MarshalJSON writes the form the command was given in.
func (c Command) MarshalJSON() ([]byte, error) {
	if c.IsShell {
		return json.Marshal(c.Shell)
	}
	return json.Marshal(c.Argv)
}

// Args returns the argument vector: ["sh","-c",Shell] for the string form.
func (c Command) Args() []string {
	if c.IsShell {
		return []string{"sh", "-c", c.Shell}
	}
	return c.Argv
}

// Empty reports a command that names nothing.
func (c Command) Empty() bool {
	if c.IsShell {
		return false // sh -c "" is a command, as in the reference model
	}
	return len(c.Argv) == 0
}

// File is a lifecycle file.
type File struct {
	Path        string `json:"path"`
	Content     string `json:"content"`
	Mode        string `json:"mode,omitempty"`
	Overwrite   *bool  `json:"overwrite,omitempty"`
	Description string `json:"description,omitempty"`
}

// AgentContext is the config of agent-context@1.
type AgentContext struct {
	Filename    string `json:"filename,omitempty"`
	Directory   string `json:"directory,omitempty"`
	ContentFile string `json:"contentFile,omitempty"`
	Content     string `json:"content,omitempty"`
}

// AgentSessions is the config of agent-sessions@1.
type AgentSessions struct {
	Prompt   []string `json:"prompt,omitempty"`
	Resume   []string `json:"resume,omitempty"`
	Continue []string `json:"continue,omitempty"`
	List     *Command `json:"list,omitempty"`
}

// AgentInteractiveSessions is the config of agent-interactive-sessions@1.
// Nil lists are absent; empty ones were stated.
type AgentInteractiveSessions struct {
	Prompt        []string `json:"prompt"`
	Resume        []string `json:"resume"`
	Continue      []string `json:"continue"`
	NewSession    []string `json:"newSession"`
	SessionPicker []string `json:"sessionPicker"`
	List          *Command `json:"list,omitempty"`
}

// AgentSkills is the config of agent-skills@1.
type AgentSkills struct {
	Path string `json:"path"`
	Mode string `json:"mode,omitempty"`
}

// AgentSkill is the config of agent-skill@1.
type AgentSkill struct {
	Path string  `json:"path"`
	Name *string `json:"name,omitempty"`
}

// EffectiveName is the skill's name: Name, or the base name of Path.
func (s AgentSkill) EffectiveName() string {
	if s.Name != nil {
		return *s.Name
	}
	return path.Base(s.Path)
}

// ACP is the config of acp@1.
type ACP struct {
	Agent           string            `json:"agent"`
	Command         Command           `json:"command"`
	Env             map[string]string `json:"env,omitempty"`
	ProtocolVersion *int              `json:"protocolVersion,omitempty"`
}

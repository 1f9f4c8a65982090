package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func parseDescriptor(t *testing.T, body string) *Descriptor {
	t.Helper()
	k, err := Parse("k.yaml", []byte(kitSrc(body)))
	if err != nil || k.Descriptor == nil {
		t.Fatalf("Parse: %v, %v", err, k.Problems().Errors)
	}
	return k.Descriptor
}

// SPEC-v3 §7.4: what each type contributes to the permission surface.
func TestSurfaceOf(t *testing.T) {
	d := parseDescriptor(t, `kind: workload
capabilities:
  - type: com.docker.sandbox/network-policy@2
    name: ignored
    optional: true
    config:
      install: {allow: [registry.example.org]}
      runtime:
        allow:
          - api.example.com:443
          - {hosts: [uploads.example.com], methods: [PUT, POST], paths: [/v1/**]}
        deny: ["*.ads.example.com", {hosts: [api.example.com], methods: [ANY], paths: [/admin]}]
  - type: com.docker.sandbox/credential@1
    config: {service: github, phase: [install, runtime], apiKey: {name: GH_TOKEN}}
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: install}
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: runtime, unrestricted: false, sign: [git], authenticate: [git@github.com]}
  - type: com.docker.sandbox/volume@1
    config: {path: /data/, size: 1g}
  - type: com.docker.sandbox/host-mount@1
    config: {path: /cache}
  - type: com.docker.sandbox/agent-skills@1
    config: {path: /skills, mode: readwrite}
  - type: com.docker.sandbox/port@1
    config: {container: 8080}
  - type: com.docker.sandbox/port@1
    config: {container: 53, transport: udp}
  - type: com.docker.sandbox/usb-device@1
    config: {vendorId: "1050", productId: "0407"}
  - type: com.docker.sandbox/usb-device@1
    config: {class: "0e"}
  - type: com.docker.sandbox/privileged@1
    description: dind
  - type: com.docker.sandbox/git-identity@1
  - type: com.example/custom@1
    config: {a: 1}
  - type: com.docker.sandbox/resources@1
    config: {cpu: 2}
  - type: com.docker.sandbox/lifecycle@1
    config: {interactive: [x]}
  - group:
      optional: true
      capabilities:
        - type: com.docker.sandbox/credential@1
          config: {service: npm, phase: install, apiKey: {name: NPM_TOKEN}}
`)
	want := &Surface{
		NetworkInstallAllow:     []string{"registry.example.org"},
		NetworkRuntimeAllow:     []string{"api.example.com:443"},
		NetworkRuntimeDeny:      []string{"*.ads.example.com"},
		NetworkInstallHTTPAllow: []string{"ANY registry.example.org/**"},
		NetworkRuntimeHTTPAllow: []string{"ANY api.example.com:443/**", "POST uploads.example.com/v1/**", "PUT uploads.example.com/v1/**"},
		NetworkRuntimeHTTPDeny:  []string{"ANY *.ads.example.com/**", "ANY api.example.com/admin"},
		CredentialsInstall:      []string{"github", "npm"},
		CredentialsRuntime:      []string{"github"},
		// named keys without proxyManaged: true put the secret itself in
		// the sandbox
		CredentialsInstallRaw: []string{"github", "npm"},
		CredentialsRuntimeRaw: []string{"github"},
		SSHAgent:              []string{"install", "runtime authenticate git@github.com", "runtime sign git"},
		StoragePaths:          []string{"/data"},
		HostMountPaths:        []string{"/cache"},
		SkillsPaths:           []string{"/skills"},
		SkillsWritePaths:      []string{"/skills"},
		Ports:                 []string{"53/udp", "8080/tcp"},
		USB:                   []string{"1050:0407", "class:0e"},
		Privileged:            true,
		Services:              []string{"com.docker.sandbox/git-identity@1", "com.example/custom@1+015abd7f5cc5"},
	}
	if diff := cmp.Diff(want, SurfaceOf(d)); diff != "" {
		t.Errorf("SurfaceOf (-want +got):\n%s", diff)
	}
}

// SPEC-v3 §7.4/widenings-gate: what a candidate grants beyond a granted
// surface; narrowings are not reported.
func TestWidenings(t *testing.T) {
	base := `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      runtime:
        allow: [api.example.com, {hosts: [up.example.com], methods: [GET], paths: [/v1/**]}]
        deny: [bad.example.com, {hosts: [api.example.com], methods: [DELETE]}]
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: runtime, unrestricted: false, authenticate: [github.com]}
  - type: com.docker.sandbox/credential@1
    config: {service: github, phase: runtime, apiKey: {name: T}}
`
	tests := []struct {
		name      string
		candidate string
		want      []Widening
	}{
		{name: "same surface", candidate: base},
		{name: "narrowed: fewer hosts and grants", candidate: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      runtime:
        deny: [bad.example.com, other.example.com, {hosts: [api.example.com], methods: [DELETE]}]
`},
		{name: "new host is reported once, not again as an HTTP grant", candidate: base + `  - type: com.example/x@1
`, want: []Widening{{"services", "com.example/x@1"}}},
		{name: "widened", candidate: `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      install: {allow: [registry.example.org]}
      runtime:
        allow: [api.example.com, new.example.com, {hosts: [up.example.com], methods: [GET, POST], paths: [/v1/**, /v1/x/y]}]
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: runtime, unrestricted: false, authenticate: [git@github.com, gitlab.com]}
  - type: com.docker.sandbox/credential@1
    config: {service: github, phase: [install, runtime], apiKey: {name: T}}
  - type: com.docker.sandbox/privileged@1
    description: x
  - type: com.docker.sandbox/port@1
    config: {container: 80}
`, want: []Widening{
			{"network.install.allow", "registry.example.org"},
			{"network.runtime.allow", "new.example.com"},
			{"network.runtime.deny-removed", "bad.example.com"},
			{"network.runtime.http.allow", "POST up.example.com/v1/**"},
			{"network.runtime.http.allow", "POST up.example.com/v1/x/y"},
			{"network.runtime.http.deny-removed", "DELETE api.example.com/**"},
			{"credentials.install", "github"},
			{"credentials.install.raw", "github"},
			{"ssh-agent", "runtime authenticate gitlab.com"},
			{"ports", "80/tcp"},
			{"privileged", "requests privileged execution"},
		}},
	}
	granted := SurfaceOf(parseDescriptor(t, base))
	for _, tc := range tests {
		t.Run("SPEC-v3 §7.4/widenings-gate "+tc.name, func(t *testing.T) {
			got := granted.Widenings(SurfaceOf(parseDescriptor(t, tc.candidate)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Widenings (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("an unbounded ssh phase covers bounded grants", func(t *testing.T) {
		g := &Surface{SSHAgent: []string{"runtime"}}
		c := &Surface{SSHAgent: []string{"install", "runtime sign git"}}
		if diff := cmp.Diff([]Widening{{"ssh-agent", "install"}}, g.Widenings(c)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("a recorded surface without HTTP grants is completed", func(t *testing.T) {
		g := &Surface{NetworkRuntimeAllow: []string{"api.example.com"}}
		c := &Surface{NetworkRuntimeAllow: []string{"api.example.com"}, NetworkRuntimeHTTPAllow: []string{"GET api.example.com/v1"}}
		if got := g.Widenings(c); len(got) != 0 {
			t.Errorf("Widenings = %v, want none", got)
		}
	})
}

// Every grant is attributed to the list item or entry that declares it.
func TestSurfaceOrigins(t *testing.T) {
	d := parseDescriptor(t, `kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@2
    config:
      runtime:
        allow: [a.example.com, {hosts: [b.example.com], methods: [GET]}]
        deny: [c.example.com]
  - group:
      optional: true
      capabilities:
        - type: com.docker.sandbox/volume@1
          config: {path: /data/}
        - type: com.docker.sandbox/privileged@1
`)
	want := []Origin{
		{"network.runtime.allow", "a.example.com", "capabilities[0].config.runtime.allow[0]"},
		{"network.runtime.http.allow", "ANY a.example.com/**", "capabilities[0].config.runtime.allow[0]"},
		{"network.runtime.http.allow", "GET b.example.com/**", "capabilities[0].config.runtime.allow[1]"},
		{"network.runtime.deny", "c.example.com", "capabilities[0].config.runtime.deny[0]"},
		{"network.runtime.http.deny", "ANY c.example.com/**", "capabilities[0].config.runtime.deny[0]"},
		{"storage", "/data", "capabilities[1].group.capabilities[0]"},
		{"privileged", PrivilegedGrant, "capabilities[1].group.capabilities[1]"},
	}
	if diff := cmp.Diff(want, SurfaceOrigins(d)); diff != "" {
		t.Errorf("SurfaceOrigins (-want +got):\n%s", diff)
	}
}

// SPEC-v3 §7.4: the types that grant nothing leave the surface empty
// whatever their config, and a known type whose config does not decode
// lands in Services, so nothing a kit requests escapes the surface.
func TestSurfaceOpaque(t *testing.T) {
	acp := func(cfg map[string]any) Capability {
		return Capability{Type: TypeACP, HasConfig: true, Config: cfg}
	}
	tests := []struct {
		name string
		caps []Capability
		want *Surface
	}{
		{name: "acp@1/declaration-grants-nothing", want: &Surface{},
			caps: []Capability{acp(map[string]any{"agent": "claude", "command": []any{"claude-acp"}})}},
		{name: "acp@1/declaration-grants-nothing: optional, other command and env", want: &Surface{},
			caps: []Capability{{Type: TypeACP, Optional: true, HasConfig: true, Config: map[string]any{
				"agent": "claude", "command": "other --stdio", "env": map[string]any{"MODE": "strict"}, "protocolVersion": 2}}}},
		{name: "agent-sessions@1/declaration-grants-nothing", want: &Surface{},
			caps: []Capability{{Type: TypeAgentSessions, HasConfig: true, Config: map[string]any{"prompt": []any{"-p", "{{.Prompt}}"}}}}},
		{name: "agent-interactive-sessions@1/declaration-grants-nothing", want: &Surface{},
			caps: []Capability{{Type: TypeAgentInteractiveSessions, HasConfig: true, Config: map[string]any{"newSession": []any{"x"}}}}},
		{name: "agent-skill@1 exposes only image content", want: &Surface{},
			caps: []Capability{{Type: TypeAgentSkill, HasConfig: true, Config: map[string]any{"path": "/opt/skill"}}}},
		{name: "sbx@1 and long-running@1", want: &Surface{},
			caps: []Capability{{Type: TypeSBX}, {Type: TypeLongRunning}}},
		{name: "kit-registry@1 is a service", want: &Surface{Services: []string{TypeKitRegistry}},
			caps: []Capability{{Type: TypeKitRegistry}}},
		{name: "a malformed volume@1 is a service",
			caps: []Capability{{Type: TypeVolume, HasConfig: true, Config: map[string]any{"path": "/data", "hostPath": "/etc"}}},
			want: &Surface{Services: []string{"com.docker.sandbox/volume@1+e62eae89e4f1"}}},
		{name: "a malformed host-mount@1 is a service",
			caps: []Capability{{Type: TypeHostMount, HasConfig: true, Config: map[string]any{"path": "/cache", "hostPath": "/etc"}}},
			want: &Surface{Services: []string{"com.docker.sandbox/host-mount@1+e5557c63f7cb"}}},
		{name: "a malformed agent-skills@1 is a service",
			caps: []Capability{{Type: TypeAgentSkills, HasConfig: true, Config: map[string]any{"path": "/skills", "write": true}}},
			want: &Surface{Services: []string{"com.docker.sandbox/agent-skills@1+61e552a419f1"}}},
		{name: "a malformed usb-device@1 is a service",
			caps: []Capability{{Type: TypeUSBDevice, HasConfig: true, Config: map[string]any{"vendorId": 1050}}},
			want: &Surface{Services: []string{"com.docker.sandbox/usb-device@1+a53e6fcf90ec"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SurfaceOf(&Descriptor{Capabilities: tc.caps})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("SurfaceOf (-want +got):\n%s", diff)
			}
		})
	}
}

// Atoms are typed: bounded entries keep host, method and path apart
// (paths cleaned), hosts compare as parsed, and credentials contribute
// the hosts their secret goes to and whether it enters the sandbox.
func TestWideningsTypedAtoms(t *testing.T) {
	const np = "  - type: com.docker.sandbox/network-policy@2\n    config:\n      runtime:\n        allow: "
	const cred = "  - type: com.docker.sandbox/credential@1\n    config: {service: api, phase: runtime, apiKey: "
	tests := []struct {
		name, old, new string
		want           []Widening
	}{
		{"a bounded host that is not a host", np + "[{hosts: [10.0.0.1], methods: [GET]}]\n", np + "[{hosts: [10.0.0.1/0], methods: [GET]}]\n",
			[]Widening{{"invalid", "network.runtime.http.allow: 10.0.0.1/0"}}},
		{"userinfo in a bounded host", np + "[{hosts: [api.example.org], methods: [GET]}]\n", np + "[{hosts: [\"api.example.org:443@evil.com\"], methods: [GET]}]\n",
			[]Widening{{"invalid", "network.runtime.http.allow: api.example.org:443@evil.com"}}},
		{"a path escaping its bound", np + "[{hosts: [api.example.org], methods: [GET], paths: [/v1/**]}]\n", np + "[{hosts: [api.example.org], methods: [GET], paths: [/v1/../admin/**]}]\n",
			[]Widening{{"network.runtime.http.allow", "GET api.example.org/admin/**"}}},
		{"a path within its bound (look-alike)", np + "[{hosts: [api.example.org], methods: [GET], paths: [/v1/**]}]\n", np + "[{hosts: [api.example.org], methods: [GET], paths: [/v1/x/../y]}]\n",
			nil},
		{"case and a trailing dot do not count (look-alike)", np + "[api.example.org]\n", np + "[API.Example.ORG.]\n", nil},
		{"a new inject domain", np + "[\"*\"]\n" + cred + "{inject: [{domain: a.example.org}]}}\n", np + "[\"*\"]\n" + cred + "{inject: [{domain: a.example.org}, {domain: b.example.org}]}}\n",
			[]Widening{{"credentials.runtime.inject", "api b.example.org"}}},
		{"proxyManaged true to false", np + "[a.example.org]\n" + cred + "{name: K, proxyManaged: true, inject: [{domain: a.example.org}]}}\n", np + "[a.example.org]\n" + cred + "{name: K, proxyManaged: false, inject: [{domain: a.example.org}]}}\n",
			[]Widening{{"credentials.runtime.raw", "api"}}},
		{"proxyManaged false to true (look-alike: a narrowing)", np + "[a.example.org]\n" + cred + "{name: K, proxyManaged: false}}\n", np + "[a.example.org]\n" + cred + "{name: K, proxyManaged: true}}\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := SurfaceOf(parseDescriptor(t, "kind: mixin\ncapabilities:\n"+tc.old))
			n := SurfaceOf(parseDescriptor(t, "kind: mixin\ncapabilities:\n"+tc.new))
			if diff := cmp.Diff(tc.want, o.Widenings(n)); diff != "" {
				t.Errorf("Widenings (-want +got):\n%s", diff)
			}
		})
	}
}

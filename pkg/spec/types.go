package spec

// Well-known capability types (namespace com.docker.sandbox).
const (
	TypeNetworkPolicy            = "com.docker.sandbox/network-policy@1"
	TypeNetworkPolicy2           = "com.docker.sandbox/network-policy@2"
	TypeCredential               = "com.docker.sandbox/credential@1"
	TypeSSHAgent                 = "com.docker.sandbox/ssh-agent@1"
	TypeVolume                   = "com.docker.sandbox/volume@1"
	TypeHostMount                = "com.docker.sandbox/host-mount@1"
	TypePort                     = "com.docker.sandbox/port@1"
	TypeUSBDevice                = "com.docker.sandbox/usb-device@1"
	TypeResources                = "com.docker.sandbox/resources@1"
	TypePrivileged               = "com.docker.sandbox/privileged@1"
	TypeLongRunning              = "com.docker.sandbox/long-running@1"
	TypeLifecycle                = "com.docker.sandbox/lifecycle@1"
	TypeAgentContext             = "com.docker.sandbox/agent-context@1"
	TypeAgentSessions            = "com.docker.sandbox/agent-sessions@1"
	TypeAgentInteractiveSessions = "com.docker.sandbox/agent-interactive-sessions@1"
	TypeAgentSkills              = "com.docker.sandbox/agent-skills@1"
	TypeAgentSkill               = "com.docker.sandbox/agent-skill@1"
	TypeACP                      = "com.docker.sandbox/acp@1"
	TypeSBX                      = "com.docker.sandbox/sbx@1"
	TypeGitIdentity              = "com.docker.sandbox/git-identity@1"
	TypeKitRegistry              = "com.docker.sandbox/kit-registry@1"
)

// knownTypes lists the well-known types, newest version last.
var knownTypes = []string{
	TypeNetworkPolicy, TypeNetworkPolicy2, TypeCredential, TypeSSHAgent, TypeVolume, TypeHostMount,
	TypePort, TypeUSBDevice, TypeResources, TypePrivileged, TypeLongRunning, TypeLifecycle,
	TypeAgentContext, TypeAgentSessions, TypeAgentInteractiveSessions, TypeAgentSkills, TypeAgentSkill,
	TypeACP, TypeSBX, TypeGitIdentity, TypeKitRegistry,
}

// KnownTypes returns the well-known capability types the specification
// defines, in its order with the newest version of a name last. The slice
// is the caller's.
func KnownTypes() []string { return append([]string(nil), knownTypes...) }

// configless lists the types that take no config key at all.
var configless = map[string]bool{
	TypePrivileged: true, TypeKitRegistry: true, TypeSBX: true, TypeLongRunning: true, TypeGitIdentity: true,
}

// singletons lists the types declared at most once per block.
var singletons = map[string]bool{
	TypeNetworkPolicy: true, TypeNetworkPolicy2: true, TypeResources: true, TypePrivileged: true,
	TypeKitRegistry: true, TypeAgentSessions: true, TypeAgentInteractiveSessions: true,
	TypeLifecycle: true, TypeSBX: true, TypeLongRunning: true, TypeGitIdentity: true,
}

// IsConfigless reports whether typ takes no config.
func IsConfigless(typ string) bool { return configless[typ] }

// IsSingleton reports whether typ may be declared at most once per block.
func IsSingleton(typ string) bool { return singletons[typ] }

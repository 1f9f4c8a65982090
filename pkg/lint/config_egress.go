package lint

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// EgressConfig configures egress-not-allowed, as the egress: section of
// .kitsmith.yaml:
//
//	egress:
//	  registries:
//	    npm: ["npm.example.org:443"]
//	    pypi: ["pypi.example.org", "files.example.org"]
type EgressConfig struct {
	// Registries are the hosts each package tool family reaches when a
	// command names no mirror of its own. Nil or empty: no tool's default
	// registry is inferred.
	Registries RegistryHosts `yaml:"registries"`
}

// RegistryHosts maps a package tool family (one of RegistryFamilies) to
// the hosts its tools reach by default: the public registry's, or the
// mirror the kit's image is set up to use. Each host is written "host" or
// "host:port" (port 443 when omitted), with no scheme, path or wildcard.
// egress-not-allowed infers these hosts, as warnings, for commands of the
// family that name no host themselves (npm install without --registry,
// pip install without --index-url, docker pull postgres). A family that
// is not listed is not inferred: its commands produce no finding unless
// they name a host.
type RegistryHosts map[string][]string

// registryFamilies are the tool families egress-not-allowed infers, and
// the commands of each.
var registryFamilies = map[string]string{
	"alpine":    "apk",
	"crates":    "cargo install, fetch, build, update and add",
	"rubygems":  "gem install, update and fetch",
	"debian":    "apt-get and apt, when the recipe's base is Debian",
	"dockerhub": "image references without a registry (docker pull, docker run, docker create, compose files)",
	"go":        "go get, go install and go mod download: the module proxy and checksum database",
	"npm":       "npm, npx, pnpm and bunx",
	"pypi":      "pip, pip3, pipx and uv",
	"ubuntu":    "apt-get and apt, when the recipe's base is Ubuntu",
	"yarn":      "yarn",
}

// RegistryFamilies returns the tool families RegistryHosts may name,
// sorted: alpine, crates, debian, dockerhub, go, npm, pypi, rubygems,
// ubuntu and yarn.
func RegistryFamilies() []string { return slices.Sorted(maps.Keys(registryFamilies)) }

// UnmarshalYAML reads the registries mapping, with the position of the
// offending family or host in its errors (a *spec.Error).
func (r *RegistryHosts) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return nodeError(n, "egress.registries: want a mapping of tool families to lists of hosts")
	}
	out := RegistryHosts{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		family := k.Value
		if err := checkFamily(family); err != nil {
			return nodeError(k, "egress.registries: "+err.Error())
		}
		if _, dup := out[family]; dup {
			return nodeError(k, fmt.Sprintf("egress.registries: %s is listed twice", family))
		}
		if v.Kind != yaml.SequenceNode {
			return nodeError(v, fmt.Sprintf("egress.registries.%s: want a list of hosts, e.g. [\"%s.example.org:443\"]", family, family))
		}
		hosts := []string{}
		for j, h := range v.Content {
			if h.Kind != yaml.ScalarNode {
				return nodeError(h, fmt.Sprintf("egress.registries.%s[%d]: want a host", family, j))
			}
			if _, _, err := splitRegistryHost(h.Value); err != nil {
				return nodeError(h, fmt.Sprintf("egress.registries.%s[%d]: %v", family, j, err))
			}
			hosts = append(hosts, h.Value)
		}
		out[family] = hosts
	}
	*r = out
	return nil
}

// nodeError is a configuration error at a YAML node; LoadConfig adds the
// file name.
func nodeError(n *yaml.Node, msg string) error {
	p := spec.Pos{Line: n.Line, Col: n.Column}
	return &spec.Error{Range: spec.Range{Start: p, End: p}, Code: "lint-config", Msg: msg}
}

// validate checks families and hosts, for configurations built in code.
func (r RegistryHosts) validate() error {
	var errs []error
	for _, family := range slices.Sorted(maps.Keys(r)) {
		if err := checkFamily(family); err != nil {
			errs = append(errs, fmt.Errorf("egress.registries: %w", err))
			continue
		}
		for i, h := range r[family] {
			if _, _, err := splitRegistryHost(h); err != nil {
				errs = append(errs, fmt.Errorf("egress.registries.%s[%d]: %w", family, i, err))
			}
		}
	}
	return errors.Join(errs...)
}

// ErrUnknownFamily is wrapped by the errors about a registries entry that
// names no tool family.
var ErrUnknownFamily = errors.New("unknown tool family")

func checkFamily(family string) error {
	if _, ok := registryFamilies[family]; ok {
		return nil
	}
	return fmt.Errorf("%w %q (use %s)", ErrUnknownFamily, family, strings.Join(RegistryFamilies(), ", "))
}

// splitRegistryHost reads "host" or "host:port" (port 443 when omitted).
func splitRegistryHost(s string) (host, port string, err error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", "", errors.New("empty host")
	case strings.Contains(s, "://") || strings.Contains(s, "/"):
		return "", "", fmt.Errorf("%q is not a host: write the host (and port) alone, e.g. \"registry.example.org:443\"", s)
	case strings.ContainsAny(s, "* \t"):
		return "", "", fmt.Errorf("%q is not a host: a registry is one host, with no wildcard", s)
	}
	host, port = s, "443"
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.Count(s, ":") == 1 || strings.HasPrefix(s, "[") {
		return "", "", fmt.Errorf("%q is not host or host:port: %w", s, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("%q: port %q is not a number from 1 to 65535", s, port)
	}
	if host == "" {
		return "", "", fmt.Errorf("%q has no host", s)
	}
	return strings.ToLower(host), port, nil
}

// registryContact is one default host of a family; configured reports a
// host .kitsmith.yaml or WithRegistryHosts names, rather than kitsmith's
// well-known default.
type registryContact struct {
	host, port string
	configured bool
}

// resolveRegistries merges kitsmith's well-known defaults, the configured
// registries and the WithRegistryHosts ones (each replacing the list of a
// family it names) into the hosts the rule infers.
func resolveRegistries(layers ...RegistryHosts) map[string][]registryContact {
	merged, configured := defaultRegistryHosts(), map[string]bool{}
	for _, l := range layers {
		maps.Copy(merged, l)
		for family := range l {
			configured[family] = true
		}
	}
	out := map[string][]registryContact{}
	for family, hosts := range merged {
		for _, h := range hosts {
			if host, port, err := splitRegistryHost(h); err == nil { // validated before
				out[family] = append(out[family], registryContact{host, port, configured[family]})
			}
		}
	}
	return out
}

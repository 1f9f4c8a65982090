package lint

import "strings"

// registryDefault is the registry a tool family reaches when a command
// names no mirror and .kitsmith.yaml's egress.registries does not name
// the family.
type registryDefault struct {
	// Hosts are the family's well-known public hosts, "host:port", that
	// egress-not-allowed infers as warnings. Empty for a family whose hosts
	// kitsmith does not name: its egress is unchecked, which the rule
	// reports at info level with the configuration key that checks it.
	Hosts []string
	// Registry names the default registry in messages.
	Registry string
}

// registryDefaults is the one table of default registries. Each entry
// says where its default comes from.
var registryDefaults = map[string]registryDefault{
	// pip's default --index-url is https://pypi.org/simple (pip's
	// documentation of pip install, "Package Index Options"), and the
	// files that index lists are served from files.pythonhosted.org
	// (PyPI's Simple API, PEP 503 file URLs). uv's default index is the
	// same PyPI (uv's documentation, "Package indexes").
	"pypi": {Hosts: []string{"pypi.org:443", "files.pythonhosted.org:443"}, Registry: "PyPI"},
	// Cargo reads crates.io through the sparse index https://index.crates.io/
	// (the Cargo Book, "Registries": the default protocol since Rust 1.70)
	// and downloads crate files from the dl URL that index's config.json
	// names, https://static.crates.io/crates.
	"crates": {Hosts: []string{"index.crates.io:443", "static.crates.io:443"}, Registry: "crates.io"},
	// gem's default source is https://rubygems.org/ (gem sources --list on
	// a fresh RubyGems; the RubyGems guides, "Command reference").
	"rubygems": {Hosts: []string{"rubygems.org:443"}, Registry: "RubyGems"},
	// An image reference without a registry is a Docker Hub name
	// (distribution/reference normalises it under docker.io), pulled from
	// registry-1.docker.io with a token from auth.docker.io, the realm that
	// registry's WWW-Authenticate challenge names.
	"dockerhub": {Hosts: []string{"registry-1.docker.io:443", "auth.docker.io:443"}, Registry: "Docker Hub"},
	// The families below reach hosts kitsmith does not name (the Go module
	// proxy and checksum database, the distributions' archives, the npm
	// registry): commands that name no mirror are reported as unchecked.
	"go":     {Registry: "the Go module proxy"},
	"debian": {Registry: "the Debian archive"},
	"ubuntu": {Registry: "the Ubuntu archive"},
	"alpine": {Registry: "the Alpine mirrors"},
	"npm":    {Registry: "the npm registry"},
	"yarn":   {Registry: "the yarn registry"},
}

// defaultRegistryHosts is registryDefaults as RegistryHosts: the families
// with hosts kitsmith infers without configuration.
func defaultRegistryHosts() RegistryHosts {
	out := RegistryHosts{}
	for family, d := range registryDefaults {
		if len(d.Hosts) > 0 {
			out[family] = d.Hosts
		}
	}
	return out
}

// cargo returns the registry of a cargo command that fetches crates: the
// index --index names, or crates.io's.
func (cc commandContacts) cargo() []contact {
	c := cc.c
	if _, ok := networkClient(c); !ok || c.HasArg("--offline") || c.HasArg("--frozen") {
		return nil
	}
	via := "cargo " + c.Sub()
	if v, i, ok := valueFlag(c.Args, "--index"); ok {
		return cc.configured(via, strings.TrimPrefix(v, "sparse+"), i)
	}
	if _, _, ok := valueFlag(c.Args, "--registry"); ok {
		return nil // a registry named in cargo's configuration, which the kit does not show
	}
	if v, ok := assigned(c, "CARGO_REGISTRIES_CRATES_IO_PROTOCOL"); ok && v == "git" {
		return nil // the git index, on github.com, which the rule does not infer
	}
	var out []contact
	if v, i, ok := valueFlag(c.Args, "--git"); ok {
		out = append(out, cc.configured(via, v, i)...)
	}
	return append(out, cc.inferred("crates", via+" (crates.io, its default registry)")...)
}

// gem returns the source of a gem command that fetches gems: the one
// --source names, or rubygems.org.
func (cc commandContacts) gem() []contact {
	c := cc.c
	if _, ok := networkClient(c); !ok || c.HasArg("--local") || c.HasArg("-l") {
		return nil
	}
	via := "gem " + c.Sub()
	if v, i, ok := valueFlag(c.Args, "--source", "-s"); ok {
		out := cc.configured(via, v, i)
		if c.HasArg("--clear-sources") {
			return out
		}
		return append(out, cc.inferred("rubygems", via+" (rubygems.org, its default source)")...)
	}
	return cc.inferred("rubygems", via+" (rubygems.org, its default source)")
}

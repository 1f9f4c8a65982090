package review

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/sign/signer"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

func policy(t *testing.T, src string) *Policy {
	t.Helper()
	p, err := ParsePolicy("policy.yaml", []byte("policyVersion: \"1\"\n"+src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func rules(vs []Violation) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.Rule+" "+v.Category+": "+v.Grant)
	}
	return out
}

// Each ceiling rule, allowing and refusing.
func TestCheckCeiling(t *testing.T) {
	caps := `  - type: com.docker.sandbox/network-policy@2
    config:
      install: {allow: [pkg.example.org]}
      runtime:
        allow: [api.example.org:443, "*.cdn.example.net", {hosts: [up.example.org], methods: [PUT]}]
  - type: com.docker.sandbox/credential@1
    config: {service: example, phase: runtime, apiKey: {name: T, inject: [{domain: api.example.org}]}}
  - type: com.docker.sandbox/volume@1
    config: {path: /home/agent/.cache/tool, size: 1g}
  - type: com.docker.sandbox/host-mount@1
    config: {path: /home/agent/.shared}
  - type: com.docker.sandbox/agent-skills@1
    config: {path: /skills, mode: readwrite}
  - type: com.docker.sandbox/port@1
    config: {container: 8080}
  - type: com.docker.sandbox/usb-device@1
    config: {class: "0e"}
  - type: com.docker.sandbox/ssh-agent@1
    config: {phase: runtime}
  - type: com.docker.sandbox/privileged@1
    description: nested containers
  - type: com.docker.sandbox/git-identity@1
  - type: com.docker.sandbox/acp@1
    optional: true
    config: {agent: claude, command: [claude-acp]}
`
	// acp@1 grants nothing (acp@1/declaration-grants-nothing): no
	// ceiling rule is needed for it, even an empty ceiling admits it.
	k := source(t, "kit.yaml", "kind: mixin\ncapabilities:\n"+caps)
	tests := []struct {
		name   string
		policy string
		want   []string
	}{
		{name: "everything allowed", policy: `ceiling:
  network:
    install: [pkg.example.org]
    runtime: ["**.example.org", "*.cdn.example.net"]
  credentials: [example]
  rawCredentials: [example]
  volumes: [/home/agent/**]
  hostMounts: [/home/agent/.shared]
  skills: [/skills]
  skillsWrite: true
  services: [com.docker.sandbox/git-identity@1]
  privileged: true
  sshAgent: true
  usb: true
  ports: true
`},
		{name: "an empty ceiling allows nothing", policy: "ceiling: {}\n", want: []string{
			"ceiling.network.install network.install.allow: pkg.example.org",
			"ceiling.network.runtime network.runtime.allow: *.cdn.example.net",
			"ceiling.network.runtime network.runtime.allow: api.example.org:443",
			"ceiling.network.runtime network.runtime.http.allow: PUT up.example.org/**",
			"ceiling.credentials credentials.runtime: example",
			"ceiling.network.runtime credentials.runtime.inject: example api.example.org",
			"ceiling.rawCredentials credentials.runtime.raw: example",
			"ceiling.sshAgent ssh-agent: runtime",
			"ceiling.volumes storage: /home/agent/.cache/tool",
			"ceiling.hostMounts host-mount: /home/agent/.shared",
			"ceiling.skills skills: /skills",
			"ceiling.skillsWrite skills.write: /skills",
			"ceiling.ports ports: 8080/tcp",
			"ceiling.usb usb: class:0e",
			"ceiling.services services: com.docker.sandbox/git-identity@1",
			"ceiling.privileged privileged: requests privileged execution",
		}},
		{name: "patterns: a port pins, one label is one label", policy: `ceiling:
  network:
    install: ["*"]
    runtime: ["api.example.org:80", "up.example.org", "*.example.net"]
  credentials: [example]
  volumes: [/home/agent/.cache/tool]
  hostMounts: [/home/agent/.shared/**]
  skills: [/skills/**]
  skillsWrite: true
  services: [com.docker.sandbox/git-identity@1]
  privileged: true
  sshAgent: true
  usb: true
  ports: true
`, want: []string{
			"ceiling.network.runtime network.runtime.allow: *.cdn.example.net",
			"ceiling.network.runtime network.runtime.allow: api.example.org:443",
			// a pinned port does not cover the secret's any-port host
			"ceiling.network.runtime credentials.runtime.inject: example api.example.org",
			"ceiling.rawCredentials credentials.runtime.raw: example",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := CheckKit(k, policy(t, tc.policy))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				tc.want = []string{}
			}
			if diff := cmp.Diff(tc.want, rules(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			for _, v := range r.Violations {
				if v.At == nil || v.At.File != "kit.yaml" {
					t.Errorf("%s has no position", v.Message)
				}
			}
		})
	}
}

func TestHostCovers(t *testing.T) {
	tests := []struct {
		pattern, host string
		want          bool
	}{
		{"a.example.org", "a.example.org", true},
		{"a.example.org", "a.example.org:443", true},
		{"a.example.org:443", "a.example.org", false},
		{"a.example.org:443", "a.example.org:443", true},
		{"*.example.org", "a.example.org", true},
		{"*.example.org", "a.b.example.org", false},
		{"*.example.org", "example.org", false},
		{"*.example.org", "*.example.org", true},
		{"**.example.org", "a.b.example.org", true},
		{"**.example.org", "*.example.org", true},
		{"*.example.org", "**", false},
		{"**", "**", true},
		{"*", "anything.example.net:22", true},
		// #16 item 9: DNS names are case-insensitive, and **.d covers the
		// patterns under d.
		{"api.example.org", "API.Example.org", true},
		{"**.example.net", "*.a.example.net", true},
		{"*.example.net", "*.a.example.net", false},
	}
	for _, tc := range tests {
		h, err := spec.ParseHost(tc.host)
		if err != nil {
			t.Fatal(err)
		}
		if got := hostAllowed(parsePatterns([]string{tc.pattern}), h); got != tc.want {
			t.Errorf("hostAllowed(%q, %q) = %v, want %v", tc.pattern, tc.host, got, tc.want)
		}
	}
}

// A pinned baseline: any widening against it fails, a narrowing does not.
func TestCeilingBaseline(t *testing.T) {
	v1 := source(t, "v1.yaml", "kind: mixin\ncapabilities:\n"+np+"      runtime: {allow: [a.example.org, b.example.org]}\n")
	v2 := source(t, "v2.yaml", "kind: mixin\ncapabilities:\n"+np+"      runtime: {allow: [a.example.org, c.example.org]}\n")
	dir := t.TempDir()
	var b bytes.Buffer
	r, err := Resolve([]*Kit{v1}, WithoutWorkload())
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteResolution(&b, r, FormatJSON); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "v1.surface.json"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	pol := "policyVersion: \"1\"\nceiling:\n  network: {runtime: [\"*.example.org\"]}\n  baseline: {surface: v1.surface.json}\n"
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPolicy(filepath.Join(dir, "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		k    *Kit
		want []string
	}{
		{v1, []string{}},
		{v2, []string{"ceiling.baseline network.runtime.allow: c.example.org"}},
	} {
		res, err := CheckKit(tc.k, p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, rules(res.Violations)); diff != "" {
			t.Errorf("%s: violations (-want +got):\n%s", tc.k.Name, diff)
		}
	}

	digest := "sha256:" + strings.Repeat("a", 64)
	pd := policy(t, "ceiling:\n  network: {runtime: [\"*.example.org\"]}\n  baseline: {digest: "+digest+"}\n")
	if _, err := CheckKit(v2, pd); !errors.Is(err, ErrNoBaseline) {
		t.Errorf("digest baseline without its surface: err = %v", err)
	}
	res, err := CheckKit(v2, pd, WithBaselineSurface(spec.SurfaceOf(v1.Descriptor)))
	if err != nil || len(res.Violations) != 1 {
		t.Errorf("digest baseline: %v, %v", res, err)
	}
	pinned := *v2
	pinned.Digest = digest
	if res, err := CheckKit(&pinned, pd); err != nil || !res.OK() {
		t.Errorf("the baseline digest itself: %v, %v", res, err)
	}
}

func TestParsePolicyRefusals(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"version", "policyVersion: \"2\"\nceiling: {}\n", "policyVersion"},
		{"unknown key", "policyVersion: \"1\"\nceiling: {netwrk: {}}\n", "netwrk"},
		{"nothing stated", "policyVersion: \"1\"\n", "neither signers nor a ceiling"},
		{"two identities", "policyVersion: \"1\"\nsigners: [{identity: a, identityRegexp: '^a$', issuer: i}]\n", "exactly one of identity"},
		{"no issuer", "policyVersion: \"1\"\nsigners: [{identity: a}]\n", "exactly one of issuer"},
		{"unanchored", "policyVersion: \"1\"\nsigners: [{identityRegexp: 'https://github.com/org/', issuer: i}]\n", "not anchored"},
		{"bad regexp", "policyVersion: \"1\"\nsigners: [{identityRegexp: '^(a$', issuer: i}]\n", "identityRegexp"},
		// Textually ^…$, but an alternation of a prefix match and a
		// suffix match: it accepts kitsmith-test@example.com.evil.com.
		{"half anchored", "policyVersion: \"1\"\nsigners: [{identityRegexp: '^kitsmith-test@example\\.com|evil$', issuer: i}]\n", "not anchored as a whole"},
		{"half anchored issuer", "policyVersion: \"1\"\nsigners: [{identity: a, issuerRegexp: '^https://a|b$'}]\n", "issuerRegexp"},
		{"host pattern", "policyVersion: \"1\"\nceiling: {network: {runtime: [a.*.example.org]}}\n", "wildcard stands only first"},
		{"path pattern", "policyVersion: \"1\"\nceiling: {volumes: [data/**]}\n", "not a path pattern"},
		{"baseline", "policyVersion: \"1\"\nceiling: {baseline: {digest: sha256:abc}}\n", "64 hex"},
		{"empty", "", "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePolicy("p.yaml", []byte(tc.src))
			if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrPolicy mentioning %q", err, tc.want)
			}
		})
	}
}

func TestWriteCeiling(t *testing.T) {
	k := source(t, "kit.yaml", "kind: mixin\ncapabilities:\n"+np+"      runtime: {allow: [a.example.org, \"${{ kit.args.host }}\"]}\nargs:\n  host: {env: HOST, default: b.example.org}\n")
	r, err := CheckKit(k, policy(t, "ceiling: {network: {runtime: [a.example.org]}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ format, file string }{{FormatText, "ceiling.txt"}, {FormatJSON, "ceiling.json"}} {
		var b bytes.Buffer
		if err := WriteCeiling(&b, r, f.format); err != nil {
			t.Fatal(err)
		}
		golden(t, "ceiling/"+f.file, b.Bytes())
	}
	if err := WriteCeiling(&bytes.Buffer{}, r, FormatMarkdown); !errors.Is(err, ErrFormat) {
		t.Errorf("markdown: err = %v", err)
	}
}

// The expressions handed to the verifier match whole strings, whatever
// the policy file wrote: ^(?:expr)$.
func TestSignerMatchers(t *testing.T) {
	p := policy(t, "signers:\n  - {identityRegexp: '^https://github\\.com/acme/(kits|tools)/$', issuer: https://issuer.example}\n  - {identity: a@example.com, issuerRegexp: '^https://(a|b)\\.example$'}\n")
	got := p.SignerMatchers()
	want := []signer.Signer{
		{IdentityRegexp: `^(?:^https://github\.com/acme/(kits|tools)/$)$`, Issuer: "https://issuer.example"},
		{Identity: "a@example.com", IssuerRegexp: `^(?:^https://(a|b)\.example$)$`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SignerMatchers (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		s    string
		want bool
	}{{"https://github.com/acme/kits/", true}, {"https://github.com/acme/tools/", true}, {"https://github.com/acme/kits/x", false}} {
		if ok := regexp.MustCompile(got[0].IdentityRegexp).MatchString(tc.s); ok != tc.want {
			t.Errorf("%s matches %q: %v, want %v", got[0].IdentityRegexp, tc.s, ok, tc.want)
		}
	}
}

// rawKit parses a descriptor body without validating it: the gates must
// hold even on what validation would refuse.
func rawKit(t *testing.T, body string) *Kit {
	t.Helper()
	k, err := spec.Parse("kit.yaml", []byte(spec.SyntaxLine+"\nschemaVersion: \"3\"\nkind: mixin\ncapabilities:\n"+body))
	if err != nil || k.Descriptor == nil {
		t.Fatalf("%v", err)
	}
	return &Kit{Name: "kit.yaml", Descriptor: k.Descriptor}
}

// #16 items 2, 5, 6 and 9 against the ceiling: hosts, bounded entries and
// credentials are judged as typed atoms; each widening has a benign
// look-alike that stays within.
func TestCeilingTypedAtoms(t *testing.T) {
	const np = "  - type: com.docker.sandbox/network-policy@2\n    config:\n      runtime:\n        allow: "
	const cred = "  - type: com.docker.sandbox/credential@1\n    config: {service: api, phase: runtime, apiKey: "
	tests := []struct {
		name, ceiling, kit string
		want               []string
	}{
		{"bounded CIDR host", "{network: {runtime: [10.0.0.1]}}", np + "[{hosts: [10.0.0.1/0], methods: [GET]}]\n",
			[]string{"ceiling invalid: network.runtime.http.allow: 10.0.0.1/0"}},
		{"bounded host with userinfo", "{network: {runtime: [api.example.org]}}", np + "[{hosts: [\"api.example.org:443@evil.com\"], methods: [GET]}]\n",
			[]string{"ceiling invalid: network.runtime.http.allow: api.example.org:443@evil.com"}},
		{"bounded host with a path", "{network: {runtime: [api.example.org]}}", np + "[{hosts: [api.example.org/evil], methods: [GET]}]\n",
			[]string{"ceiling invalid: network.runtime.http.allow: api.example.org/evil"}},
		{"bounded literal host (look-alike)", "{network: {runtime: [api.example.org]}}", np + "[{hosts: [api.example.org], methods: [GET], paths: [/v1/../v2/**]}]\n", nil},
		{"fragment after a port", "{network: {runtime: [api.example.org]}}", np + "[\"api.example.org:443#evil.com\"]\n",
			[]string{"ceiling invalid: network.runtime.allow: api.example.org:443#evil.com"}},
		{"a path after a port", "{network: {runtime: [api.example.org]}}", np + "[\"api.example.org:443/../evil.com\"]\n",
			[]string{"ceiling invalid: network.runtime.allow: api.example.org:443/../evil.com"}},
		{"a list in one host", "{network: {runtime: [\"**.example.net\"]}}", np + "[\"evil.com,x.example.net\"]\n",
			[]string{"ceiling invalid: network.runtime.allow: evil.com,x.example.net"}},
		{"whitespace in one host", "{network: {runtime: [\"**.example.net\"]}}", np + "[\"evil.com .example.net\"]\n",
			[]string{"ceiling invalid: network.runtime.allow: evil.com .example.net"}},
		{"percent-encoding", "{network: {runtime: [\"**.example.net\"]}}", np + "[\"evil%2ecom.example.net\"]\n",
			[]string{"ceiling invalid: network.runtime.allow: evil%2ecom.example.net"}},
		{"a name under the domain (look-alike)", "{network: {runtime: [\"**.example.net\"]}}", np + "[x.Example.NET, \"*.a.example.net\"]\n", nil},
		{"an inject domain beyond the network ceiling", "{network: {runtime: [\"*.example.org\"]}, credentials: [api]}", np + "[a.example.org]\n" + cred + "{inject: [{domain: a.example.org}, {domain: evil.com}]}}\n",
			[]string{"ceiling.network.runtime credentials.runtime.inject: api evil.com"}},
		{"an inject domain that is not a host", "{network: {runtime: [\"**.example.net\"]}, credentials: [api]}", np + "[x.example.net]\n" + cred + "{inject: [{domain: \"evil.com,x.example.net\"}]}}\n",
			[]string{"ceiling invalid: credentials.runtime.inject: api evil.com,x.example.net"}},
		{"an inject domain within (look-alike)", "{network: {runtime: [\"*.example.org\"]}, credentials: [api]}", np + "[a.example.org]\n" + cred + "{inject: [{domain: a.example.org}]}}\n", nil},
		{"a raw secret", "{network: {runtime: [a.example.org]}, credentials: [api]}", np + "[a.example.org]\n" + cred + "{name: K, proxyManaged: false}}\n",
			[]string{"ceiling.rawCredentials credentials.runtime.raw: api"}},
		{"a proxy-managed secret (look-alike)", "{network: {runtime: [a.example.org]}, credentials: [api]}", np + "[a.example.org]\n" + cred + "{name: K, proxyManaged: true}}\n", nil},
		{"an invalid type cut at +", "{services: [com.docker.sandbox/git-identity@1]}", "  - type: com.docker.sandbox/git-identity@1+evil/x@1\n",
			[]string{"ceiling.services services: com.docker.sandbox/git-identity@1+evil/x@1"}},
		{"a path escaping its pattern", "{hostMounts: [/home/agent/**]}", "  - type: com.docker.sandbox/host-mount@1\n    config: {path: /home/agent/../../etc}\n",
			[]string{"ceiling.hostMounts host-mount: /etc"}},
		{"a path within its pattern (look-alike)", "{hostMounts: [/home/agent/**]}", "  - type: com.docker.sandbox/host-mount@1\n    config: {path: /home/agent/./x}\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := CheckKit(rawKit(t, tc.kit), policy(t, "ceiling: "+tc.ceiling+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				tc.want = []string{}
			}
			if diff := cmp.Diff(tc.want, rules(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

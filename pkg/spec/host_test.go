package spec

import (
	"errors"
	"strings"
	"testing"
)

func TestParseHost(t *testing.T) {
	tests := []struct {
		in   string
		want Host
		str  string
	}{
		{"api.example.org", Host{Kind: HostExact, Name: "api.example.org"}, "api.example.org"},
		{"API.Example.ORG.", Host{Kind: HostExact, Name: "api.example.org"}, "api.example.org"},
		{"api.example.org:443", Host{Kind: HostExact, Name: "api.example.org", Port: 443}, "api.example.org:443"},
		{"localhost", Host{Kind: HostExact, Name: "localhost"}, "localhost"},
		{"10.0.0.1", Host{Kind: HostExact, Name: "10.0.0.1", IP: true}, "10.0.0.1"},
		{"*.example.org", Host{Kind: HostOneLabel, Name: "example.org"}, "*.example.org"},
		{"**.example.org:8443", Host{Kind: HostAnyLabels, Name: "example.org", Port: 8443}, "**.example.org:8443"},
		{"*", Host{Kind: HostAny}, "*"},
		{"**", Host{Kind: HostAny}, "*"},
		{"bedrock-*.amazonaws.com", Host{Kind: HostGlob, Name: "bedrock-*.amazonaws.com"}, "bedrock-*.amazonaws.com"},
		{"bedrock-runtime.*.amazonaws.com", Host{Kind: HostGlob, Name: "bedrock-runtime.*.amazonaws.com"}, "bedrock-runtime.*.amazonaws.com"},
		{"_acme.example.org", Host{Kind: HostExact, Name: "_acme.example.org"}, "_acme.example.org"},
	}
	for _, tc := range tests {
		got, err := ParseHost(tc.in)
		if err != nil || got != tc.want || got.String() != tc.str {
			t.Errorf("ParseHost(%q) = %+v (%s), %v; want %+v (%s)", tc.in, got, got, err, tc.want, tc.str)
		}
	}
}

// Everything that is not a host pattern is refused, with what it is.
func TestParseHostRefusals(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "empty"},
		{"api.example.org:443@evil.com", "userinfo"},
		{"user@api.example.org", "userinfo"},
		{"api.example.org:443#evil.com", "fragment"},
		{"api.example.org?x", "query"},
		{"api.example.org:443/../evil.com", "path"},
		{"api.example.org/evil", "path"},
		{"10.0.0.1/0", "CIDR"},
		{"evil.com,x.example.net", "one host per entry"},
		{"evil.com .example.net", "whitespace"},
		{"evil.com\t.example.net", "whitespace"},
		{"evil%2ecom.example.net", "percent"},
		{"a..example.net", "empty label"},
		{".example.net", "empty label"},
		{"example.net..", "empty label"},
		{":443", "names no host"},
		{"api.example.org:", "port"},
		{"api.example.org:0", "port"},
		{"api.example.org:65536", "port"},
		{"api.example.org:044", "port"},
		{"api.example.org:443:1", "more than one"},
		{"[::1]:443", "IPv6"},
		{"**.", "empty label"},
		{"*.", "empty label"},
		{"10.0.0.256", "IPv4"},
		{"1.2.3", "IPv4"},
		{"*.0.0.1", "IPv4"},
		{"caf\u00e9.example.org", "no host name"},
		{strings.Repeat("a", 64) + ".example.org", "63"},
	} {
		_, err := ParseHost(tc.in)
		if !errors.Is(err, ErrHost) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseHost(%q) = %v, want ErrHost mentioning %q", tc.in, err, tc.want)
		}
	}
}

func TestHostCovers(t *testing.T) {
	tests := []struct {
		pattern, host string
		want          bool
	}{
		{"api.example.org", "api.example.org:443", true},
		{"api.example.org", "API.EXAMPLE.ORG", true},
		{"api.example.org:443", "api.example.org:443", true},
		{"api.example.org:443", "api.example.org", false},
		{"api.example.org:443", "api.example.org:80", false},
		{"*.example.net", "a.example.net", true},
		{"*.example.net", "a.b.example.net", false},
		{"*.example.net", "example.net", false},
		{"**.example.net", "*.a.example.net", true},
		{"**.example.net", "a.b.example.net:1", true},
		{"**.example.net", "example.net", false},
		{"**.example.net", "example.net.evil.com", false},
		{"**.example.net", "evilexample.net", false},
		{"*", "**.example.net:9", true},
		{"*:443", "api.example.org", false},
		{"*:443", "api.example.org:443", true},
		{"*.example.net", "*", false},
		{"10.0.0.1", "10.0.0.1:22", true},
		{"**.example.net", "10.0.0.1", false},
		// A glob's wildcards stand for any text, dots included.
		{"**.amazonaws.com", "bedrock-runtime.*.amazonaws.com", true},
		{"**.amazonaws.com", "bedrock-*.amazonaws.com", true},
		{"*.amazonaws.com", "bedrock-*.amazonaws.com", false},
		{"**.amazonaws.com", "bedrock.*", false},
		{"**.amazonaws.com", "a.*amazonaws.com", false},
		{"bedrock-*.amazonaws.com", "bedrock-*.amazonaws.com", true},
		{"bedrock-*.amazonaws.com", "bedrock-x.amazonaws.com", false},
	}
	for _, tc := range tests {
		p, err1 := ParseHost(tc.pattern)
		h, err2 := ParseHost(tc.host)
		if err1 != nil || err2 != nil {
			t.Fatalf("%v %v", err1, err2)
		}
		if got := p.Covers(h); got != tc.want {
			t.Errorf("%q covers %q: %v, want %v", tc.pattern, tc.host, got, tc.want)
		}
	}
}

func TestHostNearestLegal(t *testing.T) {
	for in, want := range map[string]string{
		"bedrock-*.amazonaws.com":         "*.amazonaws.com",
		"bedrock-runtime.*.amazonaws.com": "**.amazonaws.com",
		"*.*.example.org:443":             "**.example.org:443",
		"api.*":                           "*",
		"api.example.org":                 "api.example.org",
	} {
		h, err := ParseHost(in)
		if err != nil {
			t.Fatal(err)
		}
		// *.domain is the pattern meant when a wildcard stands within the
		// first label; whether it covers the glob depends on the matcher.
		if got := h.NearestLegal(); got.String() != want || got.Kind != HostOneLabel && !got.Covers(h) {
			t.Errorf("NearestLegal(%q) = %s, want %s covering it", in, got, want)
		}
	}
}

// FuzzParseHost: ParseHost never panics, what it accepts renders to a
// canonical text that parses back to the same Host, and a host covers
// itself.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"api.example.org:443", "*.example.net", "**.a.b", "*", "10.0.0.1", "bedrock-*.x.com", "A.B.", "x:${{ kit.args.p }}", "a,b", "a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHost(s)
		if err != nil {
			return
		}
		back, err := ParseHost(h.String())
		if err != nil || back != h {
			t.Fatalf("ParseHost(%q) = %+v renders %q, which parses to %+v, %v", s, h, h.String(), back, err)
		}
		if !h.Covers(h) {
			t.Fatalf("%q does not cover itself", s)
		}
	})
}

package emulator

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kitsmith/kitsmith/internal/shimproto"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

func testPolicy(t *testing.T) *policy {
	t.Helper()
	k, err := spec.Parse("p.yaml", []byte(`# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      install: {allow: ["registry.example.org:443", "*.cdn.example.org"]}
      runtime:
        allow: ["api.example.org", "**.example.net", "Mixed.Example.COM:8080"]
        deny: ["bad.example.net"]
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := policyOf(k.Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDecide(t *testing.T) {
	p := testPolicy(t)
	tests := []struct {
		phase, host string
		port        int
		allowed     bool
		entry, fix  string
	}{
		{PhaseInstall, "registry.example.org", 443, true, "registry.example.org:443", ""},
		{PhaseInstall, "registry.example.org", 80, false, "", `add "registry.example.org:80" to the network-policy install allow list`},
		{PhaseInstall, "a.cdn.example.org", 443, true, "*.cdn.example.org", ""},
		{PhaseInstall, "a.b.cdn.example.org", 443, false, "", "install allow list"},
		{PhaseInstall, "api.example.org", 443, false, "", `add "api.example.org:443" to the network-policy install allow list`}, // runtime only
		{PhaseRuntime, "registry.example.org", 443, false, "", "runtime allow list"},                                            // install only
		{PhaseRuntime, "API.Example.org.", 443, true, "api.example.org", ""},                                                    // case and trailing dot
		{PhaseRuntime, "deep.a.example.net", 22, true, "**.example.net", ""},
		{PhaseRuntime, "bad.example.net", 443, false, "bad.example.net", `the runtime deny entry "bad.example.net"`}, // deny beats allow
		{PhaseRuntime, "mixed.example.com", 8080, true, "Mixed.Example.COM:8080", ""},
		{PhaseRuntime, "mixed.example.com", 443, false, "", "runtime allow list"},
		{PhaseRuntime, "10.0.0.1", 80, false, "", `"10.0.0.1:80"`},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %s:%d", tc.phase, tc.host, tc.port), func(t *testing.T) {
			d := p.decide(tc.phase, tc.host, tc.port)
			if d.allowed != tc.allowed || d.entry != tc.entry || !strings.Contains(d.fix, tc.fix) {
				t.Errorf("decide = %+v; want allowed %v, entry %q, fix containing %q", d, tc.allowed, tc.entry, tc.fix)
			}
		})
	}
}

func TestDecideWithoutPolicy(t *testing.T) {
	p, err := policyOf(&spec.Descriptor{})
	if err != nil {
		t.Fatal(err)
	}
	d := p.decide(PhaseInstall, "a.example.org", 443)
	if d.allowed || !strings.Contains(d.fix, "declare - type: com.docker.sandbox/network-policy@1") {
		t.Errorf("decide = %+v", d)
	}
}

// proxyConn starts the proxy on a unix socket and dials it.
func proxyConn(t *testing.T, px *proxy) func() net.Conn {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "p.sock")
	if err := px.serve(sock); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(px.close)
	return func() net.Conn {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
}

func TestProxy(t *testing.T) {
	origin, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer origin.Close()
	go func() {
		for {
			c, err := origin.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(r.Host), r.Host)
			}()
		}
	}()
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if !strings.HasPrefix(addr, "api.example.org:") {
			return nil, errors.New("no origin")
		}
		return net.Dial("tcp", origin.Addr().String())
	}
	px := newProxy(testPolicy(t), dial)
	var log []Connection
	px.attribute(PhaseRuntime, &log)
	conn := proxyConn(t, px)

	// CONNECT, allowed: a tunnel to the origin.
	c := conn()
	fmt.Fprintf(c, "CONNECT api.example.org:443 HTTP/1.1\r\nHost: api.example.org:443\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT allowed: %v %v", resp, err)
	}
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: tunnelled\r\n\r\n")
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "tunnelled" {
		t.Errorf("through the tunnel: %q", body)
	}

	// CONNECT, refused: 403 naming the fix, transparent label.
	c = conn()
	fmt.Fprintf(c, "CONNECT other.example.org:443 HTTP/1.1\r\nHost: other.example.org:443\r\n%s: transparent\r\n\r\n", shimproto.PathHeader)
	resp, err = http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 403 {
		t.Fatalf("CONNECT refused: %v %v", resp, err)
	}
	body, _ = io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `add "other.example.org:443" to the network-policy runtime allow list`) {
		t.Errorf("refusal body: %q", body)
	}

	// An absolute-form request, allowed, forwarded.
	c = conn()
	fmt.Fprintf(c, "GET http://api.example.org/x HTTP/1.1\r\nHost: api.example.org\r\n\r\n")
	resp, err = http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("forward: %v %v", resp, err)
	}
	body, _ = io.ReadAll(resp.Body)
	if string(body) != "api.example.org" {
		t.Errorf("forwarded body %q", body)
	}

	want := []string{"api.example.org:443 forward true", "other.example.org:443 transparent false", "api.example.org:80 forward true"}
	var got []string
	for _, l := range log {
		got = append(got, fmt.Sprintf("%s:%d %s %v", l.Host, l.Port, l.Path, l.Allowed))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("recorded\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Between hooks nothing may connect.
	px.attribute("", nil)
	c = conn()
	fmt.Fprintf(c, "CONNECT api.example.org:443 HTTP/1.1\r\nHost: api.example.org:443\r\n\r\n")
	resp, err = http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 403 {
		t.Fatalf("CONNECT between hooks: %v %v", resp, err)
	}
}

func TestCheckShim(t *testing.T) {
	notELF := filepath.Join(t.TempDir(), "kitsmith")
	os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755)
	tests := []struct {
		path, arch, want string
	}{
		{"", "amd64", "no binary given"},
		{notELF, "amd64", "is not a linux executable"},
		{"/bin/sh", "amd64", "dynamically linked"},
		{"/bin/busybox", "arm64", "is built for EM_X86_64, the container runs linux/arm64"},
		{"/bin/busybox", "amd64", ""},
	}
	for _, tc := range tests {
		t.Run(tc.path+" "+tc.arch, func(t *testing.T) {
			if _, err := os.Stat(tc.path); tc.path != "" && err != nil {
				t.Skip(err)
			}
			err := checkShim(tc.path, tc.arch)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("checkShim: %v", err)
			case tc.want != "" && (err == nil || !errors.Is(err, ErrShim) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("checkShim = %v; want ErrShim saying %q", err, tc.want)
			}
		})
	}
}

func TestCaptureFindsNeedlesAcrossWrites(t *testing.T) {
	c := &capture{needles: map[string]string{"sekrit-value": "secret of x", "other": "host sentinel"}}
	for _, part := range []string{"prefix sek", "rit-val", "ue suffix"} {
		c.Write([]byte(part))
	}
	if got := c.found(); len(got) != 1 || got[0] != "secret of x" {
		t.Errorf("found %v", got)
	}
	big := strings.Repeat("x", 3*maxOutput)
	c.Write([]byte(big + "END"))
	if b := c.bytes(); len(b) > 2*maxOutput || !strings.HasSuffix(string(b), "END") {
		t.Errorf("kept %d bytes, tail %q", len(b), b[len(b)-3:])
	}
}

func TestHookEnv(t *testing.T) {
	v := &values{
		image:   map[string]string{"PATH": "/usr/bin", "IMAGE_ONLY": "1", "LANG": "C.UTF-8"},
		exports: map[string]string{"REGION": "eu"},
		creds:   map[string]map[string]string{PhaseInstall: {"GH_TOKEN": SentinelPrefix + "github"}, PhaseRuntime: {}},
	}
	got := v.hookEnv(PhaseInstall, []string{"REGION", "LANG", "GH_TOKEN", "HTTPS_PROXY", "MISSING"}, "/root")
	want := []string{"GH_TOKEN=" + SentinelPrefix + "github", "HOME=/root", "HOSTNAME=" + Hostname, "HTTPS_PROXY=" + ProxyURL, "LANG=C.UTF-8", "PATH=/usr/bin", "REGION=eu"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("hookEnv =\n%v\nwant\n%v", got, want)
	}
	if got := v.hookEnv(PhaseRuntime, []string{"GH_TOKEN"}, "/home/agent"); strings.Contains(strings.Join(got, " "), "GH_TOKEN") {
		t.Errorf("an install credential reached the runtime phase: %v", got)
	}
}

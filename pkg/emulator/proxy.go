package emulator

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kitsmith/kitsmith/internal/shimproto"
)

// Dialer opens the upstream connection of an allowed request.
type Dialer func(ctx context.Context, network, addr string) (net.Conn, error)

// Connection is one connection a hook made through the sandbox boundary.
type Connection struct {
	// Host and Port are where the hook connected.
	Host string `json:"host"`
	Port int    `json:"port"`
	// Path is how it got there: "forward" (through HTTP(S)_PROXY) or
	// "transparent" (a direct connection).
	Path string `json:"path"`
	// Allowed reports the verdict; Entry is the allow or deny entry that
	// decided ("" when no entry covered it).
	Allowed bool   `json:"allowed"`
	Entry   string `json:"entry,omitempty"`
	// Fix says what to change for a refused connection.
	Fix string `json:"fix,omitempty"`
	// Error is why an allowed connection failed upstream.
	Error string `json:"error,omitempty"`
}

// proxy is the enforcing proxy on the host side of the container's one
// way out: it judges every connection against the running hook's phase.
type proxy struct {
	pol  *policy
	dial Dialer

	mu      sync.Mutex
	phase   string
	current *[]Connection

	srv *http.Server
	l   net.Listener
}

func newProxy(pol *policy, dial Dialer) *proxy {
	if dial == nil {
		d := &net.Dialer{Timeout: 30 * time.Second}
		dial = d.DialContext
	}
	p := &proxy{pol: pol, dial: dial}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	return p
}

// serve listens on the unix socket path until close.
func (p *proxy) serve(path string) error {
	l, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("starting the enforcing proxy: %w", err)
	}
	p.l = l
	go p.srv.Serve(l)
	return nil
}

func (p *proxy) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p.srv.Shutdown(ctx)
	p.srv.Close()
}

// attribute directs the record of later connections to log, judged in
// phase; a nil log records nothing (between hooks nothing may connect).
func (p *proxy) attribute(phase string, log *[]Connection) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.current = phase, log
}

func (p *proxy) judge(host string, port int, path string) Connection {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := Connection{Host: strings.ToLower(host), Port: port, Path: path}
	phase := p.phase
	if p.current == nil {
		c.Fix = "no hook was running: nothing may connect between hooks"
		return c
	}
	d := p.pol.decide(phase, host, port)
	c.Allowed, c.Entry, c.Fix = d.allowed, d.entry, d.fix
	return c
}

func (p *proxy) record(c Connection) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current != nil {
		*p.current = append(*p.current, c)
	}
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := "forward"
	if r.Header.Get(shimproto.PathHeader) == "transparent" {
		path = "transparent"
	}
	if r.Method == http.MethodConnect {
		p.connect(w, r, path)
		return
	}
	if r.URL.Host == "" || r.URL.Scheme != "http" {
		http.Error(w, "kitsmith test: the proxy takes CONNECT and absolute http:// requests only", http.StatusBadRequest)
		return
	}
	host, port := splitHostPort(r.URL.Host, 80)
	up, ok := p.open(w, r, host, port, path)
	if !ok {
		return
	}
	defer up.Close()
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	out.Close = true
	if err := out.Write(up); err != nil {
		http.Error(w, "kitsmith test: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	io.Copy(conn, up) // the upstream's response, as it sent it
}

// open judges a connection to host:port, records it, and dials it when
// allowed; a refusal (403 naming the fix) or a failed dial (502) has
// been answered when it returns false.
func (p *proxy) open(w http.ResponseWriter, r *http.Request, host string, port int, path string) (net.Conn, bool) {
	c := p.judge(host, port, path)
	if !c.Allowed {
		p.record(c)
		refuse(w, c)
		return nil, false
	}
	up, err := p.dial(r.Context(), "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		c.Error = err.Error()
	}
	p.record(c)
	if err != nil {
		http.Error(w, "kitsmith test: "+err.Error(), http.StatusBadGateway)
		return nil, false
	}
	return up, true
}

func (p *proxy) connect(w http.ResponseWriter, r *http.Request, path string) {
	host, port := splitHostPort(r.Host, 443)
	up, ok := p.open(w, r, host, port, path)
	if !ok {
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		conn.Close()
		up.Close()
		return
	}
	if n := buf.Reader.Buffered(); n > 0 {
		b, _ := buf.Reader.Peek(n)
		up.Write(b)
	}
	shimproto.Splice(conn, up)
}

func refuse(w http.ResponseWriter, c Connection) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, "kitsmith test: egress to %s refused by the kit's network policy: %s\n", net.JoinHostPort(c.Host, strconv.Itoa(c.Port)), c.Fix)
}

func splitHostPort(hp string, def int) (string, int) {
	h, ps, err := net.SplitHostPort(hp)
	if err != nil {
		return strings.Trim(hp, "[]"), def
	}
	port, err := strconv.Atoi(ps)
	if err != nil {
		return h, def
	}
	return h, port
}

// Package shim is the helper `kitsmith test` runs inside the test
// container, as the hidden command `kitsmith __shim`. It is a process, not
// a library: it serves the container's name resolution and its two egress
// paths (the forward proxy the hooks' HTTP(S)_PROXY names, and a
// transparent path for direct connections), tunnelling every connection
// over one unix socket to the enforcing proxy in kitsmith itself, and it
// runs each hook under a wrapper that records the hook's result and always
// exits 0 (one failing process would otherwise end BuildKit's container).
//
// The shim decides nothing: every policy decision is taken by the proxy on
// the host side of the socket. A hook running as root can reach the socket
// directly, which changes only the path label of its connections.
package shim

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/kitsmith/kitsmith/internal/shimproto"
)

// ServeConfig is what `__shim serve` listens on.
type ServeConfig struct {
	// Socket is the unix socket of the enforcing proxy.
	Socket string
	// Forward is the forward-proxy listen address (127.0.0.1:3128).
	Forward string
	// DNS is the UDP address name resolution is answered on (127.0.0.1:53).
	DNS string
	// Ports are the TCP ports the transparent path captures on the fake
	// addresses names resolve to.
	Ports []int
}

// fakeNet is the loopback block names resolve to: 127.1.0.0/16.
const fakeBase = 127<<24 | 1<<16

// names maps names to fake addresses and back.
type names struct {
	mu     sync.Mutex
	byName map[string]uint32
	byAddr map[uint32]string
}

func (n *names) addr(name string) (net.IP, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	a, ok := n.byName[name]
	if !ok {
		if len(n.byName) >= 1<<16-2 {
			return nil, false
		}
		a = fakeBase + uint32(len(n.byName)) + 1
		n.byName[name], n.byAddr[a] = a, name
	}
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, a)
	return ip, true
}

func (n *names) name(ip net.IP) (string, bool) {
	ip4 := ip.To4()
	if ip4 == nil {
		return "", false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	s, ok := n.byAddr[binary.BigEndian.Uint32(ip4)]
	return s, ok
}

// Serve runs the listeners until ctx ends.
func Serve(ctx context.Context, c ServeConfig, ready func()) error {
	n := &names{byName: map[string]uint32{}, byAddr: map[uint32]string{}}
	udp, err := net.ListenPacket("udp4", c.DNS)
	if err != nil {
		return fmt.Errorf("name resolution on %s: %w", c.DNS, err)
	}
	go func() { <-ctx.Done(); udp.Close() }()
	go serveDNS(udp, n)

	fwd, err := net.Listen("tcp4", c.Forward)
	if err != nil {
		return fmt.Errorf("forward proxy on %s: %w", c.Forward, err)
	}
	go func() { <-ctx.Done(); fwd.Close() }()
	go accept(fwd, func(conn net.Conn) { tunnel(conn, c.Socket, nil) })

	for _, p := range c.Ports {
		l, err := net.Listen("tcp4", ":"+strconv.Itoa(p))
		if err != nil {
			return fmt.Errorf("transparent path on port %d: %w", p, err)
		}
		go func() { <-ctx.Done(); l.Close() }()
		go accept(l, func(conn net.Conn) { transparent(conn, c.Socket, n) })
	}
	if ready != nil {
		ready()
	}
	<-ctx.Done()
	return nil
}

func accept(l net.Listener, handle func(net.Conn)) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go handle(conn)
	}
}

// tunnel copies conn to a new connection to the proxy socket, sending
// preface first.
func tunnel(conn net.Conn, socket string, preface []byte) {
	defer conn.Close()
	up, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	if len(preface) > 0 {
		if _, err := up.Write(preface); err != nil {
			return
		}
	}
	shimproto.Splice(conn, up)
}

// transparent turns a direct connection to a fake address into a CONNECT
// to the proxy; a refusal resets the connection.
func transparent(conn net.Conn, socket string, n *names) {
	defer conn.Close()
	local, ok := conn.LocalAddr().(*net.TCPAddr)
	if !ok {
		return
	}
	// A fake address names the host it was resolved from; any other
	// address is a direct connection to an address, which the proxy
	// judges (and refuses) as written.
	name, ok := n.name(local.IP)
	if !ok {
		name = local.IP.String()
	}
	target := net.JoinHostPort(name, strconv.Itoa(local.Port))
	up, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	fmt.Fprintf(up, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s: transparent\r\n\r\n", target, target, shimproto.PathHeader)
	br := bufio.NewReader(up)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != http.StatusOK {
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, as a refusing firewall gives
		}
		return
	}
	if br.Buffered() > 0 {
		b, _ := br.Peek(br.Buffered())
		conn.Write(b)
	}
	shimproto.Splice(conn, up)
}

// serveDNS answers A queries with fake addresses, every other type with
// an empty answer, so resolvers fall back to IPv4.
func serveDNS(pc net.PacketConn, n *names) {
	buf := make([]byte, 1500)
	for {
		k, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if out, ok := answer(buf[:k], n); ok {
			pc.WriteTo(out, from)
		}
	}
}

func answer(q []byte, n *names) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil {
		return nil, false
	}
	qs, err := p.AllQuestions()
	if err != nil || len(qs) != 1 {
		return nil, false
	}
	qq := qs[0]
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true})
	b.EnableCompression()
	if b.StartQuestions() != nil || b.Question(qq) != nil || b.StartAnswers() != nil {
		return nil, false
	}
	name := strings.ToLower(strings.TrimSuffix(qq.Name.String(), "."))
	if qq.Type == dnsmessage.TypeA && qq.Class == dnsmessage.ClassINET && name != "" {
		if ip, ok := n.addr(name); ok {
			var a [4]byte
			copy(a[:], ip)
			b.AResource(dnsmessage.ResourceHeader{Name: qq.Name, Class: dnsmessage.ClassINET, TTL: 5}, dnsmessage.AResource{A: a})
		}
	}
	out, err := b.Finish()
	return out, err == nil
}

// Bounds of the file walk.
const (
	maxWalk  = 200000
	maxFiles = 100
)

// Exec runs argv with the wrapper's own environment, its standard output
// and error both on out (one stream keeps their order, and the result
// line after them), then writes the result line to out and returns 0
// whatever the hook did.
func Exec(ctx context.Context, nonce string, roots, argv []string, out io.Writer) int {
	before, cut1 := snapshot(roots)
	r := shimproto.Result{Env: os.Environ()}
	sort.Strings(r.Env)
	start := time.Now()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, out, out
	err := cmd.Run()
	r.DurationMS = time.Since(start).Milliseconds()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Exit = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.Error = "killed by signal " + ws.Signal().String()
		}
	default:
		r.Exit, r.Error = -1, err.Error()
	}
	after, cut2 := snapshot(roots)
	r.Added, r.Changed, r.Removed, r.FilesTruncated = compare(before, after)
	r.FilesTruncated = r.FilesTruncated || cut1 || cut2
	io.WriteString(out, shimproto.Line(nonce, r))
	return 0
}

type stamp struct {
	size  int64
	mtime int64
	mode  fs.FileMode
}

// snapshot walks roots (skipping what cannot be read), bounded.
func snapshot(roots []string) (map[string]stamp, bool) {
	m := map[string]stamp{}
	cut := false
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if len(m) >= maxWalk {
				cut = true
				return fs.SkipAll
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			m[p] = stamp{info.Size(), info.ModTime().UnixNano(), info.Mode()}
			return nil
		})
	}
	return m, cut
}

func compare(before, after map[string]stamp) (added, changed, removed []string, cut bool) {
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			added = append(added, p)
		case a != b && !a.mode.IsDir():
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			removed = append(removed, p)
		}
	}
	for _, l := range []*[]string{&added, &changed, &removed} {
		sort.Strings(*l)
		if len(*l) > maxFiles {
			*l, cut = (*l)[:maxFiles], true
		}
	}
	return added, changed, removed, cut
}

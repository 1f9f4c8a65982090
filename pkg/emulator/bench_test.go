package emulator

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/moby/buildkit/client"
)

// benchKit is a busybox workload whose install hooks are hooks, allowed
// to reach big.example.org.
func benchKit(b *testing.B, hooks ...string) Member {
	b.Helper()
	var sb strings.Builder
	sb.WriteString("# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: workload\ncapabilities:\n" +
		"  - type: com.docker.sandbox/network-policy@1\n    config:\n      install: {allow: [\"big.example.org\"]}\n")
	if len(hooks) > 0 {
		sb.WriteString("  - type: com.docker.sandbox/lifecycle@1\n    config:\n      install:\n")
	}
	for _, h := range hooks {
		fmt.Fprintf(&sb, "        - command: %q\n          env: [http_proxy]\n", h)
	}
	return Member{Kit: kitOf(b, "bench", sb.String()), Image: busyboxImage(b)}
}

func timeRun(b *testing.B, c *client.Client, shim string, m Member, dial Dialer) time.Duration {
	b.Helper()
	start := time.Now()
	rep, err := Run(context.Background(), c, []Member{m}, Options{Shim: shim, Dial: dial})
	if err != nil {
		b.Fatal(err)
	}
	if !rep.OK() {
		b.Fatalf("the run failed: %+v", rep.Hooks)
	}
	return time.Since(start)
}

// BenchmarkContainerStart: a run with no hooks: compose the image, start
// the container and the shim, release them.
func BenchmarkContainerStart(b *testing.B) {
	c, shim := integration(b), staticShim(b)
	m := benchKit(b)
	timeRun(b, c, shim, m, nil) // the image and the shim reach BuildKit's cache
	for b.Loop() {
		timeRun(b, c, shim, m, nil)
	}
}

// BenchmarkHook: one hook (`true`) in a running container, the wrapper
// and its file walk included, from runs of 1 and 21 hooks.
func BenchmarkHook(b *testing.B) {
	c, shim := integration(b), staticShim(b)
	const n = 20
	one := benchKit(b, "true")
	hooks := make([]string, n+1)
	for i := range hooks {
		hooks[i] = "true"
	}
	many := benchKit(b, hooks...)
	timeRun(b, c, shim, one, nil)
	var per time.Duration
	for b.Loop() {
		per = (timeRun(b, c, shim, many, nil) - timeRun(b, c, shim, one, nil)) / n
	}
	b.ReportMetric(float64(per.Microseconds())/1000, "ms/hook")
}

// BenchmarkProxyThroughput: 64 MiB through the forward proxy, from a
// loopback origin.
func BenchmarkProxyThroughput(b *testing.B) {
	c, shim := integration(b), staticShim(b)
	const size = 64 << 20
	payload := make([]byte, size)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(payload) }))
	defer srv.Close()
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", srv.Listener.Addr().String())
	}
	base, dl := benchKit(b, "true"), benchKit(b, "wget -q -O /dev/null http://big.example.org/")
	timeRun(b, c, shim, base, dial)
	var mibs float64
	for b.Loop() {
		d := timeRun(b, c, shim, dl, dial) - timeRun(b, c, shim, base, dial)
		mibs = float64(size) / (1 << 20) / d.Seconds()
	}
	b.ReportMetric(mibs, "MiB/s")
}

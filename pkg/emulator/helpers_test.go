package emulator

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/moby/buildkit/client"

	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// integration returns a BuildKit client for the daemon the suite starts,
// or skips when the integration suite is not asked for.
func integration(t testing.TB) *client.Client {
	t.Helper()
	if os.Getenv("KITSMITH_INTEGRATION") == "" {
		t.Skip("set KITSMITH_INTEGRATION=1 (scripts/test.sh does) to run against buildkitd")
	}
	addr := os.Getenv("BUILDKIT_HOST")
	if addr == "" {
		t.Fatal("KITSMITH_INTEGRATION is set but BUILDKIT_HOST is not: eval \"$(scripts/services.sh env)\"")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.New(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Info(ctx); err != nil {
		t.Fatalf("buildkitd at %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// staticShim is the kitsmith binary the container runs.
func staticShim(t testing.TB) string { return stack.StaticKitsmith(t) }

// busyboxImage is a workload root filesystem made in-process from
// Debian's busybox-static: the applets a hook needs, root and an agent
// user (1000), and their homes.
func busyboxImage(t testing.TB) v1.Image {
	t.Helper()
	bb, err := os.ReadFile("/bin/busybox")
	if err != nil {
		t.Fatalf("reading /bin/busybox (apt-get install busybox-static; scripts/services.sh install does): %v", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64, uid int) {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: uid, Gid: uid})
	}
	file := func(name string, mode int64, b []byte) {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(b))})
		tw.Write(b)
	}
	for _, d := range []string{"bin/", "etc/", "root/", "usr/", "usr/local/", "var/"} {
		dir(d, 0o755, 0)
	}
	dir("tmp/", 0o1777, 0)
	dir("home/", 0o755, 0)
	dir("home/agent/", 0o755, 1000)
	file("bin/busybox", 0o755, bb)
	for _, a := range []string{"sh", "id", "env", "cat", "echo", "wget", "printf", "touch", "ls", "sleep", "nslookup", "nc", "mkdir", "rm", "true", "false"} {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777})
	}
	file("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/bin/sh\nagent:x:1000:1000:agent:/home/agent:/bin/sh\n"))
	file("etc/group", 0o644, []byte("root:x:0:\nagent:x:1000:\n"))
	tw.Close()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil }, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		t.Fatal(err)
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		t.Fatal(err)
	}
	img, err = mutate.Config(img, v1.Config{Env: []string{"PATH=/bin", "IMAGE_ONLY=from-the-image"}, User: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// emptyImage is a mixin's image with no content.
func emptyImage(t testing.TB) v1.Image {
	t.Helper()
	return mutate.MediaType(empty.Image, types.OCIManifestSchema1)
}

// kitOf parses and validates a descriptor, as a member of a run.
func kitOf(t testing.TB, name, src string) *review.Kit {
	t.Helper()
	k, err := spec.Parse(name+".yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if rep := k.Validate(spec.WithMode(spec.ModePublished)); !rep.OK() {
		t.Fatalf("%s: %v", name, rep.Err())
	}
	// The descriptor as the kit image would carry it: the recipe is not
	// needed, since the test assembles the image itself.
	return &review.Kit{Name: name, Descriptor: k.Descriptor}
}

// origins serves each host name from a loopback HTTP server and dials
// them for the proxy; any other name fails to dial.
type origins struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newOrigins(t *testing.T) *origins {
	o := &origins{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.seen = append(o.seen, r.Host)
		o.mu.Unlock()
		w.Write([]byte("hello from " + strings.Split(r.Host, ":")[0] + "\n"))
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *origins) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, _ := net.SplitHostPort(addr)
	if !strings.HasSuffix(host, ".example.org") {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errNoOrigin}
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", o.srv.Listener.Addr().String())
}

var errNoOrigin = &originError{}

type originError struct{}

func (*originError) Error() string { return "no such origin in the test" }

package artifact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// within runs fn and fails the test if it has not returned after limit:
// what it tests must end on its own, not hang.
func within(t *testing.T, limit time.Duration, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("still running after %s", limit)
		return nil
	}
}

// fastRetries makes the test registry client retry without waiting long.
func fastRetries() Option {
	return func(o *options) error { o.retryWait = time.Millisecond; return nil }
}

// TestRedirectLoop is issue 10 item 2: a registry that redirects every
// request to itself gets a bounded number of requests and a clear error.
func TestRedirectLoop(t *testing.T) {
	var requests, pings atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path == "/v2/" && r.URL.Query().Get("loop") == "" && strings.HasPrefix(r.Host, "127.0.0.1") {
			// Answer the first ping, so the manifest and blob requests
			// (go-containerregistry's client, which follows same-host
			// redirects) are the ones that loop.
			if pings.Add(1) > 1 {
				http.Redirect(w, r, "/v2/?loop=1", http.StatusFound)
			}
			return
		}
		http.Redirect(w, r, r.URL.Path+"?loop=1", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	host := srv.Listener.Addr().String()
	for _, op := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"open", func(ctx context.Context) error {
			_, err := Open(ctx, host+"/kits/gh:1", fastRetries())
			return err
		}},
		{"push", func(ctx context.Context) error {
			_, err := Push(ctx, FromImage(tinyImage(t)), host+"/kits/gh:1", fastRetries())
			return err
		}},
	} {
		t.Run(op.name, func(t *testing.T) {
			requests.Store(0)
			pings.Store(0)
			start := time.Now()
			err := within(t, 20*time.Second, func() error { return op.run(context.Background()) })
			if err == nil || !strings.Contains(err.Error(), "redirects") {
				t.Fatalf("error = %v, want one about redirects", err)
			}
			if !errors.Is(err, ErrUnreachable) {
				t.Errorf("error = %v, want ErrUnreachable", err)
			}
			n := requests.Load()
			if limit := int64(2 * retrySteps * (maxRedirects + 1)); n > limit {
				t.Errorf("%d requests, want at most %d", n, limit)
			}
			t.Logf("%s: %d requests in %s: %v", op.name, n, time.Since(start).Round(time.Millisecond), err)
		})
	}
}

// TestNoHeaders is issue 10 item 3: a registry that accepts connections
// and never answers does not hold kitsmith past its timeouts, and
// cancellation reaches the blocked request.
func TestNoHeaders(t *testing.T) {
	release := make(chan struct{})
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	host := srv.Listener.Addr().String()
	tests := []struct {
		name string
		opts []Option
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"header timeout", []Option{withHeaderTimeout(200 * time.Millisecond), fastRetries()}, background, ErrUnreachable},
		{"operation timeout", []Option{WithTimeout(300 * time.Millisecond), fastRetries()}, background, ErrUnreachable},
		{"cancelled", []Option{fastRetries()}, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			start := time.Now()
			err := within(t, 15*time.Second, func() error {
				_, err := Open(ctx, host+"/kits/gh:1", tt.opts...)
				return err
			})
			if !errors.Is(err, tt.want) {
				t.Errorf("Open error = %v, want %v", err, tt.want)
			}
			t.Logf("%s: returned after %s, %d requests so far", tt.name, time.Since(start).Round(time.Millisecond), requests.Load())
		})
	}
}

func background() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

// TestManifestLimitWhileReading is issue 10 item 3: a manifest over the
// limit is refused while it is read, whether or not it declares its
// length.
func TestManifestLimitWhileReading(t *testing.T) {
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		w.Header().Set("Content-Type", string(types.OCIImageIndex))
		w.Header().Set("Docker-Content-Digest", "sha256:"+strings.Repeat("0", 64))
		if r.URL.Query().Has("declared") || strings.HasSuffix(r.URL.Path, "declared") {
			w.Header().Set("Content-Length", fmt.Sprint(100<<20))
		}
		if r.Method == http.MethodHead {
			return
		}
		w.WriteHeader(http.StatusOK)
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for i := 0; i < (100<<20)/len(chunk); i++ {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	host := srv.Listener.Addr().String()
	for _, tag := range []string{"streamed", "declared"} {
		t.Run(tag, func(t *testing.T) {
			sent.Store(0)
			err := within(t, 15*time.Second, func() error {
				_, err := Open(context.Background(), host+"/kits/gh:"+tag, fastRetries())
				return err
			})
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("Open error = %v, want ErrTooLarge", err)
			}
			t.Logf("%s: server sent %d bytes before the client stopped reading: %v", tag, sent.Load(), err)
		})
	}
}

// TestFIFOsRefused is issue 10 item 8, for the OCI side: a FIFO as a blob,
// as index.json or as an archive is refused, never read (a read would
// block forever).
func TestFIFOsRefused(t *testing.T) {
	dir := t.TempDir()
	layout := filepath.Join(dir, "layout")
	if _, err := Write(context.Background(), FromImage(tinyImage(t)), LayoutPrefix+layout); err != nil {
		t.Fatal(err)
	}
	img := tinyImage(t)
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	copyLayout := func(name string) string {
		t.Helper()
		dst := filepath.Join(dir, name)
		if _, err := Write(context.Background(), FromImage(img), LayoutPrefix+dst); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	mkfifo := func(p string) {
		t.Helper()
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	blobFIFO := copyLayout("blob-fifo")
	mkfifo(filepath.Join(blobFIFO, "blobs", "sha256", m.Config.Digest.Hex))
	indexFIFO := copyLayout("index-fifo")
	mkfifo(filepath.Join(indexFIFO, "index.json"))
	archiveFIFO := filepath.Join(dir, "kit.tar")
	mkfifo(archiveFIFO)
	for _, ref := range []string{LayoutPrefix + blobFIFO, LayoutPrefix + indexFIFO, ArchivePrefix + archiveFIFO} {
		t.Run(ref, func(t *testing.T) {
			err := within(t, 10*time.Second, func() error {
				a, err := Open(context.Background(), ref)
				if err != nil {
					return err
				}
				_, err = a.Inspect(context.Background())
				return err
			})
			if err == nil || !strings.Contains(err.Error(), "FIFO") {
				t.Errorf("error = %v, want one naming the FIFO", err)
			}
		})
	}
}

func tinyImage(t *testing.T) v1.Image {
	t.Helper()
	img, err := random.Image(512, 1)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestPushReferrerConfirms: when a registry fails a push after the
// referrer is stored (here: the referrers probe that follows the manifest
// upload answers 500 until the push has spent its retries), the referrer
// is read back and the push counts as done.
func TestPushReferrerConfirms(t *testing.T) {
	reg := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	var probes, failAfterPut atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/sha256:") && failAfterPut.Load() == 1 {
			failAfterPut.Store(2)
		}
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/referrers/") && failAfterPut.Load() == 2 {
			if probes.Add(1) <= retrySteps {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
		}
		reg.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	ref := srv.Listener.Addr().String() + "/kits/gh:1"
	subject, err := Write(ctx, FromImage(mutate.MediaType(tinyImage(t), types.OCIManifestSchema1)), ref, fastRetries())
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewTarget(ctx, ref, fastRetries())
	if err != nil {
		t.Fatal(err)
	}
	sig := mutate.Subject(mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), "application/vnd.example.sig"), subject).(v1.Image)
	failAfterPut.Store(1)
	d, err := st.PushReferrer(ctx, subject, sig)
	if err != nil {
		t.Fatalf("PushReferrer = %v after %d failed probes, want success confirmed by reading back", err, probes.Load())
	}
	if probes.Load() <= retrySteps {
		t.Fatalf("only %d probes: the failure was not exercised", probes.Load())
	}
	list, err := st.Referrers(ctx, subject)
	if err != nil || len(list) != 1 || list[0].Digest != d.Digest {
		t.Errorf("Referrers = %+v, %v; want %s", list, err, d.Digest)
	}
}

// TestRetriesBounded is issue 10 item 2: a registry that always answers
// 503 gets a bounded number of attempts per operation.
func TestRetriesBounded(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		requests.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	host := srv.Listener.Addr().String()
	ops := map[string]func() error{
		"open": func() error { _, err := Open(context.Background(), host+"/kits/gh:1", fastRetries()); return err },
		"push": func() error {
			_, err := Push(context.Background(), FromImage(tinyImage(t)), host+"/kits/gh:1", fastRetries())
			return err
		},
		"referrers": func() error {
			st, err := NewTarget(context.Background(), host+"/kits/gh", fastRetries())
			if err != nil {
				return err
			}
			_, err = st.Referrers(context.Background(), v1.Descriptor{Digest: v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("0", 64)}})
			return err
		},
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			requests.Store(0)
			if err := within(t, 20*time.Second, op); err == nil {
				t.Fatal("no error from a registry that answers 503")
			}
			if n, limit := requests.Load(), int64(4*retrySteps*retrySteps); n > limit {
				t.Errorf("%d requests, want at most %d", n, limit)
			} else {
				t.Logf("%s: %d requests", name, n)
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestNewcomerHints checks the hints a first run meets.
func TestNewcomerHints(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"schema without a version", []string{"schema", "network-policy"}, []string{"did you mean network-policy@1 or network-policy@2?"}},
		{"a look-alike: an unknown schema", []string{"schema", "nope"}, []string{"see 'kitsmith schema --list'"}},
		{"--progress tty without a terminal", []string{"build", "--progress", "tty", "--output", "oci:" + out, "../../kits/outside"}, []string{"--progress tty:", "use --progress plain"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want 2", code)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for the notice's timer goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSlowRegistryNotice: a loopback registry that accepts connections and
// never answers gets a first line within slowRegistryAfter (2 s), before
// the timeouts; a registry that answers at once says nothing.
func TestSlowRegistryNotice(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), slowRegistryAfter+time.Second)
	defer cancel()
	var out, errOut lockedBuffer
	t0 := time.Now()
	run(ctx, []string{"inspect", ln.Addr().String() + "/kits/tool:1"}, env{}, &out, &errOut)
	line, _, _ := strings.Cut(errOut.String(), "\n")
	if !strings.HasPrefix(line, "kitsmith: waiting for the registry of "+ln.Addr().String()+"/kits/tool:1: no answer after 2s over HTTPS") {
		t.Errorf("first stderr line after %s: %q", time.Since(t0).Round(time.Millisecond), line)
	}
	// The look-alike: a registry that answers (here with a 404 at once).
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	var errOut2 lockedBuffer
	run(context.Background(), []string{"inspect", strings.TrimPrefix(srv.URL, "http://") + "/kits/tool:1"}, env{}, &out, &errOut2)
	if strings.Contains(errOut2.String(), "waiting for the registry") {
		t.Errorf("a registry that answered at once got the notice:\n%s", errOut2.String())
	}
}

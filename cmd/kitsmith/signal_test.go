package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run the real main (signal handling included) in a
// child process: the test binary re-executed with KITSMITH_TEST_MAIN=1.
func TestMain(m *testing.M) {
	if os.Getenv("KITSMITH_TEST_MAIN") == "1" {
		os.Args = append([]string{"kitsmith"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(m.Run())
}

// hangingRegistry listens on loopback, accepts connections and never
// answers, as a registry that never sends headers does. It returns its
// host:port.
func hangingRegistry(t *testing.T) string {
	t.Helper()
	addr, _ := hangingRegistryAccepts(t)
	return addr
}

// hangingRegistryAccepts is hangingRegistry with a channel that receives
// once for each connection accepted.
func hangingRegistryAccepts(t *testing.T) (string, <-chan struct{}) {
	t.Helper()
	accepted := make(chan struct{}, 100)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for range 100 { // bounded: a test makes a handful of connections
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			accepted <- struct{}{}
		}
	}()
	return l.Addr().String(), accepted
}

// TestInterruptStops cancels commands blocked on a registry that never
// answers: each returns within a second of the cancellation, exits 2 and
// prints nothing on stdout; build leaves no output behind.
func TestInterruptStops(t *testing.T) {
	reg := hangingRegistry(t)
	out := filepath.Join(t.TempDir(), "layout")
	tests := []struct {
		name string
		args []string
	}{
		{"check", []string{"check", reg + "/kits/tool:1"}},
		{"inspect", []string{"inspect", reg + "/kits/tool:1"}},
		{"build --push", []string{"build", "--progress", "quiet", "--output", "oci:" + out, "--tag", reg + "/kits/k:1", "--push", buildKits + "/decl-mixin"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(ctx, tc.args, env{"SOURCE_DATE_EPOCH": "0"}, &stdout, &stderr) }()
			select {
			case code := <-done:
				t.Fatalf("returned (exit %d) before the interrupt: %s", code, stderr.String())
			case <-time.After(300 * time.Millisecond):
			}
			cancel()
			select {
			case code := <-done:
				if code != exitUsage || stdout.Len() > 0 {
					t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout.String())
				}
			case <-time.After(time.Second):
				t.Fatal("still running a second after the interrupt")
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an interrupted build left %s (%v)", out, err)
			}
		})
	}
}

// TestSignalStopsMain sends SIGTERM and SIGINT to the real main, blocked on
// a registry that never answers.
func TestSignalStopsMain(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			reg, accepted := hangingRegistryAccepts(t) // one per child: an accept is this child's
			signalWhileWaiting(t, exec.Command(os.Args[0], "check", reg+"/kits/tool:1"), accepted, sig)
		})
	}
}

// signalWhileWaiting runs the real main as cmd, sends it sig once it is
// waiting on a hanging server (a receive on accepted), and checks that it
// exits 2 within a second with nothing on stdout. It signals on the
// accept, not after a fixed time, which a loaded machine can outlast
// before the child has set up its signal handling.
func signalWhileWaiting(t *testing.T, cmd *exec.Cmd, accepted <-chan struct{}, sig syscall.Signal) {
	t.Helper()
	cmd.Env = append(os.Environ(), "KITSMITH_TEST_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-accepted:
	case err := <-done:
		t.Fatalf("the child exited before reaching the hanging server: %v; stderr %q", err, stderr.String())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the child did not reach the hanging server in 30 s; stderr %q", stderr.String())
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitUsage || stdout.Len() > 0 {
			t.Errorf("%v: %v, stdout %q, stderr %q; want exit 2 and no stdout", sig, err, stdout.String(), stderr.String())
		}
	case <-time.After(time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running a second after %v; stderr %q", sig, stderr.String())
	}
}

// TestInterruptedBeforeWork: validate and lint stop between kits when
// interrupted, print no report and exit 2.
func TestInterruptedBeforeWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"validate", "--recursive", specTestdata + "/valid"},
		{"lint", "--recursive", specTestdata + "/valid"},
	} {
		t.Run(args[0], func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(ctx, args, env{}, &stdout, &stderr); code != exitUsage || stdout.Len() > 0 {
				t.Errorf("exit %d, stdout %q; want 2 and no report", code, stdout.String())
			}
		})
	}
}

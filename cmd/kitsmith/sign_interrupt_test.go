package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/kitsmith/kitsmith/internal/testsvc/stack"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
	"github.com/kitsmith/kitsmith/pkg/sign/signtest"
)

// TestInterruptHungSigstore cancels sign and publish while one Sigstore
// service (Fulcio, the timestamp authority, Rekor v2 or v1, the GitHub
// Actions token endpoint) accepts the connection and never answers: each
// returns within a second of the cancellation with exit 2, and writes no
// signature and no tag.
func TestInterruptHungSigstore(t *testing.T) {
	f := newSignFixture(t)
	hang := "http://" + hangingRegistry(t)
	tok := signtest.Token(testSigner)
	reg := at.Registry(t, true)
	base := func(fulcio, tsa string, extra ...string) []string {
		return append([]string{"--trusted-root", f.trustedRoot, "--fulcio-url", fulcio, "--tsa-url", tsa}, extra...)
	}
	noLog := "--tlog-upload=false"
	type hungCase struct {
		name    string
		publish bool
		args    []string
		env     env
	}
	tests := []hungCase{
		{name: "sign: Fulcio", args: base(hang, f.ss.TSAURL, noLog, "--identity-token", tok)},
		{name: "sign: timestamp authority", args: base(f.ss.FulcioURL, hang+"/api/v1/timestamp", noLog, "--identity-token", tok)},
		{name: "sign: Rekor v2", args: base(f.ss.FulcioURL, f.ss.TSAURL, "--rekor-url", hang, "--identity-token", tok)},
		{name: "sign: Rekor v1", args: base(f.ss.FulcioURL, f.ss.TSAURL, "--rekor-url", hang, "--rekor-version", "1", "--identity-token", tok)},
		{name: "sign: GitHub Actions token", args: base(f.ss.FulcioURL, f.ss.TSAURL, noLog),
			env: env{"ACTIONS_ID_TOKEN_REQUEST_URL": hang + "/token?api-version=2.0", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "request-token"}},
		{name: "publish: Fulcio", publish: true, args: base(hang, f.ss.TSAURL, noLog, "--insecure-ignore-sct", "--identity-token", tok)},
		{name: "publish: timestamp authority", publish: true, args: base(f.ss.FulcioURL, hang+"/api/v1/timestamp", noLog, "--insecure-ignore-sct", "--identity-token", tok)},
	}
	if s, ok := stack.Env(t); ok {
		// The same against the real Fulcio, timestamp authority and Rekor
		// v2 of the integration suite, one of them replaced by the hang.
		live := func(fulcio, tsa, rekor string) []string {
			return []string{"--trusted-root", s.TrustedRoot, "--fulcio-url", fulcio, "--tsa-url", tsa, "--rekor-url", rekor, "--identity-token", s.Token(t, stack.Email, nil)}
		}
		tests = append(tests,
			hungCase{name: "live sign: timestamp authority", args: live(s.FulcioURL, hang+"/api/v1/timestamp", s.RekorURL)},
			hungCase{name: "live sign: Fulcio", args: live(hang, s.TSAURL, s.RekorURL)},
			hungCase{name: "live sign: Rekor v2", args: live(s.FulcioURL, s.TSAURL, hang)},
			hungCase{name: "live publish: timestamp authority", publish: true, args: append(live(s.FulcioURL, hang+"/api/v1/timestamp", s.RekorURL), "--insecure-ignore-sct")},
		)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := pushKit(t, reg, "hung")
			args := append([]string{"sign"}, append(tt.args, ref)...)
			tag := reg + "/kits/hung-publish:" + time.Now().Format("150405.000000000")[7:]
			if tt.publish {
				args = append([]string{"publish", "--progress", "quiet", "--tag", tag}, append(tt.args, "../../kits/outside")...)
			}
			e := env{"SOURCE_DATE_EPOCH": "0"}
			for k, v := range tt.env {
				e[k] = v
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(ctx, args, e, &stdout, &stderr) }()
			select {
			case code := <-done:
				t.Fatalf("returned (exit %d) before the interrupt:\n%s%s", code, stdout.String(), stderr.String())
			case <-time.After(500 * time.Millisecond):
			}
			cancel()
			start := time.Now()
			select {
			case code := <-done:
				if code != exitUsage {
					t.Errorf("exit %d after the interrupt, want 2\n%s%s", code, stdout.String(), stderr.String())
				}
				t.Logf("stopped %v after the interrupt", time.Since(start).Round(time.Millisecond))
			case <-time.After(time.Second):
				t.Fatal("still running a second after the interrupt")
			}
			if tt.publish {
				if _, err := artifact.Head(context.Background(), tag); !errors.Is(err, artifact.ErrNotFound) {
					t.Errorf("an interrupted publish left the tag %s (%v)", tag, err)
				}
				return
			}
			subject, err := artifact.Head(context.Background(), ref)
			if err != nil {
				t.Fatal(err)
			}
			st, err := artifact.NewTarget(context.Background(), ref)
			if err != nil {
				t.Fatal(err)
			}
			if list, err := st.Referrers(context.Background(), subject); err != nil || len(list) != 0 {
				t.Errorf("an interrupted sign left referrers %v (%v)", list, err)
			}
		})
	}
}

// TestSignalStopsHungSign sends SIGTERM and SIGINT to the real main while
// the timestamp authority hangs.
func TestSignalStopsHungSign(t *testing.T) {
	f := newSignFixture(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			addr, accepted := hangingRegistryAccepts(t) // one per child: an accept is this child's
			hang := "http://" + addr
			ref := pushKit(t, at.Registry(t, true), "hung-signal")
			signalWhileWaiting(t, exec.Command(os.Args[0], "sign", "--trusted-root", f.trustedRoot, "--fulcio-url", f.ss.FulcioURL,
				"--tsa-url", hang+"/api/v1/timestamp", "--tlog-upload=false", "--identity-token", signtest.Token(testSigner), ref), accepted, sig)
		})
	}
}

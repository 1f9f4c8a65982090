// The kitsmith_testtools tag keeps this test tool out of `go install ./...`
// (the pre-commit hook's build): scripts/lib/sigstore.sh and scripts/test.sh
// pass it.

//go:build kitsmith_testtools

// Command kitsmith-oidc runs the test OIDC issuer of package
// internal/testsvc/oidcissuer on a loopback address, for the local Sigstore
// stack that scripts/services.sh starts. It is a test tool, never shipped.
//
//	kitsmith-oidc --listen 127.0.0.1:15550 --actions-token-file FILE
//
// Issuers: http://ADDR/email and http://ADDR/github. Mint a token with
// GET ISSUER/token?claim=value... (see the oidcissuer package). It stops on
// SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kitsmith/kitsmith/internal/testsvc/oidcissuer"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "kitsmith-oidc:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("kitsmith-oidc", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "loopback address to listen on")
	tokenFile := fs.String("actions-token-file", "", "file holding the bearer token of /github/actions-token (default: random)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--listen %s: only a loopback IP address is allowed", *listen)
	}
	var opts []oidcissuer.Option
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return fmt.Errorf("reading actions token: %w", err)
		}
		opts = append(opts, oidcissuer.WithActionsToken(strings.TrimSpace(string(b))))
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	iss, err := oidcissuer.New("http://"+ln.Addr().String(), opts...)
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: iss, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(os.Stderr, "kitsmith-oidc: issuers %s and %s, actions token URL %s\n",
		iss.Issuer(oidcissuer.Email), iss.Issuer(oidcissuer.GitHub), iss.ActionsTokenURL())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
